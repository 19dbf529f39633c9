package api

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/test/harness"
)

// TestKubectlWaitAfterSpecChange checks kubectl wait's observedGeneration rule: after a spec
// change, --for=condition=Ready does not return on a Ready condition computed for the previous
// generation, and does return once the controller has observed the new one; --for=jsonpath on
// the phase follows the change.
func TestKubectlWaitAfterSpecChange(t *testing.T) {
	ns := env.Namespace(t)
	name := "w1"
	pid := "fake://" + ns + "/" + name
	node := ns + "-" + name

	m := harness.NewMachine(ns, name)
	m.Spec.Version = "v1.36.3"
	env.Create(t, m)
	env.CreateInfra(t, ns, name, map[string]any{"providerID": pid}, map[string]any{"initialization": map[string]any{"provisioned": true}})
	env.CreateNode(t, node, pid, "v1.36.3", corev1.ConditionTrue, time.Now())
	if out, err := kubectl(t, "-n", ns, "wait", "--for=condition=Ready", "machine/"+name, "--timeout=60s"); err != nil {
		t.Fatalf("kubectl wait --for=condition=Ready: %v: %s", err, out)
	}

	// Paused, the controller observes nothing; a spec change leaves Ready True for generation 1.
	env.UpdateMachine(t, ns, name, func(m *v1alpha1.Machine) {
		m.Annotations = map[string]string{v1alpha1.PausedAnnotation: ""}
	})
	harness.Wait(t, harness.MachineTimeout, "Paused=True", func(context.Context) (bool, string) {
		if c := findCondition(env.GetMachine(t, ns, name), v1alpha1.MachinePausedCondition); c == nil || c.Status != "True" {
			return false, "not paused yet"
		}
		return true, ""
	})
	env.UpdateMachine(t, ns, name, func(m *v1alpha1.Machine) { m.Spec.Version = "v1.36.4" })
	got := env.GetMachine(t, ns, name)
	ready := findCondition(got, v1alpha1.MachineReadyCondition)
	if ready == nil || ready.Status != "True" || ready.ObservedGeneration >= got.Generation {
		t.Fatalf("want a stale Ready=True (observedGeneration < generation %d), got %+v", got.Generation, ready)
	}
	out, err := kubectl(t, "-n", ns, "wait", "--for=condition=Ready", "machine/"+name, "--timeout=3s")
	if err == nil || !strings.Contains(out, "timed out") {
		t.Fatalf("kubectl wait returned on a Ready condition of an older generation: %v: %s", err, out)
	}

	// Unpaused, the controller observes generation 2: the Node's kubelet is older, so Updating.
	env.UpdateMachine(t, ns, name, func(m *v1alpha1.Machine) { delete(m.Annotations, v1alpha1.PausedAnnotation) })
	out, err = kubectl(t, "-n", ns, "wait", "--for=jsonpath={.status.phase}=Updating", "machine/"+name, "--timeout=60s")
	if err != nil || !strings.Contains(out, "condition met") {
		t.Fatalf("kubectl wait --for=jsonpath={.status.phase}=Updating: %v: %s", err, out)
	}
	wait := make(chan string, 1)
	go func() {
		out, err := kubectl(t, "-n", ns, "wait", "--for=condition=Ready", "machine/"+name, "--timeout=60s")
		if err != nil {
			out += " (" + err.Error() + ")"
		}
		wait <- out
	}()
	env.UpdateNode(t, node, func(n *corev1.Node) { n.Status.NodeInfo.KubeletVersion = "v1.36.4" })
	if out := <-wait; !strings.Contains(out, "condition met") {
		t.Fatalf("kubectl wait --for=condition=Ready after the update: %s", out)
	}
	out, err = kubectl(t, "-n", ns, "wait", "--for=jsonpath={.status.phase}=Running", "machine/"+name, "--timeout=60s")
	if err != nil || !strings.Contains(out, "condition met") {
		t.Fatalf("kubectl wait --for=jsonpath={.status.phase}=Running: %v: %s", err, out)
	}
	if got := env.GetMachine(t, ns, name); got.Status.ObservedGeneration != got.Generation {
		t.Fatalf("observedGeneration %d, generation %d", got.Status.ObservedGeneration, got.Generation)
	}
}

// TestKubectlExplain checks that kubectl explain, reading the API server's published OpenAPI,
// describes every field of status.lastOperation and lists the allowed values.
func TestKubectlExplain(t *testing.T) {
	out, err := kubectl(t, "explain", "machines.status.lastOperation", "--api-version=machinestatus.io/v1alpha1")
	if err != nil {
		t.Fatalf("kubectl explain: %v: %s", err, out)
	}
	wantLines(t, "kubectl explain", out,
		`^GROUP:\s+machinestatus\.io$`,
		`^FIELD:\s+lastOperation <Object>$`,
		`^\s+lastOperation is the most recent operation`,
	)
	fields := map[string]string{
		"type":        `type of the operation: Create, Update, DrainNode, HealthCheck or Delete`,
		"state":       `state of the operation: Processing, Successful or Failed`,
		"description": `description says, in one bounded human-readable sentence`,
		"lastUpdated": `lastUpdated is when type or state last changed`,
	}
	for field, doc := range fields {
		// The field's line, its allowed values if any, then its description indented below.
		re := regexp.MustCompile(`(?m)^  ` + field + `\t<[^>]+>.*\n(\s+enum: .*\n)?\s+` + regexp.QuoteMeta(doc))
		if !re.MatchString(out) {
			t.Errorf("kubectl explain: field %s is not described with %q:\n%s", field, doc, out)
		}
	}
	// kubectl shortens long enums with "....".
	for _, enum := range []string{`enum: Create, Update, DrainNode, HealthCheck`, `enum: Processing, Successful, Failed`} {
		if !strings.Contains(out, enum) {
			t.Errorf("kubectl explain does not list the allowed values %q:\n%s", enum, out)
		}
	}
}

// TestPrintColumnsNeverIndexConditions checks that no printer column of the installed CRD picks
// a condition by its position (conditions are a list-map: positions change between writers).
func TestPrintColumnsNeverIndexConditions(t *testing.T) {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(apiextensionsv1.SchemeGroupVersion.WithKind("CustomResourceDefinition"))
	if err := k8s.Get(context.Background(), client.ObjectKey{Name: "machines." + v1alpha1.GroupVersion.Group}, u); err != nil {
		t.Fatal(err)
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, crd); err != nil {
		t.Fatal(err)
	}
	indexed := regexp.MustCompile(`conditions\[\s*-?\d`)
	n := 0
	for _, v := range crd.Spec.Versions {
		for _, c := range v.AdditionalPrinterColumns {
			n++
			if indexed.MatchString(c.JSONPath) {
				t.Errorf("printer column %s indexes the conditions: %s", c.Name, c.JSONPath)
			}
		}
	}
	if n == 0 {
		t.Fatal("the CRD has no printer columns")
	}
}
