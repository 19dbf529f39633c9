//go:build faults

package faults

import (
	"context"
	"fmt"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/conditions"
	"github.com/machinestatus/machinestatus/controllers"
	"github.com/machinestatus/machinestatus/test/harness"
	"github.com/machinestatus/machinestatus/test/internal/fleet"
	"github.com/machinestatus/machinestatus/test/internal/managerlog"
)

// otherWriter is the field manager of the conditions another controller writes in these tests.
const otherWriter = "other-writer"

// TestConditionCapacity gives a Running Machine many conditions of another writer and checks
// the capacity rule (docs/rules.md, "Conditions": the catalog's priority):
//   - 23 of theirs (the instance; 32 was the limit): a spec.version change and a
//     NotReady Node are still shown, with observedGeneration, and theirs are kept;
//   - 55 of theirs and 9 of ours fill the 64 places; when a spec.version makes us want a 10th,
//     our least important one (Paused) is omitted and the status keeps following the spec and
//     the Node; a ConditionsOmitted event and
//     machinestatus_conditions_omitted_total say so, and the log says it at ERROR once;
//   - an admission policy refusing our status writes: StatusWriteRefused events and
//     machinestatus_status_writes_refused_total{reason="Forbidden"} count the retries, the log
//     says it at ERROR once, and the status follows again once the policy lets it through.
func TestConditionCapacity(t *testing.T) {
	ctx := t.Context()
	fx := newFixture(t, "capacity", 1)
	name := fx.names[0]
	fx.allowErrors(
		managerlog.Allowed{Contains: "other writers' conditions leave too little room", Why: "the test fills status.conditions; an operator must make room"},
		managerlog.Allowed{Contains: "the API server refuses this Machine's status", Why: "the test's admission policy refuses the manager's status writes"},
	)
	mgr := fx.startManager("")
	fx.waitStates(2*time.Minute, fx.all(healthy))

	// 23 of theirs, then a new spec.version and a NotReady Node.
	applyOtherConditions(t, fx.name, name, 23)
	if err := setWantedVersion(ctx, fx.name, name, "v1.36.4"); err != nil {
		t.Fatal(err)
	}
	if err := setNotReady(ctx, name, true); err != nil {
		t.Fatal(err)
	}
	fx.waitMachine("the spec change and the NotReady Node with 23 other conditions", func(m *v1alpha1.Machine) string {
		return follows(m, 23, map[string]metav1.ConditionStatus{
			v1alpha1.MachineNodeReadyCondition: metav1.ConditionFalse, v1alpha1.MachineUpdatingCondition: metav1.ConditionTrue,
		})
	})

	// No spec.version: Updating is not ours any more. Then 55 of theirs fill the list with our
	// 9, and a spec.version again makes us want a 10th: the least important one is omitted.
	if err := mergePatch(ctx, &v1alpha1.Machine{ObjectMeta: metav1.ObjectMeta{Namespace: fx.name, Name: name}}, `{"spec":{"version":null}}`); err != nil {
		t.Fatal(err)
	}
	fx.waitMachine("Updating to go with spec.version", func(m *v1alpha1.Machine) string {
		if c := conditions.Get(m, v1alpha1.MachineUpdatingCondition); c != nil || m.Status.ObservedGeneration != m.Generation {
			return fmt.Sprintf("Updating %v at observedGeneration %d of %d", c, m.Status.ObservedGeneration, m.Generation)
		}
		return ""
	})
	applyOtherConditions(t, fx.name, name, 55)
	if err := setWantedVersion(ctx, fx.name, name, "v1.36.4"); err != nil {
		t.Fatal(err)
	}
	if err := setNotReady(ctx, name, false); err != nil {
		t.Fatal(err)
	}
	fx.waitMachine("the spec change and the Ready Node with 55 other conditions", func(m *v1alpha1.Machine) string {
		if n := len(m.Status.Conditions); n != v1alpha1.MaxConditions {
			return fmt.Sprintf("%d conditions, want %d (full)", n, v1alpha1.MaxConditions)
		}
		if c := conditions.Get(m, v1alpha1.MachinePausedCondition); c != nil {
			return "Paused, the least important, is still there"
		}
		return follows(m, 55, map[string]metav1.ConditionStatus{
			v1alpha1.MachineNodeReadyCondition: metav1.ConditionTrue, v1alpha1.MachineUpdatingCondition: metav1.ConditionTrue,
		})
	})
	fx.waitEvent(controllers.ConditionsOmittedEventReason)
	fx.waitMetric(mgr, "machinestatus_conditions_omitted_total", nil, 1)
	expectErrorOnce(t, mgr, "other writers' conditions leave too little room")

	// Back to 23 of theirs, then an admission policy refuses our writes.
	applyOtherConditions(t, fx.name, name, 23)
	refuseStatusWrites(t, fx.name)
	if err := setNotReady(ctx, name, true); err != nil {
		t.Fatal(err)
	}
	fx.waitEvent(controllers.StatusRefusedEventReason)
	fx.waitMetric(mgr, "machinestatus_status_writes_refused_total", map[string]string{"reason": "Forbidden"}, 3)
	expectErrorOnce(t, mgr, "the API server refuses this Machine's status")
	if err := mergePatch(ctx, &v1alpha1.Machine{ObjectMeta: metav1.ObjectMeta{Namespace: fx.name, Name: name}},
		`{"metadata":{"labels":{"`+refuseLabel+`":null}}}`); err != nil {
		t.Fatal(err)
	}
	fx.waitMachine("the NotReady Node once writes are let through", func(m *v1alpha1.Machine) string {
		return follows(m, 23, map[string]metav1.ConditionStatus{v1alpha1.MachineNodeReadyCondition: metav1.ConditionFalse})
	})
}

// follows says how m differs from a status that shows its generation, keeps others of the
// other writer's conditions and has the conditions of want; "" when it does not.
func follows(m *v1alpha1.Machine, others int, want map[string]metav1.ConditionStatus) string {
	if m.Status.ObservedGeneration != m.Generation {
		return fmt.Sprintf("observedGeneration %d of %d", m.Status.ObservedGeneration, m.Generation)
	}
	for i := range others {
		if conditions.Get(m, otherType(i)) == nil {
			return otherType(i) + " is gone"
		}
	}
	for t, s := range want {
		if c := conditions.Get(m, t); c == nil || c.Status != s {
			return fmt.Sprintf("%s is %v, want %s", t, c, s)
		}
	}
	return ""
}

func otherType(i int) string { return fmt.Sprintf("other.example.com/Check%02d", i) }

// applyOtherConditions makes otherWriter own exactly n conditions on Machine ns/name.
func applyOtherConditions(t *testing.T, ns, name string, n int) {
	t.Helper()
	list := make([]any, n)
	for i := range n {
		list[i] = map[string]any{
			"type": otherType(i), "status": "True", "reason": "Checked", "message": "written by " + otherWriter,
			"lastTransitionTime": time.Now().UTC().Format(time.RFC3339),
		}
	}
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": v1alpha1.GroupVersion.String(), "kind": "Machine",
		"metadata": map[string]any{"namespace": ns, "name": name},
		"status":   map[string]any{"conditions": list},
	}}
	if err := env.Client.Status().Apply(t.Context(), client.ApplyConfigurationFromUnstructured(u), client.FieldOwner(otherWriter), client.ForceOwnership); err != nil {
		t.Fatalf("cannot apply %d conditions of %s: %v", n, otherWriter, err)
	}
}

// refuseLabel marks Machines whose status the manager may not write (refuseStatusWrites).
const refuseLabel = "faults.test/refuse-status"

// refuseStatusWrites installs an admission policy that refuses, as Forbidden, the manager's
// status writes to the Machines of ns labelled refuseLabel, and labels them. The test's cleanup
// removes the policy.
func refuseStatusWrites(t *testing.T, ns string) {
	t.Helper()
	ctx := t.Context()
	forbidden := metav1.StatusReasonForbidden
	policy := &admissionregistrationv1.ValidatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: "faults-refuse-status-" + ns},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			MatchConstraints: &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
				RuleWithOperations: admissionregistrationv1.RuleWithOperations{
					Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Update},
					Rule: admissionregistrationv1.Rule{
						APIGroups: []string{v1alpha1.GroupVersion.Group}, APIVersions: []string{"*"}, Resources: []string{"machines/status"},
					},
				},
			}}},
			Validations: []admissionregistrationv1.Validation{{
				Expression: fmt.Sprintf("request.userInfo.username != %q", fleet.ManagerUser),
				Message:    "the test refuses the manager's status writes",
				Reason:     &forbidden,
			}},
		},
	}
	binding := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{
		ObjectMeta: metav1.ObjectMeta{Name: policy.Name},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
			PolicyName:        policy.Name,
			ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny},
			MatchResources: &admissionregistrationv1.MatchResources{
				NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/metadata.name": ns}},
				ObjectSelector:    &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: refuseLabel, Operator: metav1.LabelSelectorOpExists}}},
			},
		},
	}
	for _, obj := range []client.Object{policy, binding} {
		if err := env.Client.Create(ctx, obj); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = env.Client.Delete(context.Background(), obj) })
	}
	list := &v1alpha1.MachineList{}
	if err := env.Client.List(ctx, list, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	for i := range list.Items {
		if err := mergePatch(ctx, &list.Items[i], `{"metadata":{"labels":{"`+refuseLabel+`":"true"}}}`); err != nil {
			t.Fatal(err)
		}
	}
	// The API server loads the policy within moments: wait until a dry-run status write as the
	// manager's user is refused.
	cfg := rest.CopyConfig(env.CP.Config)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: fleet.ManagerUser}
	as, err := client.New(cfg, client.Options{Scheme: env.Client.Scheme()})
	if err != nil {
		t.Fatal(err)
	}
	if err := harness.Poll(ctx, time.Minute, func(ctx context.Context) (bool, string) {
		m := &list.Items[0]
		err := as.Status().Patch(ctx, m, client.RawPatch(types.MergePatchType, []byte(`{"status":{}}`)), client.DryRunAll)
		return apierrors.IsForbidden(err), fmt.Sprintf("dry-run status write: %v", err)
	}); err != nil {
		t.Fatal(err)
	}
}

// waitMachine waits until the fixture's only Machine passes ok ("" means it does).
func (fx *fixture) waitMachine(what string, ok func(*v1alpha1.Machine) string) {
	fx.t.Helper()
	harness.Wait(fx.t, 2*time.Minute, what, func(ctx context.Context) (bool, string) {
		m := &v1alpha1.Machine{}
		if err := env.Client.Get(ctx, client.ObjectKey{Namespace: fx.name, Name: fx.names[0]}, m); err != nil {
			return false, err.Error()
		}
		why := ok(m)
		return why == "", why
	})
}

// waitEvent waits for an Event of reason about one of the fixture's Machines.
func (fx *fixture) waitEvent(reason string) {
	fx.t.Helper()
	harness.Wait(fx.t, time.Minute, "a "+reason+" event", func(ctx context.Context) (bool, string) {
		list := &eventsv1.EventList{}
		if err := env.Client.List(ctx, list, client.InNamespace(fx.name)); err != nil {
			return false, err.Error()
		}
		for _, e := range list.Items {
			if e.Reason == reason && e.Regarding.Kind == "Machine" {
				return true, ""
			}
		}
		return false, fmt.Sprintf("none among %d events", len(list.Items))
	})
}

// waitMetric waits until the manager's metric name (samples with labels want, summed) is at
// least n.
func (fx *fixture) waitMetric(m *manager, name string, want map[string]string, n float64) {
	fx.t.Helper()
	harness.Wait(fx.t, time.Minute, fmt.Sprintf("%s%v ≥ %g", name, want, n), func(ctx context.Context) (bool, string) {
		v, err := m.metric(ctx, name, want)
		if err != nil {
			return false, err.Error()
		}
		return v >= n, fmt.Sprintf("%g", v)
	})
}

// expectErrorOnce fails the test unless the manager's log holds exactly one ERROR line with s.
func expectErrorOnce(t *testing.T, m *manager, s string) {
	t.Helper()
	n, err := managerlog.Count(m.LogPath, s)
	if err != nil {
		t.Fatal(err)
	}
	if n != 1 {
		t.Errorf("%d ERROR lines with %q, want exactly 1", n, s)
	}
}
