package controllers

import (
	"testing"
	"time"

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
