package conditions

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestQuickValid checks the quick path of Validate against the full validation on the edges of
// every rule: quickValid must never accept what validate rejects, and must accept the valid
// conditions (otherwise the quick path would not pay). FuzzValidate checks Validate as a whole
// against apimachinery and an independent oracle.
func TestQuickValid(t *testing.T) {
	ok := metav1.Condition{Type: "Ready", Status: metav1.ConditionTrue, Reason: "NoIssuesReported",
		LastTransitionTime: metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))}
	label63 := strings.Repeat("a", 63)
	tests := []struct {
		name string
		edit func(*metav1.Condition)
	}{
		{"valid", func(*metav1.Condition) {}},
		{"status False", func(c *metav1.Condition) { c.Status = metav1.ConditionFalse }},
		{"status Unknown", func(c *metav1.Condition) { c.Status = metav1.ConditionUnknown }},
		{"status empty", func(c *metav1.Condition) { c.Status = "" }},
		{"status lower case", func(c *metav1.Condition) { c.Status = "true" }},
		{"negative generation", func(c *metav1.Condition) { c.ObservedGeneration = -1 }},
		{"zero time", func(c *metav1.Condition) { c.LastTransitionTime = metav1.Time{} }},
		{"message 32768 bytes", func(c *metav1.Condition) { c.Message = strings.Repeat("x", 32768) }},
		{"message 32769 bytes", func(c *metav1.Condition) { c.Message = strings.Repeat("x", 32769) }},
		{"type empty", func(c *metav1.Condition) { c.Type = "" }},
		{"type one character", func(c *metav1.Condition) { c.Type = "R" }},
		{"type digits", func(c *metav1.Condition) { c.Type = "123-abc" }},
		{"type with dots, dashes, underscores", func(c *metav1.Condition) { c.Type = "my.Name-x_y" }},
		{"type starts with dash", func(c *metav1.Condition) { c.Type = "-Ready" }},
		{"type ends with dot", func(c *metav1.Condition) { c.Type = "Ready." }},
		{"type with space", func(c *metav1.Condition) { c.Type = "Node Ready" }},
		{"type non-ASCII", func(c *metav1.Condition) { c.Type = "Prêt" }},
		{"type name 63", func(c *metav1.Condition) { c.Type = label63 }},
		{"type name 64", func(c *metav1.Condition) { c.Type = label63 + "a" }},
		{"type name 63 with a dash (not alnumName's)", func(c *metav1.Condition) { c.Type = label63[:31] + "-" + label63[:31] }},
		{"prefixed type, name 63", func(c *metav1.Condition) { c.Type = "example.com/" + label63 }},
		{"prefixed type", func(c *metav1.Condition) { c.Type = "example.com/Backup" }},
		{"prefix with dash", func(c *metav1.Condition) { c.Type = "my-org.example.com/Backup" }},
		{"prefix upper case", func(c *metav1.Condition) { c.Type = "Example.com/Backup" }},
		{"prefix empty", func(c *metav1.Condition) { c.Type = "/Backup" }},
		{"prefix empty label", func(c *metav1.Condition) { c.Type = "example..com/Backup" }},
		{"prefix leading dot", func(c *metav1.Condition) { c.Type = ".example.com/Backup" }},
		{"prefix trailing dash", func(c *metav1.Condition) { c.Type = "example-.com/Backup" }},
		{"prefix label after a dot starts with dash", func(c *metav1.Condition) { c.Type = "example.-com/Backup" }},
		{"prefix underscore", func(c *metav1.Condition) { c.Type = "ex_ample.com/Backup" }},
		{"name empty after prefix", func(c *metav1.Condition) { c.Type = "example.com/" }},
		{"two slashes", func(c *metav1.Condition) { c.Type = "a/b/Backup" }},
		{"prefix 253", func(c *metav1.Condition) {
			c.Type = strings.Repeat(label63+".", 3) + strings.Repeat("b", 61) + "/X"
		}},
		{"prefix 254", func(c *metav1.Condition) {
			c.Type = strings.Repeat(label63+".", 3) + strings.Repeat("b", 62) + "/X"
		}},
		{"type 316", func(c *metav1.Condition) {
			c.Type = strings.Repeat(label63+".", 3) + strings.Repeat("b", 61) + "/" + label63[:62]
		}},
		{"type 317", func(c *metav1.Condition) {
			c.Type = strings.Repeat(label63+".", 3) + strings.Repeat("b", 61) + "/" + label63
		}},
		{"reason empty", func(c *metav1.Condition) { c.Reason = "" }},
		{"reason one letter", func(c *metav1.Condition) { c.Reason = "A" }},
		{"reason starts with digit", func(c *metav1.Condition) { c.Reason = "1Reason" }},
		{"reason with , : _", func(c *metav1.Condition) { c.Reason = "A,B:C_d_" }},
		{"reason ends with colon", func(c *metav1.Condition) { c.Reason = "Reason:" }},
		{"reason with dash", func(c *metav1.Condition) { c.Reason = "Not-Ready" }},
		{"reason with space", func(c *metav1.Condition) { c.Reason = "Not Ready" }},
		{"reason 1024", func(c *metav1.Condition) { c.Reason = "R" + strings.Repeat("x", 1023) }},
		{"reason 1025", func(c *metav1.Condition) { c.Reason = "R" + strings.Repeat("x", 1024) }},
		// The last character of each range: quickValid accepts every character the rules allow.
		{"type and reason of z, Z and 9", func(c *metav1.Condition) { c.Type, c.Reason = "z9.z9/Zz9", "Zz9" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := ok
			tt.edit(&c)
			quick, full := quickValid(c), validate(c) == nil
			if quick && !full {
				t.Fatalf("quickValid accepts %q/%q/%q, which validate rejects: %v", c.Type, c.Status, c.Reason, validate(c))
			}
			if full && !quick {
				t.Errorf("quickValid rejects a valid condition %q/%q/%q: the quick path misses a common case", c.Type, c.Status, c.Reason)
			}
		})
	}
}

func BenchmarkValidate(b *testing.B) {
	c := metav1.Condition{Type: "example.com/NetworkAttached", Status: metav1.ConditionTrue, Reason: "Attached",
		Message: "attached to vpc-0123", LastTransitionTime: metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))}
	b.ReportAllocs()
	for b.Loop() {
		if err := Validate(c); err != nil {
			b.Fatal(err)
		}
	}
}

// TestAlnum8 checks the eight-bytes-at-once test against the byte classes for every byte value
// in every position, next to bytes that pass.
func TestAlnum8(t *testing.T) {
	for pos := range 8 {
		for c := range 256 {
			word := []byte("aZ09zA9m")
			word[pos] = byte(c)
			want := true
			for _, b := range word {
				want = want && isAlnum(b)
			}
			if got := alnum8(load8(string(word))); got != want {
				t.Errorf("alnum8(%q) = %v, want %v", word, got, want)
			}
		}
	}
	if got := load8("\x01\x02\x03\x04\x05\x06\x07\x08rest"); got != 0x0807060504030201 {
		t.Errorf("load8 = %#x, want 0x0807060504030201 (the first eight bytes, little endian)", got)
	}
}

// TestValidateTypes: ValidateTypes of a list is ValidateType of its first invalid type, or nil;
// remembering a valid prefix never lets an invalid type through (the same prefix with a bad
// name, an empty prefix, a prefix with a second "/"), whatever came before.
func TestValidateTypes(t *testing.T) {
	pool := []string{
		"Ready", "InfrastructureReady", "example.com/A", "example.com/Backup", "example.com/-bad",
		"example.com/", "/Backup", "a/b/X", "a.b/X", "a.b/Y", "Example.com/X", "exa_mple.com/X",
		"example.com.", "other.example.com/Mounted", "UpToDate", "1234567890abcdefXYZ", "x-y_z.w",
		strings.Repeat("z", 63), strings.Repeat("z", 64), "", "Prêt", "Node Ready",
	}
	// The oracle: apimachinery's validation (validate, no quick path) of each type in turn.
	first := func(types []string) error {
		for _, typ := range types {
			if err := validate(metav1.Condition{Type: typ, Status: metav1.ConditionTrue, Reason: "ValidType", LastTransitionTime: metav1.Unix(1, 0)}); err != nil {
				return err
			}
		}
		return nil
	}
	lists := [][]string{
		nil,
		{"example.com/A", "example.com/Backup", "example.com/-bad"},
		{"example.com/A", "example.com/"},
		{"example.com/A", "/Backup"},
		{"a.b/X", "a/b/X"},
		{"a.b/X", "a.b/Y", "Ready"},
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for range 3000 {
		var list []string
		for range rng.IntN(6) {
			list = append(list, pool[rng.IntN(len(pool))])
		}
		lists = append(lists, list)
	}
	for _, list := range lists {
		got, want := ValidateTypes(list), first(list)
		if (got == nil) != (want == nil) || (got != nil && got.Error() != want.Error()) {
			t.Fatalf("ValidateTypes(%q) = %v, want %v", list, got, want)
		}
	}
	if allocs := testing.AllocsPerRun(100, func() {
		_ = ValidateTypes([]string{"Ready", "example.com/A", "example.com/B", "InfrastructureReady"})
	}); allocs != 0 {
		t.Errorf("ValidateTypes of valid types: %v allocations, want 0", allocs)
	}
}

// TestAlnumName: the whole of the type is checked (each block, and the last bytes however the
// length falls), and only names of 1 to 63 letters and digits pass.
func TestAlnumName(t *testing.T) {
	for n := range 70 {
		name := strings.Repeat("aZ9", 30)[:n]
		if got, want := alnumName(name), n >= 1 && n <= 63; got != want {
			t.Errorf("alnumName(%d letters and digits) = %v, want %v", n, got, want)
		}
		for at := range n {
			bad := []byte(name)
			bad[at] = '-'
			if alnumName(string(bad)) {
				t.Errorf("alnumName(%q) = true, want false (a '-' at %d)", bad, at)
			}
		}
	}
}
