package status

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utiljson "k8s.io/apimachinery/pkg/util/json"

	"github.com/machinestatus/machinestatus/aggregate"
	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/conditions"
)

// maxOwnMessage bounds every message the controller writes: at most a kind, a name and two
// foreign texts of maxForeignMessage bytes, or a Ready summary of three 512-byte lines.
const maxOwnMessage = 4096

// FuzzComputeStatus feeds the status computation random referenced objects and Nodes, the way
// Reconcile reads them: an infrastructure and a bootstrap object (any JSON object, decoded as an
// API client decodes it, with plausible contract fields laid over it by the bits of shape),
// each possibly missing, of a kind not served, or unreadable; a Node (bits of node: its Ready
// and pressure conditions, their times, kubelet version, unschedulable, …); and a Machine spec
// (more bits of shape) that the CRD accepts — inputs the CRD refuses are skipped, as the API
// server never stores them. Objects and the Node go through the cache transforms.
//
// Two reconciles run, at an earlier and a later time. After each, the invariants are:
//   - Compute returns no error (an error would retry forever) and never panics;
//   - every condition passes conditions.Validate; the messages the controller writes are at
//     most maxOwnMessage bytes;
//   - the status survives a JSON round trip unchanged; phase is set and lastOperation too;
//   - Summarize again changes nothing; Compute again from the same inputs at the same
//     time changes nothing (no write on a no-op reconcile); the next deadline is after now;
//   - reading an object stripped by the cache transform gives what reading the whole object
//     gives.
//
// The API server would store the final status: the generated CRD's OpenAPI schema, list-map keys
// and CEL rules (phase and lastOperation enums, description ≤ 1024, message ≤ 32768 bytes,
// providerID ≤ 512, …) accept the Machine. The whole sequence run twice gives identical statuses
// (deterministic), and so does it with every time another clock wrote (the Node's conditions,
// the referenced objects' conditions) skewed by up to a day either way: only the controller's
// clock times anything. The Node is the Machine's only when MachineNode says so (its providerID).
func FuzzComputeStatus(f *testing.F) {
	crdSchema := newMachineSchema(f)
	for _, s := range fuzzSeeds {
		f.Add(s.infra, s.boot, s.shape, s.text, s.node, s.times, s.kubelet)
	}
	f.Fuzz(func(t *testing.T, infraJSON, bootJSON []byte, shape uint64, text string, node uint64, times int64, kubelet string) {
		c := newFuzzCase(infraJSON, bootJSON, shape, text, node, times, kubelet)
		if errs := crdSchema.validate(c.machine); len(errs) > 0 {
			return // the API server would refuse this Machine
		}
		first, next1 := c.run(t, true)
		written := c.machine.DeepCopy()
		written.Status = first
		if errs := crdSchema.validate(written); len(errs) > 0 {
			t.Fatalf("the API server would refuse the status: %v", errs.ToAggregate())
		}
		second, next2 := c.run(t, false)
		if !reflect.DeepEqual(first, second) || !next1.Equal(next2) {
			t.Fatalf("not deterministic (-first +second):\n%s", cmp.Diff(first, second))
		}
		// Other clocks: the times the Node and the referenced objects wrote, skewed either way,
		// change nothing the controller derives (its timers count on its own clock).
		skew := time.Duration(int64(node>>40)%(48*3600)-24*3600) * time.Second
		skewed, next3 := c.skewed(skew).run(t, false)
		if diff := cmp.Diff(first, skewed, ignoreNodeTimes); diff != "" || !next1.Equal(next3) {
			t.Fatalf("other clocks skewed by %s change the status (-first +skewed):\n%s\nnext %s, %s", skew, diff, next1, next3)
		}
	})
}

// fuzzCase is one generated world.
type fuzzCase struct {
	machine     *v1alpha1.Machine
	infra, boot fuzzRef
	node        *corev1.Node
	before, now time.Time
}

// ignoreNodeTimes ignores the Node's own times the health check records for equality only.
var ignoreNodeTimes = cmpopts.IgnoreFields(v1alpha1.ObservedNodeCondition{}, "NodeLastTransitionTime")

// skewed returns c with every time another clock wrote moved by d: the Node's condition times
// and the referenced objects' condition lastTransitionTimes.
func (c *fuzzCase) skewed(d time.Duration) *fuzzCase {
	out := *c
	if c.node != nil {
		out.node = c.node.DeepCopy()
		for i := range out.node.Status.Conditions {
			nc := &out.node.Status.Conditions[i]
			for _, tm := range []*metav1.Time{&nc.LastTransitionTime, &nc.LastHeartbeatTime} {
				if !tm.IsZero() {
					*tm = metav1.NewTime(tm.Add(d))
				}
			}
		}
	}
	out.infra.obj, out.boot.obj = skewConditions(c.infra.obj, d), skewConditions(c.boot.obj, d)
	return &out
}

// skewConditions returns a copy of obj whose status.conditions and status.v1beta2.conditions
// lastTransitionTimes that are RFC 3339 times are moved by d.
func skewConditions(obj *unstructured.Unstructured, d time.Duration) *unstructured.Unstructured {
	out := obj.DeepCopy()
	for _, path := range [][]string{{"status", "conditions"}, {"status", "v1beta2", "conditions"}} {
		list, _, _ := unstructured.NestedFieldNoCopy(out.Object, path...)
		items, _ := list.([]any)
		for _, item := range items {
			c, _ := item.(map[string]any)
			s, _ := c["lastTransitionTime"].(string)
			if tm, err := time.Parse(time.RFC3339, s); err == nil {
				c["lastTransitionTime"] = tm.Add(d).UTC().Format(time.RFC3339)
			}
		}
	}
	return out
}

// fuzzRef is how a reference resolves: an object, or one of the problems readRef reports.
type fuzzRef struct {
	ref     v1alpha1.ContractVersionedObjectReference
	outcome int // 0 object, 1 missing, 2 kind not served, 3 unreadable, 4 forbidden
	obj     *unstructured.Unstructured
}

// run computes the status at c.before then at c.now, checking the invariants after each when
// check is true (checkStatus), and returns the final status and deadline.
func (c *fuzzCase) run(t *testing.T, check bool) (v1alpha1.MachineStatus, time.Time) {
	m := c.machine.DeepCopy()
	var next time.Time
	for _, now := range []time.Time{c.before, c.now} {
		in := c.inputs(t, m, now)
		var err error
		if next, err = Compute(m, in); err != nil {
			t.Fatalf("Compute() error = %v", err)
		}
		if check {
			checkStatus(t, m, in, next)
		}
	}
	return m.Status, next
}

// inputs builds the Inputs of m at now as observe does, through the cache transforms; the
// Node is m's only when MachineNode says so.
func (c *fuzzCase) inputs(t *testing.T, m *v1alpha1.Machine, now time.Time) Inputs {
	in := Inputs{Now: now, Infra: c.infra.state(t, "provisioned")}
	if b := c.machine.Spec.Bootstrap; b != nil && b.ConfigRef != nil {
		st := c.boot.state(t, "dataSecretCreated")
		in.Bootstrap = &st
	}
	if c.node != nil {
		in.Node, _ = MachineNode(ProviderID(m, in.Infra), m.Status.NodeRef, []corev1.Node{*NodeFields(c.node.DeepCopy())})
	}
	return in
}

func (r fuzzRef) state(t *testing.T, readyField string) Ref {
	st := Ref{Kind: r.ref.Kind, Name: r.ref.Name}
	switch r.outcome {
	case 1:
		return st
	case 2:
		st.Problem, st.Unreadable = ProblemKindNotServed, "cannot read "+st.String()+": the API server serves no kind "+r.ref.Kind
		return st
	case 3:
		st.Unreadable = "cannot read " + st.String() + ": timed out waiting for the cache"
		return st
	case 4:
		st.Problem, st.Unreadable = ProblemForbidden, "cannot read "+st.String()+": RBAC forbids the manager to list and watch it"
		return st
	}
	whole := RefFromObject(st, r.obj.DeepCopy(), readyField)
	if got := RefFromObject(st, ContractFields(r.obj.DeepCopy()), readyField); !reflect.DeepEqual(whole, got) {
		t.Fatalf("reading the cache's stripped object differs (-whole +stripped):\n%s", cmp.Diff(whole, got))
	}
	return whole
}

var timeEqual = cmp.Comparer(func(a, b metav1.Time) bool { return a.Equal(&b) })

// checkStatus checks the invariants of one computed status.
func checkStatus(t *testing.T, m *v1alpha1.Machine, in Inputs, next time.Time) {
	t.Helper()
	owned := OwnedTypes(m)
	checkReasonsCatalogued(t, m)
	for _, c := range m.Status.Conditions {
		if err := conditions.Validate(c); err != nil {
			t.Errorf("condition %s is invalid: %v", c.Type, err)
		}
		if owned[c.Type] && len(c.Message) > maxOwnMessage {
			t.Errorf("condition %s: message of %d bytes, want at most %d", c.Type, len(c.Message), maxOwnMessage)
		}
	}
	if !slices.Contains(v1alpha1.MachinePhases(), m.Status.Phase) || m.Status.LastOperation == nil {
		t.Fatalf("phase %q, lastOperation %v: want both set", m.Status.Phase, m.Status.LastOperation)
	}
	if !next.IsZero() && !next.After(in.Now) {
		t.Errorf("next deadline %s is not after now %s", next, in.Now)
	}

	js, err := json.Marshal(m.Status)
	if err != nil {
		t.Fatalf("json.Marshal(status) error = %v", err)
	}
	var back v1alpha1.MachineStatus
	if err := json.Unmarshal(js, &back); err != nil {
		t.Fatalf("json.Unmarshal(status) error = %v", err)
	}
	if !cmp.Equal(m.Status, back, timeEqual) {
		t.Fatalf("the status changes in a JSON round trip (-before +after):\n%s", cmp.Diff(m.Status, back, timeEqual))
	}

	again := m.DeepCopy()
	if aggregate.Summarize(again, in.Now) || !reflect.DeepEqual(again.Status, m.Status) {
		t.Fatalf("Summarize is not idempotent (-first +second):\n%s", cmp.Diff(m.Status, again.Status))
	}
	again = m.DeepCopy()
	if _, err := Compute(again, in); err != nil {
		t.Fatalf("Compute() again: error = %v", err)
	}
	if !reflect.DeepEqual(again.Status, m.Status) {
		t.Fatalf("Compute again from the same inputs changed the status (-first +second):\n%s", cmp.Diff(m.Status, again.Status))
	}
}

// checkReasonsCatalogued checks that every condition the controller owns on m (Ready aside: its
// reasons are the summary's) carries a reason the catalog lists for its type.
func checkReasonsCatalogued(t *testing.T, m *v1alpha1.Machine) {
	t.Helper()
	owned := OwnedTypes(m)
	for _, c := range m.Status.Conditions {
		info, ok := v1alpha1.CatalogInfo(c.Type)
		if ok && owned[c.Type] && c.Type != v1alpha1.MachineReadyCondition && !slices.Contains(info.Reasons, c.Reason) {
			t.Errorf("condition %s: reason %s is not among the catalog's %v", c.Type, c.Reason, info.Reasons)
		}
	}
}

// newFuzzCase builds a world from the fuzz arguments; see FuzzComputeStatus.
func newFuzzCase(infraJSON, bootJSON []byte, shape uint64, text string, nodeBits uint64, times int64, kubelet string) *fuzzCase {
	spec := bits(shape >> 32)
	c := &fuzzCase{}
	c.now = t0.Add(time.Duration(uint64(times)>>16%4000) * time.Second)
	c.before = c.now.Add(-time.Duration(uint64(times)>>32%900) * time.Second)

	m := &v1alpha1.Machine{ObjectMeta: metav1.ObjectMeta{
		Namespace: "ns", Name: "m", Generation: 1 + int64(spec.get(18, 3)), CreationTimestamp: metav1.NewTime(t0.Add(-time.Hour)),
	}}
	kind, name := "FakeMachine", "m"
	if spec.has(16) {
		kind, name = "K"+strings.Repeat("k", 62), strings.Repeat("n", 253)
	}
	c.infra = fuzzRef{
		ref:     v1alpha1.ContractVersionedObjectReference{APIGroup: "infrastructure.cluster.x-k8s.io", Kind: kind, Name: name},
		outcome: outcome(spec.get(0, 3)),
		obj:     contractObject(bits(shape), infraJSON, text, "provisioned"),
	}
	m.Spec.InfrastructureRef = c.infra.ref
	c.boot = fuzzRef{
		ref:     v1alpha1.ContractVersionedObjectReference{APIGroup: "bootstrap.cluster.x-k8s.io", Kind: "FakeConfig", Name: name},
		outcome: outcome(spec.get(3, 3)),
		obj:     contractObject(bits(shape>>16), bootJSON, text, "dataSecretCreated"),
	}
	switch spec.get(6, 2) {
	case 1:
		m.Spec.Bootstrap = &v1alpha1.Bootstrap{ConfigRef: &c.boot.ref}
	case 2:
		m.Spec.Bootstrap = &v1alpha1.Bootstrap{DataSecretName: "data"}
	case 3: // both: the CRD refuses it
		m.Spec.Bootstrap = &v1alpha1.Bootstrap{ConfigRef: &c.boot.ref, DataSecretName: "data"}
	}
	switch spec.get(8, 2) {
	case 1:
		m.Spec.Version = "v1.36.3"
	case 2:
		m.Spec.Version = kubelet // mostly refused by the CRD's pattern
	}
	m.Spec.Standby = spec.has(10)
	if spec.has(11) {
		m.DeletionTimestamp = &metav1.Time{Time: t0}
		m.Finalizers = []string{"example.com/keep"}
	}
	if spec.has(12) {
		m.Status.NodeRef = &v1alpha1.MachineNodeReference{Name: "gone"}
	}
	switch spec.get(13, 2) {
	case 1:
		m.Spec.ReadinessGates = []v1alpha1.MachineReadinessGate{{ConditionType: "example.com/Custom", Polarity: v1alpha1.PositiveConditionPolarity}}
	case 2:
		m.Spec.ReadinessGates = []v1alpha1.MachineReadinessGate{{ConditionType: "example.com/Custom", Polarity: v1alpha1.NegativeConditionPolarity}}
	case 3:
		m.Spec.ReadinessGates = []v1alpha1.MachineReadinessGate{{ConditionType: text}} // mostly refused by the CRD
	}
	if spec.has(15) {
		status := metav1.ConditionTrue
		if spec.has(17) {
			status = metav1.ConditionFalse
		}
		m.Status.Conditions = []metav1.Condition{{
			Type: "example.com/Custom", Status: status, Reason: "ByAnotherController", Message: "set by another writer",
			LastTransitionTime: metav1.NewTime(t0.Add(-time.Minute)),
		}}
	}
	if spec.has(21) {
		startup := int32(1 + uint64(times)%1200)
		m.Spec.HealthCheck = &v1alpha1.MachineHealthCheck{
			NodeStartupTimeoutSeconds: &startup,
			UnhealthyNodeConditions: []v1alpha1.UnhealthyNodeCondition{
				{Type: corev1.NodeReady, Status: corev1.ConditionFalse, TimeoutSeconds: startup},
				{Type: corev1.NodeDiskPressure, Status: corev1.ConditionTrue, TimeoutSeconds: 1},
			},
		}
	}
	if spec.has(22) {
		m.Spec.ProviderID = "p://1"
	}
	c.machine = roundTrip(m)
	c.node = fuzzNode(bits(nodeBits), text, times, kubelet)
	return c
}

// bits reads fields of a fuzz word.
type bits uint64

func (b bits) has(i uint) bool          { return b>>i&1 == 1 }
func (b bits) get(i, width uint) uint64 { return uint64(b) >> i & (1<<width - 1) }

// outcome maps three bits to a reference outcome, mostly an object.
func outcome(v uint64) int { return []int{0, 0, 0, 0, 1, 2, 3, 4}[v] }

// contractObject decodes raw (any JSON object; anything else is an empty object) and lays the
// contract fields chosen by b over it, then returns it as an API client would decode it.
func contractObject(b bits, raw []byte, text, readyField string) *unstructured.Unstructured {
	var obj map[string]any
	if err := utiljson.Unmarshal(raw, &obj); err != nil || obj == nil {
		obj = map[string]any{}
	}
	switch b.get(0, 2) {
	case 1:
		setPath(obj, b.has(2), "status", "initialization", readyField)
	case 2:
		setPath(obj, b.has(2), "status", "ready")
	case 3:
		setPath(obj, b.has(2), "status", "initialization", readyField)
		setPath(obj, !b.has(2), "status", "ready")
	}
	if b.has(3) {
		setPath(obj, text, "status", "failureReason")
	}
	if b.has(4) {
		setPath(obj, text, "status", "failureMessage")
	}
	switch b.get(5, 2) {
	case 1:
		setPath(obj, "p://1", "spec", "providerID")
	case 2:
		setPath(obj, text, "spec", "providerID")
	case 3:
		setPath(obj, strings.Repeat("p", 513), "spec", "providerID")
	}
	if where := b.get(7, 2); where != 0 {
		status := []any{"True", "False", "Unknown", text}[b.get(9, 2)]
		item := map[string]any{"type": "Ready", "status": status, "lastTransitionTime": "2026-05-01T11:00:00Z", "reason": "Waiting"}
		if b.has(11) {
			item["reason"] = text
		}
		if b.has(12) {
			item["message"] = text
		}
		if b.has(15) {
			item["lastTransitionTime"] = text
		}
		path := [][]string{nil, {"status", "conditions"}, {"status", "conditions"}, {"status", "v1beta2", "conditions"}}[where]
		if where == 2 {
			item["severity"] = "Warning" // Cluster API v1beta1
		}
		setPath(obj, []any{item}, path...)
	}
	if b.has(13) {
		setPath(obj, text, "status", "deprecated", "v1beta1", "failureMessage")
	}
	if b.has(14) {
		setPath(obj, text, "status", "dataSecretName")
	}
	return &unstructured.Unstructured{Object: roundTrip(obj)}
}

// setPath sets obj[path...] = v, replacing whatever on the way is not an object.
func setPath(obj map[string]any, v any, path ...string) {
	for _, key := range path[:len(path)-1] {
		next, ok := obj[key].(map[string]any)
		if !ok {
			next = map[string]any{}
			obj[key] = next
		}
		obj = next
	}
	obj[path[len(path)-1]] = v
}

// fuzzNode builds the Node chosen by b, or nil.
func fuzzNode(b bits, text string, times int64, kubelet string) *corev1.Node {
	if !b.has(0) {
		return nil
	}
	name := "n1"
	if b.has(13) {
		name = strings.Repeat("n", 253)
	}
	if b.has(20) {
		name = "gone" // the name of the Node the Machine recorded (spec bit 12), reused
	}
	n := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, CreationTimestamp: metav1.NewTime(t0.Add(-2 * time.Hour))},
		Spec:       corev1.NodeSpec{ProviderID: "p://1", Unschedulable: b.has(12)},
		Status:     corev1.NodeStatus{NodeInfo: corev1.NodeSystemInfo{KubeletVersion: kubelet}},
	}
	if b.has(14) {
		n.Spec.ProviderID = text
	}
	if b.has(17) {
		n.DeletionTimestamp = &metav1.Time{Time: t0}
	}
	since := metav1.NewTime(t0.Add(time.Duration(times%2000-1000) * time.Second))
	if b.has(19) {
		since = metav1.Time{}
	}
	statuses := []corev1.ConditionStatus{"", corev1.ConditionTrue, corev1.ConditionFalse, corev1.ConditionUnknown}
	if s := b.get(1, 3); s != 0 {
		ready := corev1.NodeCondition{Type: corev1.NodeReady, Status: corev1.ConditionStatus(text), LastTransitionTime: since}
		if s < 4 {
			ready.Status = statuses[s]
		}
		if b.has(15) {
			ready.Reason, ready.Message = text, text
		}
		n.Status.Conditions = append(n.Status.Conditions, ready)
		if b.has(18) { // a duplicate with another status
			ready.Status = corev1.ConditionFalse
			n.Status.Conditions = append(n.Status.Conditions, ready)
		}
	}
	for i, t := range pressureConditions {
		if s := b.get(4+2*uint(i), 2); s != 0 {
			n.Status.Conditions = append(n.Status.Conditions, corev1.NodeCondition{Type: t, Status: statuses[s], LastTransitionTime: since})
		}
	}
	if b.has(16) {
		n.Status.Conditions = append(n.Status.Conditions, corev1.NodeCondition{Type: corev1.NodeConditionType(text), Status: corev1.ConditionTrue, Message: text})
	}
	return roundTrip(n)
}

// roundTrip returns v as the API server would return it: through JSON, so strings are valid
// UTF-8, times have second precision and numbers in unstructured objects are int64.
func roundTrip[T any](v T) T {
	js, err := json.Marshal(v)
	if err != nil {
		panic(err) // only strings, booleans, objects and lists are built
	}
	var out T
	if err := utiljson.Unmarshal(js, &out); err != nil {
		panic(err)
	}
	return out
}

// fuzzSeeds are plausible worlds; testdata/fuzz/FuzzComputeStatus holds more.
var fuzzSeeds = []struct {
	infra, boot []byte
	shape       uint64
	text        string
	node        uint64
	times       int64
	kubelet     string
}{
	// Provisioned (v1beta2), Ready Node, version and bootstrap config ready.
	{[]byte(`{}`), []byte(`{}`), 1 | 1<<2 | 1<<5 | (1|1<<2)<<16 | (1<<6|1<<8)<<32, "", 1 | 1<<1, 3600 << 16, "v1.36.3"},
	// Provisioning: v1beta1 not ready with a Cluster API v1beta1 Ready condition; no Node.
	{[]byte(`{"status":{"addresses":[]}}`), nil, 2 | 2<<7 | 1<<9 | 1<<12, "waiting for an IP", 0, 60 << 16, ""},
	// Terminal failure with a long message; deprecated fields; NotReady Node.
	{[]byte(`{}`), nil, 1<<3 | 1<<4 | 1<<13, strings.Repeat("out of capacity ", 200), 1 | 2<<1, 600 << 16, "v1.36.3"},
	// Wrong types from the JSON: provisioned "yes", conditions not a list.
	{[]byte(`{"status":{"initialization":{"provisioned":"yes"},"conditions":"x"}}`), nil, 0, "", 1 | 1<<1, 0, ""},
	// Deleting with a foreign readiness gate, cordoned Node under disk pressure.
	{[]byte(`{}`), nil, 1 | 1<<2 | 1<<5 | (1<<11|1<<13|1<<15)<<32, "", 1 | 1<<1 | 1<<6 | 1<<12, 1000 << 16, "v1.36.3"},
	// Startup timeout: provisioned long ago, no Node, a short custom timeout.
	{[]byte(`{}`), nil, 1 | 1<<2 | (1<<21)<<32, "", 0, 5 | 3000<<16 | 600<<32, ""},
	// Missing infrastructure, unserved bootstrap kind.
	{nil, nil, (4 | 5<<3 | 1<<6) << 32, "", 0, 0, ""},
	// Forbidden infrastructure kind, bootstrap cache not synced, standby.
	{nil, nil, (6 | 7<<3 | 1<<6 | 1<<10) << 32, "", 1 | 1<<1, 0, ""},
}
