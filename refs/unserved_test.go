package refs

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
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

// TestRESTMappingOncePerStep: a kind the RESTMapper does not map (version "": its preferred
// version) is asked about again at most once per kind retry interval, and a version a CRD
// serves at most once per discovery step, each with its own record, however many Machines ask;
// those asking in between are told the rest of the step; once mapped, it is mapped at the next
// ask; an answer from a clock that went back is not trusted.
func TestRESTMappingOncePerStep(t *testing.T) {
	gv := schema.GroupVersion{Group: "infrastructure.cluster.x-k8s.io", Version: "v1beta2"}
	gk := gv.WithKind("UpMachine").GroupKind()
	mapper := &countingMapper{DefaultRESTMapper: meta.NewDefaultRESTMapper([]schema.GroupVersion{gv})}
	r := &Reader{RESTMapper: mapper, RetryInterval: time.Minute}
	type ask struct {
		Version string
		Ms      int    // milliseconds after t0
		Add     string // the version discovery lists from this ask on
		Mapped  string // the version mapped; "" a no-match
		Wait    time.Duration
		Calls   int // RESTMapper calls so far
	}
	asks := []ask{
		{"", 0, "", "", time.Minute, 1},
		{"", 30_000, "", "", 30 * time.Second, 1},
		{"v1beta2", 0, "", "", 2 * time.Second, 2},
		{"v1beta2", 500, "", "", 1500 * time.Millisecond, 2},
		{"v1beta2", 1999, "", "", time.Millisecond, 2},
		{"v1beta2", 2000, "", "", 2 * time.Second, 3},
		{"v1beta2", 3000, "v1beta2", "", time.Second, 3},
		{"v1beta2", 4000, "", "v1beta2", 0, 4},
		{"v1beta2", 4100, "", "v1beta2", 0, 5},
		{"", 59_999, "", "", time.Millisecond, 5},
		{"", 60_000, "", "v1beta2", 0, 6},
		{"v1beta3", 10_000, "", "", 2 * time.Second, 7},
		{"v1beta3", 9000, "", "", 2 * time.Second, 8}, // the clock went back
	}
	var got []ask
	for _, a := range asks {
		if a.Add != "" {
			mapper.Add(gk.WithVersion(a.Add), meta.RESTScopeNamespace)
		}
		interval := r.discoveryStep()
		if a.Version == "" {
			interval = r.kindRetryInterval()
		}
		m, wait, err := r.restMapping(gk, a.Version, t0.Add(time.Duration(a.Ms)*time.Millisecond), interval)
		if (m == nil) != meta.IsNoMatchError(err) {
			t.Fatalf("restMapping(%q) at %d ms = %v, %v", a.Version, a.Ms, m, err)
		}
		g := ask{Version: a.Version, Ms: a.Ms, Add: a.Add, Wait: wait, Calls: mapper.calls}
		if m != nil {
			g.Mapped = m.GroupVersionKind.Version
		}
		got = append(got, g)
	}
	if d := cmp.Diff(asks, got); d != "" {
		t.Errorf("answers and RESTMapper calls (-want +got):\n%s", d)
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
	lagging := notInDiscovery(status.Ref{Kind: "UpMachine", Name: "up-2"}, "infrastructure.cluster.x-k8s.io", "v1beta2", 2*time.Second, 2*time.Second)
	lagging8 := notInDiscovery(status.Ref{Kind: "UpMachine", Name: "up-2"}, "infrastructure.cluster.x-k8s.io", "v1beta2", 8*time.Second, 2*time.Second)
	laggingLong := notInDiscovery(status.Ref{Kind: "UpMachine", Name: "up-2"}, "infrastructure.cluster.x-k8s.io", "v1beta2", time.Hour, 2*time.Second)
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

// TestNotInDiscoveryState: a version discovery does not list yet is KindNotServed, retried after
// the given wait, with a message that names the discovery step (not what is left of it, so that
// it stays the same from one read to the next).
func TestNotInDiscoveryState(t *testing.T) {
	st := status.Ref{Kind: "UpMachine", Name: "up-2"}
	want := status.Ref{
		Kind: "UpMachine", Name: "up-2", Problem: status.ProblemKindNotServed, RetryAfter: 8 * time.Second,
		Unreadable: "cannot read UpMachine up-2: version v1beta2 of UpMachine (group infrastructure.cluster.x-k8s.io) is not in discovery yet; checking again every 2s",
	}
	if diff := cmp.Diff(want, notInDiscovery(st, "infrastructure.cluster.x-k8s.io", "v1beta2", 8*time.Second, 2*time.Second), cmp.AllowUnexported(status.Ref{})); diff != "" {
		t.Errorf("notInDiscovery (-want +got):\n%s", diff)
	}
	if got := notInDiscovery(st, "g", "v1", 2*time.Second, 2*time.Second).Unreadable; got != notInDiscovery(st, "g", "v1", time.Millisecond, 2*time.Second).Unreadable {
		t.Errorf("the message changes with the time left: %q", got)
	}
}
