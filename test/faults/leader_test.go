//go:build faults

package faults

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/machinestatus/machinestatus/test/harness"
)

// The manager's leader election timings: controller-runtime's defaults, which it does not
// change.
const (
	leaseDuration = 15 * time.Second
	renewDeadline = 10 * time.Second
	retryPeriod   = 2 * time.Second
)

// leaseNamespace holds the leader election Lease (the namespace config/rbac lets the manager
// keep it in).
const leaseNamespace = "machinestatus-system"

// TestLeaderElectionTakeover runs two managers with --leader-elect on one Lease, each with its
// own --field-manager so that the API server's audit log attributes every status write. It
// kills the leader with SIGKILL and measures how long the standby takes to hold the Lease.
// Proof that no Machine is ever written by both at once: the standby writes nothing while the
// leader lives (though inputs change then), and every write of the new leader is received
// after the old leader died.
func TestLeaderElectionTakeover(t *testing.T) {
	fig := figures.section(t, "leader")
	ctx := t.Context()
	const n = 8
	fx := newFixture(t, "leader", n)
	ensureNamespace(t, leaseNamespace)
	const leaseName = "faults-leader"
	args := func(fieldManager string) []string {
		return []string{"--leader-elect", "--leader-election-namespace=" + leaseNamespace,
			"--leader-election-id=" + leaseName, "--field-manager=" + fieldManager}
	}
	a := fx.startManager("", args("faults-a")...)
	leaderA := waitLeaseHolder(t, leaseName, "")
	b := fx.startManager("", args("faults-b")...)
	fx.waitStates(2*time.Minute, fx.all(healthy))
	// B is up (its metrics answer) and is not the leader.
	harness.Wait(fx.t, time.Minute, "the standby's metrics", func(ctx context.Context) (bool, string) {
		_, err := b.reconciles(ctx)
		return err == nil, fmt.Sprint(err)
	})

	// Inputs change while both run: only the leader may write.
	states := fx.all(healthy)
	for i, name := range fx.names {
		if i%2 == 0 {
			states[name] = notReady
			if err := setNotReady(ctx, name, true); err != nil {
				t.Fatal(err)
			}
		}
	}
	fx.waitStates(2*time.Minute, states)
	if h := leaseHolder(t, leaseName); h != leaderA {
		t.Fatalf("the Lease moved from %s to %s while the leader ran", leaderA, h)
	}
	requireAlive(t, b)

	// Kill the leader; change inputs while nobody leads.
	a.kill()
	killed := time.Now()
	for i, name := range fx.names {
		if i%2 == 1 {
			states[name] = cordoned
			if err := setCordoned(ctx, name, true); err != nil {
				t.Fatal(err)
			}
		}
	}
	leaderB := waitLeaseHolder(t, leaseName, leaderA)
	takeover := time.Since(killed)
	fx.waitStates(2*time.Minute, states)
	requireAlive(t, b)

	writes, err := readStatusWrites(fx.name)
	if err != nil {
		t.Fatal(err)
	}
	var byA, byB []time.Time
	for _, w := range writes {
		switch w.FieldManager {
		case "faults-a":
			byA = append(byA, w.Received)
		case "faults-b":
			byB = append(byB, w.Received)
		default:
			t.Errorf("a status write of %s by field manager %q, neither manager", w.Name, w.FieldManager)
		}
	}
	if len(byA) == 0 || len(byB) == 0 {
		t.Fatalf("%d writes by the first leader and %d by the second: both must have written", len(byA), len(byB))
	}
	lastA, firstB := slices.MaxFunc(byA, time.Time.Compare), slices.MinFunc(byB, time.Time.Compare)
	if !firstB.After(killed) {
		t.Errorf("the standby wrote at %s, before the leader was killed at %s", firstB.Format(time.StampMicro), killed.Format(time.StampMicro))
	}
	if !lastA.Before(firstB) {
		t.Errorf("the writes overlap: the first leader's last at %s, the second's first at %s", lastA.Format(time.StampMicro), firstB.Format(time.StampMicro))
	}
	if limit := leaseDuration + retryPeriod + 13*time.Second; takeover > limit {
		t.Errorf("the standby took %s to take over, more than the lease duration + retry period + 13 s of slack (%s)", takeover, limit)
	}

	fig("Machines", "%d", n)
	fig("lease duration / renew deadline / retry period", "%.0f s / %.0f s / %.0f s (controller-runtime's defaults)", leaseDuration.Seconds(), renewDeadline.Seconds(), retryPeriod.Seconds())
	fig("leader killed (SIGKILL) → standby holds the Lease", "%.1f s (lease duration + retry period = %.0f s)", takeover.Seconds(), (leaseDuration + retryPeriod).Seconds())
	fig("leader killed → standby's first status write", "%.1f s", firstB.Sub(killed).Seconds())
	fig("status writes by the first leader / by the standby before the kill", "%d / 0", len(byA))
	fig("status writes by the new leader (all after the kill)", "%d", len(byB))
	fig("time between the last write of one and the first of the other", "%.1f s (overlap: none)", firstB.Sub(lastA).Seconds())
	t.Logf("Lease holders: %s, then %s", leaderA, leaderB)
}

// ensureNamespace creates namespace ns unless it exists.
func ensureNamespace(t *testing.T, ns string) {
	t.Helper()
	err := env.Client.Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
}

// leaseHolder returns the holder of Lease name in leaseNamespace ("" when none or no Lease).
func leaseHolder(t *testing.T, name string) string {
	t.Helper()
	l := &coordinationv1.Lease{}
	err := env.Client.Get(t.Context(), client.ObjectKey{Namespace: leaseNamespace, Name: name}, l)
	if apierrors.IsNotFound(err) {
		return ""
	}
	if err != nil {
		t.Fatal(err)
	}
	if l.Spec.HolderIdentity == nil {
		return ""
	}
	return *l.Spec.HolderIdentity
}

// waitLeaseHolder waits until a holder other than "" and not holds Lease name, and returns it.
func waitLeaseHolder(t *testing.T, name, not string) string {
	t.Helper()
	var h string
	harness.Wait(t, 2*time.Minute, "a new holder of Lease "+leaseNamespace+"/"+name, func(context.Context) (bool, string) {
		h = leaseHolder(t, name)
		return h != "" && h != not, fmt.Sprintf("holder %q (the last was %q)", h, not)
	})
	return h
}
