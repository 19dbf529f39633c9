package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/machinestatus/machinestatus/conditions"
)

// TestValidateAgreesWithAPIServer sends a table of conditions both through conditions.Validate
// and, in a Machine's status, to the API server; the verdicts must agree for every row.
func TestValidateAgreesWithAPIServer(t *testing.T) {
	ctx := context.Background()
	ns := env.Namespace(t)
	m := newMachine(t, ns, "validate")
	now := metav1.NewTime(time.Now().Truncate(time.Second))
	ok := metav1.Condition{Type: "Custom", Status: metav1.ConditionTrue, Reason: "Fine", Message: "ok", LastTransitionTime: now}
	with := func(f func(*metav1.Condition)) metav1.Condition { c := ok; f(&c); return c }
	rep := strings.Repeat

	rows := []struct {
		name string
		c    metav1.Condition
	}{
		{"valid", ok},
		{"prefixed type", with(func(c *metav1.Condition) { c.Type = "example.com/Custom" })},
		{"type with dots, dashes and underscores", with(func(c *metav1.Condition) { c.Type = "a.b-c_D" })},
		{"type of 316 characters (253 prefix + / + 62)", with(func(c *metav1.Condition) { c.Type = dnsName(253) + "/" + rep("a", 62) })},
		{"type of 317 characters", with(func(c *metav1.Condition) { c.Type = dnsName(253) + "/" + rep("a", 63) })},
		{"name part of 63 characters", with(func(c *metav1.Condition) { c.Type = rep("a", 63) })},
		{"name part of 64 characters", with(func(c *metav1.Condition) { c.Type = rep("a", 64) })},
		{"prefix of 254 characters", with(func(c *metav1.Condition) { c.Type = dnsName(254) + "/a" })},
		{"empty type", with(func(c *metav1.Condition) { c.Type = "" })},
		{"type with a space", with(func(c *metav1.Condition) { c.Type = "Not Valid" })},
		{"type ending in a dash", with(func(c *metav1.Condition) { c.Type = "Bad-" })},
		{"uppercase prefix", with(func(c *metav1.Condition) { c.Type = "Example.com/Custom" })},
		{"two slashes", with(func(c *metav1.Condition) { c.Type = "a/b/c" })},
		{"status False", with(func(c *metav1.Condition) { c.Status = metav1.ConditionFalse })},
		{"status Unknown", with(func(c *metav1.Condition) { c.Status = metav1.ConditionUnknown })},
		{"status lowercase true", with(func(c *metav1.Condition) { c.Status = "true" })},
		{"empty status", with(func(c *metav1.Condition) { c.Status = "" })},
		{"reason with comma and colon", with(func(c *metav1.Condition) { c.Reason = "A,B:C_d" })},
		{"reason of 1024 characters", with(func(c *metav1.Condition) { c.Reason = rep("R", 1024) })},
		{"reason of 1025 characters", with(func(c *metav1.Condition) { c.Reason = rep("R", 1025) })},
		{"empty reason", with(func(c *metav1.Condition) { c.Reason = "" })},
		{"reason starting with a digit", with(func(c *metav1.Condition) { c.Reason = "1Reason" })},
		{"reason with a space", with(func(c *metav1.Condition) { c.Reason = "Not Valid" })},
		{"reason ending with a colon", with(func(c *metav1.Condition) { c.Reason = "Reason:" })},
		{"reason with a dash", with(func(c *metav1.Condition) { c.Reason = "Not-Valid" })},
		{"empty message", with(func(c *metav1.Condition) { c.Message = "" })},
		{"message of 32768 bytes", with(func(c *metav1.Condition) { c.Message = rep("m", 32768) })},
		{"message of 32769 bytes", with(func(c *metav1.Condition) { c.Message = rep("m", 32769) })},
		{"message of 16384 two-byte characters (32768 bytes)", with(func(c *metav1.Condition) { c.Message = rep("é", 16384) })},
		{"message of 16385 two-byte characters (32770 bytes)", with(func(c *metav1.Condition) { c.Message = rep("é", 16385) })},
		{"message of 32768 two-byte characters (65536 bytes)", with(func(c *metav1.Condition) { c.Message = rep("é", 32768) })},
		{"observedGeneration 0", with(func(c *metav1.Condition) { c.ObservedGeneration = 0 })},
		{"observedGeneration 9", with(func(c *metav1.Condition) { c.ObservedGeneration = 9 })},
		{"negative observedGeneration", with(func(c *metav1.Condition) { c.ObservedGeneration = -1 })},
		{"zero lastTransitionTime", with(func(c *metav1.Condition) { c.LastTransitionTime = metav1.Time{} })},
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			libErr := conditions.Validate(row.c)

			latest := m.DeepCopy()
			if err := k8s.Get(ctx, keyOf(m), latest); err != nil {
				t.Fatal(err)
			}
			latest.Status.Conditions = []metav1.Condition{row.c}
			srvErr := k8s.Status().Update(ctx, latest)

			if (libErr == nil) != (srvErr == nil) {
				t.Fatalf("verdicts differ:\n  conditions.Validate: %v\n  API server:          %v", libErr, srvErr)
			}
		})
	}
}

// dnsName returns a valid DNS subdomain of exactly n characters (labels of at most 63).
func dnsName(n int) string {
	var b strings.Builder
	for b.Len() < n {
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		label := min(63, n-b.Len())
		b.WriteString(strings.Repeat("a", label))
	}
	s := b.String()
	if strings.HasSuffix(s, ".") || len(s) != n {
		panic("dnsName: cannot build a name of that length")
	}
	return s
}
