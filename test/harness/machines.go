package harness

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
)

// MachineTimeout bounds the waits for a Machine's status (WaitPhase): generous, the machine may
// be shared and slow.
const MachineTimeout = time.Minute

// Namespace creates a namespace with a generated name for one test and returns its name.
func (e *Env) Namespace(t testing.TB) string {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "test-"}}
	if err := e.Client.Create(context.Background(), ns); err != nil {
		t.Fatal(err)
	}
	return ns.Name
}

// Create creates obj, failing t on error.
func (e *Env) Create(t testing.TB, obj client.Object) {
	t.Helper()
	if err := e.Client.Create(context.Background(), obj); err != nil {
		t.Fatalf("create %T %s: %v", obj, obj.GetName(), err)
	}
}

// NewMachine returns (does not create) Machine ns/name whose infrastructure is FakeMachine
// ns/name.
func NewMachine(ns, name string) *v1alpha1.Machine {
	return &v1alpha1.Machine{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: v1alpha1.MachineSpec{
			InfrastructureRef: v1alpha1.ContractVersionedObjectReference{APIGroup: InfraGroup, Kind: InfraKind, Name: name},
		},
	}
}

// GetMachine reads Machine ns/name.
func (e *Env) GetMachine(t testing.TB, ns, name string) *v1alpha1.Machine {
	t.Helper()
	m := &v1alpha1.Machine{}
	if err := e.Client.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, m); err != nil {
		t.Fatal(err)
	}
	return m
}

// UpdateMachine reads, mutates and updates Machine ns/name, retrying on conflicts with the
// controller's status writes.
func (e *Env) UpdateMachine(t testing.TB, ns, name string, mutate func(*v1alpha1.Machine)) {
	t.Helper()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		m := e.GetMachine(t, ns, name)
		mutate(m)
		return e.Client.Update(context.Background(), m)
	})
	if err != nil {
		t.Fatalf("update Machine: %v", err)
	}
}

// WaitPhase waits (MachineTimeout) until Machine ns/name's phase is want and returns it.
func (e *Env) WaitPhase(t testing.TB, ns, name string, want v1alpha1.MachinePhase) *v1alpha1.Machine {
	t.Helper()
	var m *v1alpha1.Machine
	Wait(t, MachineTimeout, "phase "+string(want), func(ctx context.Context) (bool, string) {
		m = &v1alpha1.Machine{}
		if err := e.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, m); err != nil {
			return false, err.Error()
		}
		return m.Status.Phase == want, Describe(m)
	})
	return m
}

// Describe is a one-line summary of a Machine's status for failure messages.
func Describe(m *v1alpha1.Machine) string {
	s := "phase=" + string(m.Status.Phase)
	if op := m.Status.LastOperation; op != nil {
		s += " lastOperation=" + string(op.Type) + "/" + string(op.State)
	}
	for _, c := range m.Status.Conditions {
		s += " " + c.Type + "=" + string(c.Status) + "(" + c.Reason + ")"
	}
	return s
}
