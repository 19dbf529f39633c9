package refs

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/machinestatus/machinestatus/status"
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
	r := &Reader{RESTMapper: mapper, RetryInterval: time.Minute}

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
	r := &Reader{RetryInterval: time.Minute}
	notServed := status.Ref{Unreadable: "no kind", Problem: status.ProblemKindNotServed}
	forbidden := status.Ref{Unreadable: "forbidden", Problem: status.ProblemForbidden}
	timedOut := status.Ref{Unreadable: "cache timed out", Problem: status.ProblemUnreadable}
	violation := status.Ref{Exists: true, Unreadable: "status.ready: must be a boolean", Problem: status.ProblemContractViolation}
	lagging := notInDiscovery(status.Ref{Kind: "UpMachine", Name: "up-2"}, "infrastructure.cluster.x-k8s.io", "v1beta2", 2*time.Second, time.Minute)
	lagging8 := notInDiscovery(status.Ref{Kind: "UpMachine", Name: "up-2"}, "infrastructure.cluster.x-k8s.io", "v1beta2", 8*time.Second, time.Minute)
	laggingLong := notInDiscovery(status.Ref{Kind: "UpMachine", Name: "up-2"}, "infrastructure.cluster.x-k8s.io", "v1beta2", time.Hour, time.Minute)
	// Read at the version read before while discovery does not list the new one yet.
	readBefore := provisioned()
	readBefore.RetryAfter = 4 * time.Second
	readBeforeLong := provisioned()
	readBeforeLong.RetryAfter = time.Hour
	violationBefore := violation
	violationBefore.RetryAfter = 2 * time.Second
	missingBefore := status.Ref{Kind: "UpMachine", Name: "up-2", RetryAfter: 8 * time.Second}
	cases := []struct {
		name string
		in   status.Inputs
		next time.Time
		want time.Time
	}{
		{"served", status.Inputs{Infra: provisioned()}, time.Time{}, time.Time{}},
		{"served, health-check deadline kept", status.Inputs{Infra: provisioned()}, at(300), at(300)},
		{"a contract violation is not retried", status.Inputs{Infra: violation}, time.Time{}, time.Time{}},
		{"infrastructure kind forbidden", status.Inputs{Infra: forbidden}, time.Time{}, at(60)},
		{"bootstrap kind forbidden", status.Inputs{Infra: provisioned(), Bootstrap: &forbidden}, time.Time{}, at(60)},
		{"cache timed out", status.Inputs{Infra: timedOut}, at(300), at(60)},
		{"infrastructure kind not served", status.Inputs{Infra: notServed}, time.Time{}, at(60)},
		{"bootstrap kind not served", status.Inputs{Infra: provisioned(), Bootstrap: &notServed}, at(300), at(60)},
		{"an earlier deadline wins", status.Inputs{Infra: notServed}, at(10), at(10)},
		{"infrastructure version not in discovery yet", status.Inputs{Infra: lagging}, time.Time{}, at(2)},
		{"bootstrap version not in discovery yet", status.Inputs{Infra: provisioned(), Bootstrap: &lagging8}, at(300), at(8)},
		{"not in discovery, infrastructure kind forbidden", status.Inputs{Infra: forbidden, Bootstrap: &lagging}, time.Time{}, at(2)},
		{"not in discovery, an earlier deadline wins", status.Inputs{Infra: lagging8}, at(5), at(5)},
		{"not in discovery: never later than the interval", status.Inputs{Infra: laggingLong}, time.Time{}, at(60)},
		{"read at the version read before: discovery asked again", status.Inputs{Infra: readBefore}, time.Time{}, at(4)},
		{"bootstrap read at the version read before", status.Inputs{Infra: provisioned(), Bootstrap: &readBefore}, at(300), at(4)},
		{"read at the version read before, an earlier deadline wins", status.Inputs{Infra: readBefore}, at(3), at(3)},
		{"read at the version read before: never later than the interval", status.Inputs{Infra: readBeforeLong}, time.Time{}, at(60)},
		{"a contract violation read at the version read before", status.Inputs{Infra: violationBefore}, time.Time{}, at(2)},
		{"not found at the version read before", status.Inputs{Infra: missingBefore}, time.Time{}, at(8)},
	}
	for _, tc := range cases {
		refs := []status.Ref{tc.in.Infra}
		if tc.in.Bootstrap != nil {
			refs = append(refs, *tc.in.Bootstrap)
		}
		if got := r.RetryDeadline(t0, tc.next, refs...); !got.Equal(tc.want) {
			t.Errorf("%s: RetryDeadline() = %v, want %v", tc.name, got, tc.want)
		}
	}
	if got := (&Reader{}).RetryDeadline(t0, time.Time{}, notServed); !got.Equal(t0.Add(DefaultKindRetryInterval)) {
		t.Errorf("zero RetryInterval: deadline %v, want the default", got)
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
	st := status.Ref{Kind: "UpMachine", Name: "up-2"}
	want := status.Ref{
		Kind: "UpMachine", Name: "up-2", Problem: status.ProblemKindNotServed, RetryAfter: 8 * time.Second,
		Unreadable: "cannot read UpMachine up-2: version v1beta2 of UpMachine (group infrastructure.cluster.x-k8s.io) is not in discovery yet; checking again after 2s, doubling up to every 1m0s",
	}
	if diff := cmp.Diff(want, notInDiscovery(st, "infrastructure.cluster.x-k8s.io", "v1beta2", 8*time.Second, time.Minute), cmp.AllowUnexported(status.Ref{})); diff != "" {
		t.Errorf("notInDiscovery (-want +got):\n%s", diff)
	}
	if got := notInDiscovery(st, "g", "v1", 4*time.Second, time.Minute).Unreadable; got != notInDiscovery(st, "g", "v1", 32*time.Second, time.Minute).Unreadable {
		t.Errorf("the message changes with the backoff step: %q", got)
	}
}

// TestDiscoveryLagRestartsWhenTheVersionChanges: the wait for a version missing from discovery
// (followVersion, as reads and CRD events apply it) starts over at DiscoveryRetryInterval when the
// version read changes or the CRD is deleted, and when a version that was waited for and no
// longer is (its addition rolled back while the version before was read) is added again: it is
// not waited for from where the old wait had grown to. A CRD event that changes the version read
// asks discovery once: the reconciles it queues are told the rest of that step.
func TestDiscoveryLagRestartsWhenTheVersionChanges(t *testing.T) {
	ctx := context.Background()
	gk := schema.GroupKind{Group: "infrastructure.cluster.x-k8s.io", Kind: "UpMachine"}
	mapper := &countingMapper{DefaultRESTMapper: meta.NewDefaultRESTMapper(nil)}
	mapper.Add(gk.WithVersion("v1beta1"), meta.RESTScopeNamespace) // only v1beta1 is ever listed
	r := &Reader{RESTMapper: mapper, RetryInterval: time.Minute}
	served := func(v string, storage bool) crdVersion { return crdVersion{v, true, storage} }
	dropped := func(v string) crdVersion { return crdVersion{v, false, false} }
	type result struct {
		Read  versionRead
		Wait  time.Duration
		Calls int // RESTMapper calls in the step
	}
	waiting := func(v string) versionRead { return versionRead{Version: v, Waiting: v} }
	keeping := func(v, w string) versionRead { return versionRead{Version: v, Waiting: w} }
	steps := []struct {
		name   string
		crd    *apiextensionsv1.CustomResourceDefinition
		record bool // a reconcile (true) or a CRD event (false)
		at     int
		want   result
	}{
		{"v1beta2 served, missing from discovery", upCRD(nil, true, served("v1beta2", true)), true, 0,
			result{waiting("v1beta2"), 2 * time.Second, 1}},
		{"still missing 100 s later", upCRD(nil, true, served("v1beta2", true)), true, 100,
			result{waiting("v1beta2"), time.Minute, 1}},
		{"the CRD deleted", nil, false, 3600, result{versionRead{Why: "its CustomResourceDefinition was deleted"}, 0, 0}},
		{"re-created serving v1beta2", upCRD(nil, true, served("v1beta2", true)), true, 3600,
			result{waiting("v1beta2"), 2 * time.Second, 1}},
		{"still missing", upCRD(nil, true, served("v1beta2", true)), true, 3700,
			result{waiting("v1beta2"), time.Minute, 1}},
		{"v1beta3 read instead, missing", upCRD(nil, true, dropped("v1beta2"), served("v1beta3", true)), true, 3800,
			result{waiting("v1beta3"), 2 * time.Second, 1}},
		{"back to v1beta2, missing", upCRD(nil, true, served("v1beta2", true), dropped("v1beta3")), true, 3900,
			result{waiting("v1beta2"), 2 * time.Second, 1}},
		{"v1beta1 listed", upCRD(nil, true, served("v1beta1", true)), true, 4000,
			result{versionRead{Version: "v1beta1"}, 0, 1}},
		{"v1beta3 added beside v1beta1: v1beta1 kept", upCRD(nil, true, served("v1beta1", false), served("v1beta3", true)), true, 4100,
			result{keeping("v1beta1", "v1beta3"), 2 * time.Second, 2}},
		{"v1beta3 still missing 100 s later", upCRD(nil, true, served("v1beta1", false), served("v1beta3", true)), true, 4200,
			result{keeping("v1beta1", "v1beta3"), time.Minute, 2}},
		{"v1beta3 rolled back", upCRD(nil, true, served("v1beta1", true)), true, 4300,
			result{versionRead{Version: "v1beta1"}, 0, 1}},
		{"v1beta3 added again an hour later", upCRD(nil, true, served("v1beta1", false), served("v1beta3", true)), true, 7900,
			result{keeping("v1beta1", "v1beta3"), 2 * time.Second, 2}},
		{"the CRD event dropping v1beta1 100 s later", upCRD(nil, true, dropped("v1beta1"), served("v1beta3", true)), false, 8000,
			result{waiting("v1beta3"), 2 * time.Second, 1}},
		{"a reconcile it queued", upCRD(nil, true, dropped("v1beta1"), served("v1beta3", true)), true, 8000,
			result{waiting("v1beta3"), 2 * time.Second, 0}},
	}
	for _, s := range steps {
		if !s.record {
			r.discoveryLag.askNow(gk) // as machinesForCRD does
		}
		calls := mapper.calls
		read, wait := r.followVersion(ctx, gk, s.crd, s.record, at(s.at))
		if d := cmp.Diff(s.want, result{read, wait, mapper.calls - calls}); d != "" {
			t.Errorf("%s (-want +got):\n%s", s.name, d)
		}
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
	r := &Reader{RESTMapper: mapper, RetryInterval: time.Minute}
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
