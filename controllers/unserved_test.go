package controllers

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// countingMapper counts the RESTMapping calls that reach an apimachinery DefaultRESTMapper.
type countingMapper struct {
	*meta.DefaultRESTMapper
	calls int
}

func (c *countingMapper) RESTMapping(gk schema.GroupKind, versions ...string) (*meta.RESTMapping, error) {
	c.calls++
	return c.DefaultRESTMapper.RESTMapping(gk, versions...)
}

// TestRestMappingAsksAgainOncePerInterval: an unserved kind reaches the RESTMapper at most once
// per KindRetryInterval, however many Machines ask; once served it is mapped at the next ask.
func TestRestMappingAsksAgainOncePerInterval(t *testing.T) {
	gv := schema.GroupVersion{Group: "infrastructure.cluster.x-k8s.io", Version: "v1beta2"}
	gk := schema.GroupKind{Group: gv.Group, Kind: "LateMachine"}
	mapper := &countingMapper{DefaultRESTMapper: meta.NewDefaultRESTMapper([]schema.GroupVersion{gv})}
	r := &MachineReconciler{RESTMapper: mapper, KindRetryInterval: time.Minute}

	for i := range 5 { // five Machines within the interval
		if _, err := r.restMapping(gk, t0.Add(time.Duration(i)*time.Second)); !meta.IsNoMatchError(err) {
			t.Fatalf("restMapping() error = %v, want a no-match error", err)
		}
	}
	if mapper.calls != 1 {
		t.Fatalf("RESTMapper asked %d times within the interval, want 1", mapper.calls)
	}

	mapper.Add(gv.WithKind(gk.Kind), meta.RESTScopeNamespace) // the CRD is installed
	if _, err := r.restMapping(gk, t0.Add(30*time.Second)); !meta.IsNoMatchError(err) {
		t.Fatalf("restMapping() inside the interval error = %v, want the remembered no-match", err)
	}
	m, err := r.restMapping(gk, t0.Add(time.Minute))
	if err != nil || m.GroupVersionKind != gv.WithKind(gk.Kind) {
		t.Fatalf("restMapping() after the interval = %v, %v; want the new kind", m, err)
	}
	if _, err := r.restMapping(gk, t0.Add(time.Minute+time.Second)); err != nil || mapper.calls != 3 {
		t.Fatalf("restMapping() of a served kind: error %v after %d calls, want nil after 3", err, mapper.calls)
	}
}

// TestKindRetryDeadline: a reference to an unserved, forbidden or unreadable kind requeues after
// the interval, or at an earlier health-check deadline; a contract violation does not (a change
// to the object is watched).
func TestKindRetryDeadline(t *testing.T) {
	r := &MachineReconciler{KindRetryInterval: time.Minute}
	notServed := refState{Unreadable: "no kind", Problem: refKindNotServed}
	forbidden := refState{Unreadable: "forbidden", Problem: refForbidden}
	timedOut := refState{Unreadable: "cache timed out", Problem: refUnreadable}
	violation := refState{Exists: true, Unreadable: "status.ready: must be a boolean", Problem: refContractViolation}
	lagging := notInDiscovery(refState{Kind: "UpMachine", Name: "up-2"}, "infrastructure.cluster.x-k8s.io", "v1beta2", 2*time.Second, time.Minute)
	lagging8 := notInDiscovery(refState{Kind: "UpMachine", Name: "up-2"}, "infrastructure.cluster.x-k8s.io", "v1beta2", 8*time.Second, time.Minute)
	laggingLong := notInDiscovery(refState{Kind: "UpMachine", Name: "up-2"}, "infrastructure.cluster.x-k8s.io", "v1beta2", time.Hour, time.Minute)
	// Read at the version read before while discovery does not list the new one yet.
	readBefore := provisioned()
	readBefore.RetryAfter = 4 * time.Second
	readBeforeLong := provisioned()
	readBeforeLong.RetryAfter = time.Hour
	violationBefore := violation
	violationBefore.RetryAfter = 2 * time.Second
	missingBefore := refState{Kind: "UpMachine", Name: "up-2", RetryAfter: 8 * time.Second}
	cases := []struct {
		name string
		in   statusInputs
		next time.Time
		want time.Time
	}{
		{"served", statusInputs{Infra: provisioned()}, time.Time{}, time.Time{}},
		{"served, health-check deadline kept", statusInputs{Infra: provisioned()}, at(300), at(300)},
		{"a contract violation is not retried", statusInputs{Infra: violation}, time.Time{}, time.Time{}},
		{"infrastructure kind forbidden", statusInputs{Infra: forbidden}, time.Time{}, at(60)},
		{"bootstrap kind forbidden", statusInputs{Infra: provisioned(), Bootstrap: &forbidden}, time.Time{}, at(60)},
		{"cache timed out", statusInputs{Infra: timedOut}, at(300), at(60)},
		{"infrastructure kind not served", statusInputs{Infra: notServed}, time.Time{}, at(60)},
		{"bootstrap kind not served", statusInputs{Infra: provisioned(), Bootstrap: &notServed}, at(300), at(60)},
		{"an earlier deadline wins", statusInputs{Infra: notServed}, at(10), at(10)},
		{"infrastructure version not in discovery yet", statusInputs{Infra: lagging}, time.Time{}, at(2)},
		{"bootstrap version not in discovery yet", statusInputs{Infra: provisioned(), Bootstrap: &lagging8}, at(300), at(8)},
		{"not in discovery, infrastructure kind forbidden", statusInputs{Infra: forbidden, Bootstrap: &lagging}, time.Time{}, at(2)},
		{"not in discovery, an earlier deadline wins", statusInputs{Infra: lagging8}, at(5), at(5)},
		{"not in discovery: never later than the interval", statusInputs{Infra: laggingLong}, time.Time{}, at(60)},
		{"read at the version read before: discovery asked again", statusInputs{Infra: readBefore}, time.Time{}, at(4)},
		{"bootstrap read at the version read before", statusInputs{Infra: provisioned(), Bootstrap: &readBefore}, at(300), at(4)},
		{"read at the version read before, an earlier deadline wins", statusInputs{Infra: readBefore}, at(3), at(3)},
		{"read at the version read before: never later than the interval", statusInputs{Infra: readBeforeLong}, time.Time{}, at(60)},
		{"a contract violation read at the version read before", statusInputs{Infra: violationBefore}, time.Time{}, at(2)},
		{"not found at the version read before", statusInputs{Infra: missingBefore}, time.Time{}, at(8)},
	}
	for _, tc := range cases {
		if got := r.kindRetryDeadline(tc.in, t0, tc.next); !got.Equal(tc.want) {
			t.Errorf("%s: kindRetryDeadline() = %v, want %v", tc.name, got, tc.want)
		}
	}
	if got := (&MachineReconciler{}).kindRetryDeadline(statusInputs{Infra: notServed}, t0, time.Time{}); !got.Equal(t0.Add(DefaultKindRetryInterval)) {
		t.Errorf("zero KindRetryInterval: deadline %v, want the default", got)
	}
}

// TestDiscoveryLagBackoff: a version missing from discovery is looked at again after 2 s, then
// after as long as it has been missing (the waits double), never after more than the interval;
// found again, it starts over; a clock that went back gives the shortest wait.
func TestDiscoveryLagBackoff(t *testing.T) {
	v2 := schema.GroupVersionKind{Group: "infrastructure.cluster.x-k8s.io", Version: "v1beta2", Kind: "UpMachine"}
	other := v2.GroupKind().WithVersion("v1beta3")
	var d discoveryLag
	type ask struct {
		gvk  schema.GroupVersionKind
		at   int // seconds after t0
		want time.Duration
	}
	steps := []ask{
		{v2, 0, 2 * time.Second},
		{v2, 1, 2 * time.Second},
		{v2, 2, 2 * time.Second},
		{v2, 4, 4 * time.Second},
		{v2, 8, 8 * time.Second},
		{other, 8, 2 * time.Second}, // each version has its own backoff
		{v2, 16, 16 * time.Second},
		{v2, 32, 32 * time.Second},
		{v2, 64, time.Minute},
		{v2, 3600, time.Minute},
		{v2, -10, 2 * time.Second}, // the clock went back
	}
	var got []time.Duration
	var want []time.Duration
	for _, s := range steps {
		got = append(got, d.retryAfter(s.gvk, at(s.at), time.Minute))
		want = append(want, s.want)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("retryAfter (-want +got):\n%s", diff)
	}
	d.found(v2)
	if got := d.retryAfter(v2, at(4000), time.Minute); got != 2*time.Second {
		t.Errorf("after found: retryAfter = %v, want 2s", got)
	}
	if got := (&discoveryLag{}).retryAfter(v2, t0, time.Second); got != time.Second {
		t.Errorf("an interval shorter than DiscoveryRetryInterval: retryAfter = %v, want 1s", got)
	}
}

// TestNotInDiscoveryState: a version discovery does not list yet is KindNotServed, retried after
// the given wait, with a message that names the backoff's bounds (not its current step, so that
// it stays the same while the backoff grows).
func TestNotInDiscoveryState(t *testing.T) {
	st := refState{Kind: "UpMachine", Name: "up-2"}
	want := refState{
		Kind: "UpMachine", Name: "up-2", Problem: refKindNotServed, RetryAfter: 8 * time.Second,
		Unreadable: "cannot read UpMachine up-2: version v1beta2 of UpMachine (group infrastructure.cluster.x-k8s.io) is not in discovery yet; checking again after 2s, doubling up to every 1m0s",
	}
	if diff := cmp.Diff(want, notInDiscovery(st, "infrastructure.cluster.x-k8s.io", "v1beta2", 8*time.Second, time.Minute), cmp.AllowUnexported(refState{})); diff != "" {
		t.Errorf("notInDiscovery (-want +got):\n%s", diff)
	}
	if got := notInDiscovery(st, "g", "v1", 4*time.Second, time.Minute).Unreadable; got != notInDiscovery(st, "g", "v1", 32*time.Second, time.Minute).Unreadable {
		t.Errorf("the message changes with the backoff step: %q", got)
	}
}

// TestDiscoveryLagRestartsWhenTheVersionChanges: a version still missing from discovery when its
// CRD is deleted (or the version read changes) is waited for from DiscoveryRetryInterval again
// once served again, not from where the old wait had grown to.
func TestDiscoveryLagRestartsWhenTheVersionChanges(t *testing.T) {
	gk := schema.GroupKind{Group: "infrastructure.cluster.x-k8s.io", Kind: "UpMachine"}
	v2, v3 := gk.WithVersion("v1beta2"), gk.WithVersion("v1beta3")
	steps := []struct {
		name    string
		version string // chosen before the ask ("-": no change)
		gvk     schema.GroupVersionKind
		at      int
		want    time.Duration
	}{
		{"v1beta2 served, missing from discovery", "v1beta2", v2, 0, 2 * time.Second},
		{"still missing 100 s later", "-", v2, 100, time.Minute},
		{"the CRD deleted, then re-created serving v1beta2", "", v2, 3600, 2 * time.Second},
		{"still missing", "-", v2, 3700, time.Minute},
		{"v1beta3 read instead, missing", "v1beta3", v3, 3800, 2 * time.Second},
		{"back to v1beta2, missing", "v1beta2", v2, 3900, 2 * time.Second},
	}
	r := &MachineReconciler{}
	var got, want []time.Duration
	for _, s := range steps {
		if s.version == "" {
			r.chooseVersion(context.Background(), gk, "", true)
			r.chooseVersion(context.Background(), gk, "v1beta2", true)
		} else if s.version != "-" {
			r.chooseVersion(context.Background(), gk, s.version, true)
		}
		got = append(got, r.discoveryLag.retryAfter(s.gvk, at(s.at), time.Minute))
		want = append(want, s.want)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("retryAfter (-want +got):\n%s", d)
	}
}

// TestInDiscoveryAsksOncePerStep: a version a CRD serves and discovery does not list reaches the
// RESTMapper once per step of its wait (2 s, 2 s, 4 s, …), however many Machines are read in
// between, which are told the rest of the step; a CRD change asks at the next read; once listed
// it is mapped.
func TestInDiscoveryAsksOncePerStep(t *testing.T) {
	gv := schema.GroupVersion{Group: "infrastructure.cluster.x-k8s.io", Version: "v1beta2"}
	gvk := gv.WithKind("UpMachine")
	mapper := &countingMapper{DefaultRESTMapper: meta.NewDefaultRESTMapper([]schema.GroupVersion{gv})}
	r := &MachineReconciler{RESTMapper: mapper, KindRetryInterval: time.Minute}
	type ask struct {
		Ms    int // milliseconds after t0
		Wait  time.Duration
		Calls int // RESTMapper calls so far
	}
	asks := []ask{
		{0, 2 * time.Second, 1},
		{500, 1500 * time.Millisecond, 1},
		{1999, time.Millisecond, 1},
		{2000, 2 * time.Second, 2},
		{3000, time.Second, 2},
		{4000, 4 * time.Second, 3},
		{7000, time.Second, 3},
	}
	var got, want []ask
	for _, a := range asks {
		wait, ok := r.inDiscovery(gvk, t0.Add(time.Duration(a.Ms)*time.Millisecond))
		if ok {
			t.Fatalf("inDiscovery at %d ms = true, want false", a.Ms)
		}
		got = append(got, ask{a.Ms, wait, mapper.calls})
		want = append(want, a)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("waits and RESTMapper calls (-want +got):\n%s", d)
	}
	r.discoveryLag.askNow(gvk.GroupKind()) // the CRD changed
	if wait, ok := r.inDiscovery(gvk, at(7)); ok || wait != 7*time.Second || mapper.calls != 4 {
		t.Errorf("after a CRD change: inDiscovery = %v, %v after %d calls; want 7s, false after 4", wait, ok, mapper.calls)
	}
	mapper.Add(gvk, meta.RESTScopeNamespace) // discovery lists it
	if _, ok := r.inDiscovery(gvk, at(10)); ok || mapper.calls != 4 {
		t.Errorf("inside the step: inDiscovery = %v after %d calls; want false after 4", ok, mapper.calls)
	}
	if _, ok := r.inDiscovery(gvk, at(14)); !ok || mapper.calls != 5 {
		t.Errorf("after the step: inDiscovery = %v after %d calls; want true after 5", ok, mapper.calls)
	}
	if _, ok := r.inDiscovery(gvk, at(14)); !ok || mapper.calls != 6 {
		t.Errorf("listed: inDiscovery = %v after %d calls; want true after 6 (the mapper answers from its own cache)", ok, mapper.calls)
	}
}
