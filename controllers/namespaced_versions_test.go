package controllers_test

import (
	"context"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/test/harness"
)

// TestNamespacedWatchFollowsVersions: an infrastructure kind the manager may read only in one
// namespace (a Role and RoleBinding there, nothing cluster-wide, so it is watched through a
// cache of that namespace) whose CRD changes its served version while the manager runs, as a
// provider upgrade does (v1beta1 served and stored → v1beta2 served and stored, v1beta1 no
// longer served). The Machine must keep following its object through a watch of the new
// version: a status change after the upgrade makes it Provisioned, a later failureReason makes
// it Failed (the CRD's own events are long past by then, and a readable reference is not
// polled, so only a watch of v1beta2 in the namespace can tell it).
func TestNamespacedWatchFollowsVersions(t *testing.T) {
	ctx := context.Background()
	ns := env.Namespace(t)
	v1, admin, _ := namespaceGrantedKind(t, ns, "Moving", "v1beta1")
	v2 := v1.GroupKind().WithVersion("v1beta2")
	crd := &apiextensionsv1.CustomResourceDefinition{ObjectMeta: metav1.ObjectMeta{Name: strings.ToLower(v1.Kind) + "s." + v1.Group}}
	createLater(t, v1, ns, "m", map[string]any{"initialization": map[string]any{"provisioned": false}})
	m := harness.NewMachine(ns, "m")
	m.Spec.InfrastructureRef = v1alpha1.ContractVersionedObjectReference{APIGroup: v1.Group, Kind: v1.Kind, Name: "m"}
	env.Create(t, m)
	waitCondition(t, ns, "m", v1alpha1.MachineInfrastructureReadyCondition, func(c *metav1.Condition) string {
		if c.Status != metav1.ConditionFalse || c.Reason != v1alpha1.MachineInfrastructureNotProvisionedReason {
			return c.Reason + ": " + c.Message
		}
		return ""
	})

	// The provider upgrades: v1beta2 served and stored, v1beta1 no longer served.
	if err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := admin.Get(ctx, client.ObjectKeyFromObject(crd), crd); err != nil {
			return err
		}
		next := *crd.Spec.Versions[0].DeepCopy()
		next.Name = v2.Version
		crd.Spec.Versions[0].Served, crd.Spec.Versions[0].Storage = false, false
		crd.Spec.Versions = []apiextensionsv1.CustomResourceDefinitionVersion{crd.Spec.Versions[0], next}
		return admin.Update(ctx, crd)
	}); err != nil {
		t.Fatal(err)
	}
	harness.Wait(t, badRefTimeout, v2.String()+" served", func(ctx context.Context) (bool, string) {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(v2)
		if err := k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: "m"}, u); err != nil {
			return false, err.Error()
		}
		return true, ""
	})

	env.SetStatus(t, v2, ns, "m", map[string]any{"initialization": map[string]any{"provisioned": true}})
	env.WaitPhase(t, ns, "m", v1alpha1.MachinePhaseProvisioned)
	env.SetStatus(t, v2, ns, "m", map[string]any{"initialization": map[string]any{"provisioned": true}, "failureReason": "HostLost", "failureMessage": "the host is gone"})
	env.WaitPhase(t, ns, "m", v1alpha1.MachinePhaseFailed)
}
