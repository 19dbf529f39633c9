//go:build faults

package faults

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/test/harness"
	infrav1 "github.com/machinestatus/machinestatus/test/infra/api/v1alpha1"
	"github.com/machinestatus/machinestatus/test/internal/managerlog"
	"github.com/machinestatus/machinestatus/test/kwok"
)

// caseLabel marks a test's Machines; its managers select them with --machine-selector, so that
// the Machines of earlier tests are nobody's business.
const caseLabel = "faults.test/case"

// kubeletVersion is what the simulated kubelets report and the Machines want at first.
const kubeletVersion = "v1.36.3"

// fixture is one test's namespace and Machines. Every name (namespace, label value, the prefix
// of the Machines, SimMachines and so Nodes) is the test's case name.
type fixture struct {
	t     *testing.T
	name  string
	names []string // the Machines, each with a SimMachine and a Node of the same name

	mu      sync.Mutex
	allowed []managerlog.Allowed // ERROR lines the test's managers may log (allowErrors)
}

// newFixture creates namespace name and n Machines, each referencing a SimMachine that the
// simulated provider provisions in about a second and whose Node (played by kwok) registers a
// second later.
func newFixture(t *testing.T, name string, n int) *fixture {
	t.Helper()
	fx := &fixture{t: t, name: name}
	ctx := t.Context()
	if err := env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		fx.names = append(fx.names, fmt.Sprintf("%s-%02d", name, i))
	}
	for _, m := range fx.names {
		fx.createMachine(ctx, m)
	}
	return fx
}

func (fx *fixture) createMachine(ctx context.Context, name string) {
	fx.t.Helper()
	sim := &infrav1.SimMachine{
		ObjectMeta: metav1.ObjectMeta{Namespace: fx.name, Name: name},
		Spec:       infrav1.SimMachineSpec{ProvisionAfterSeconds: 1, RegisterNodeAfterSeconds: 1, KubeletVersion: kubeletVersion},
	}
	m := &v1alpha1.Machine{
		ObjectMeta: metav1.ObjectMeta{Namespace: fx.name, Name: name, Labels: map[string]string{caseLabel: fx.name}},
		Spec: v1alpha1.MachineSpec{
			InfrastructureRef: v1alpha1.ContractVersionedObjectReference{APIGroup: infrav1.GroupVersion.Group, Kind: "SimMachine", Name: name},
			Version:           kubeletVersion,
		},
	}
	for _, obj := range []client.Object{sim, m} {
		if err := env.Client.Create(ctx, obj); err != nil {
			fx.t.Fatalf("cannot create %T %s: %v", obj, name, err)
		}
	}
}

// selector is the --machine-selector of the fixture's managers.
func (fx *fixture) selector() string { return caseLabel + "=" + fx.name }

// list returns the fixture's Machines by name, read from the API server.
func (fx *fixture) list(ctx context.Context) (map[string]*v1alpha1.Machine, error) {
	list := &v1alpha1.MachineList{}
	if err := env.Client.List(ctx, list, client.InNamespace(fx.name), client.MatchingLabels{caseLabel: fx.name}); err != nil {
		return nil, err
	}
	out := map[string]*v1alpha1.Machine{}
	for i := range list.Items {
		out[list.Items[i].Name] = &list.Items[i]
	}
	return out, nil
}

// waitStates waits until every Machine of want shows what its inputs call for (see check).
func (fx *fixture) waitStates(timeout time.Duration, want map[string]inputState) {
	fx.t.Helper()
	harness.Wait(fx.t, timeout, "every Machine to show its inputs", func(ctx context.Context) (bool, string) {
		ms, err := fx.list(ctx)
		if err != nil {
			return false, err.Error()
		}
		var wrong []string
		for _, name := range sortedKeys(want) {
			m, ok := ms[name]
			if !ok {
				wrong = append(wrong, name+": missing")
				continue
			}
			if why := check(m, want[name]); why != "" {
				wrong = append(wrong, name+": "+why)
			}
		}
		return len(wrong) == 0, fmt.Sprintf("%d of %d not there yet, e.g. %s", len(wrong), len(want), strings.Join(wrong[:min(len(wrong), 3)], "; "))
	})
}

// all returns the same state for every Machine of the fixture.
func (fx *fixture) all(s inputState) map[string]inputState {
	out := map[string]inputState{}
	for _, n := range fx.names {
		out[n] = s
	}
	return out
}

// retryFor calls f until it succeeds or a minute has passed (the API server may be coming back).
func retryFor(ctx context.Context, what string, f func(ctx context.Context) error) error {
	var last error
	err := harness.Poll(ctx, time.Minute, func(ctx context.Context) (bool, string) {
		last = f(ctx)
		return last == nil, fmt.Sprint(last)
	})
	if err != nil {
		return fmt.Errorf("cannot %s: %w", what, err)
	}
	return nil
}

// setNotReady sets (or removes) kwok's NotReady label on Node name: kwok then reports the Node
// Ready=False (or Ready again) about a second later.
func setNotReady(ctx context.Context, name string, notReady bool) error {
	value := `"true"`
	if !notReady {
		value = "null"
	}
	return mergePatch(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}},
		`{"metadata":{"labels":{"`+kwok.NotReadyLabel+`":`+value+`}}}`)
}

// setCordoned cordons (or uncordons) Node name.
func setCordoned(ctx context.Context, name string, cordoned bool) error {
	return mergePatch(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}},
		fmt.Sprintf(`{"spec":{"unschedulable":%t}}`, cordoned))
}

// setKubelet makes the simulated provider report kubelet version v on SimMachine ns/name's Node.
func setKubelet(ctx context.Context, ns, name, v string) error {
	return mergePatch(ctx, &infrav1.SimMachine{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}},
		`{"spec":{"kubeletVersion":"`+v+`"}}`)
}

// setWantedVersion sets Machine ns/name's spec.version.
func setWantedVersion(ctx context.Context, ns, name, v string) error {
	return mergePatch(ctx, &v1alpha1.Machine{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}},
		`{"spec":{"version":"`+v+`"}}`)
}

func mergePatch(ctx context.Context, obj client.Object, patch string) error {
	return env.Client.Patch(ctx, obj, client.RawPatch(types.MergePatchType, []byte(patch)))
}

// gone reports whether Machine ns/name no longer exists.
func gone(ctx context.Context, ns, name string) (bool, error) {
	err := env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, &v1alpha1.Machine{})
	if apierrors.IsNotFound(err) {
		return true, nil
	}
	return false, err
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
