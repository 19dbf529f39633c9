package aggregate_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
)

// The state space of a Machine as Phase, LastOperation and Summarize see it.
//
// A point picks one choice in each dimension: the status and reason of every catalog condition
// (missing, True, False, Unknown; terminal and ordinary reasons), the deletionTimestamp with
// each Deleting reason, spec.bootstrap, every previous lastOperation (nil and every type ×
// state), a previous Ready and a readiness gate. A space crosses some dimensions fully and sets
// each of the others from a hash of the case number, so that all their choices occur without
// multiplying the size; the tests say which inputs each function reads and cross those fully.
//
// Every time is a whole second in time.Local, as decoded from the API server, and every input
// time is distinct, so a lastUpdated can be traced back to the one input it came from.

// Dimensions of the space. The condition dimensions come first, in catalog order.
const (
	dBootstrap = iota
	dDraining
	dHealthCheck
	dInfra
	dNodeHealthy
	dNodeReady
	dStandby
	dUpdating
	dDeletion      // deletionTimestamp and the Deleting condition
	dBootstrapSpec // spec.bootstrap unset or set
	dPrevOp        // previous status.lastOperation
	dPrevReady     // previous Ready condition
	dGate          // a readiness gate and its condition
	numDims

	numCondDims = dDeletion
)

var dimNames = [numDims]string{"bootstrap", "draining", "healthCheck", "infra", "nodeHealthy",
	"nodeReady", "standby", "updating", "deletion", "bootstrapSpec", "prevOp", "prevReady", "gate"}

// condChoice is one choice of a condition dimension; an empty status means the condition is
// missing.
type condChoice struct {
	status  metav1.ConditionStatus
	reason  string
	message string
}

var missing = condChoice{}

// condDims lists, per condition dimension, its condition type and choices.
var condDims = [numCondDims]struct {
	conditionType string
	choices       []condChoice
}{
	dBootstrap: {bootstrapReady, []condChoice{
		missing,
		{T, v1alpha1.MachineBootstrapDataSecretCreatedReason, ""},
		{F, v1alpha1.MachineBootstrapConfigNotReadyReason, "KubeadmConfig m has no data secret yet"},
		{F, v1alpha1.MachineBootstrapFailedReason, "cloud-init template is invalid"},
		{U, v1alpha1.MachineBootstrapConfigDoesNotExistReason, ""},
	}},
	dDraining: {draining, []condChoice{
		missing,
		{T, v1alpha1.MachineNodeCordonedReason, "Node m is unschedulable"},
		{F, v1alpha1.MachineNotDrainingReason, ""},
		{T, v1alpha1.MachineDrainingFailedReason, "Cannot evict pod as it would violate the pod's disruption budget"},
	}},
	dHealthCheck: {hcSucceeded, []condChoice{
		missing,
		{T, v1alpha1.MachineHealthCheckSucceededReason, ""},
		{F, v1alpha1.MachineHealthCheckUnhealthyNodeReason, "Node Ready=False for more than 5m"},
		{U, "HealthCheckSuspended", ""},
	}},
	dInfra: {infraReady, []condChoice{
		missing,
		{T, v1alpha1.MachineInfrastructureProvisionedReason, ""},
		{F, v1alpha1.MachineInfrastructureNotProvisionedReason, "DockerMachine m is not provisioned"},
		{F, v1alpha1.MachineInfrastructureFailedReason, "quota exceeded"},
		{U, v1alpha1.MachineInfrastructureDoesNotExistReason, ""},
	}},
	dNodeHealthy: {nodeHealthy, []condChoice{
		missing,
		{T, v1alpha1.MachineNodeHealthyReason, ""},
		{F, v1alpha1.MachineNodeUnhealthyReason, "DiskPressure"},
		{U, v1alpha1.MachineNodeHealthUnknownReason, ""},
	}},
	dNodeReady: {nodeReady, []condChoice{
		missing,
		{T, v1alpha1.MachineNodeReadyReason, ""},
		{F, v1alpha1.MachineNodeNotReadyReason, "kubelet stopped\nposting node status"},
		{U, v1alpha1.MachineNodeReadyUnknownReason, ""},
	}},
	dStandby: {standby, []condChoice{
		missing,
		{T, v1alpha1.MachineStandbyRequestedReason, ""},
		{F, v1alpha1.MachineNotInStandbyReason, ""},
	}},
	dUpdating: {updating, []condChoice{
		missing,
		{T, v1alpha1.MachineUpdatingKubeletVersionReason, "kubelet v1.35.2, want v1.36.3"},
		{T, v1alpha1.MachineUpdateFailedReason, "image pull failed"},
		{F, v1alpha1.MachineNotUpdatingReason, ""},
		{F, v1alpha1.MachineUpdateFailedReason, ""},
	}},
}

// deletionChoices are the choices of dDeletion. Without a timestamp a Deleting condition is
// stale (or a leftover written by hand) and must change nothing but Ready.
var deletionChoices = []struct {
	timestamp bool
	deleting  condChoice
}{
	{false, missing},
	{false, condChoice{F, v1alpha1.MachineNotDeletingReason, ""}},
	{false, condChoice{T, v1alpha1.MachineDeletingDeletionCompletedReason, ""}},
	{true, missing},
	{true, condChoice{F, v1alpha1.MachineNotDeletingReason, ""}},
	{true, condChoice{T, v1alpha1.MachineDeletingDrainingNodeReason, "draining Node m"}},
	{true, condChoice{T, v1alpha1.MachineDeletingWaitingForInfrastructureDeletionReason, ""}},
	{true, condChoice{T, v1alpha1.MachineDeletingWaitingForNodeDeletionReason, ""}},
	{true, condChoice{T, v1alpha1.MachineDeletingDeletionCompletedReason, ""}},
}

// aliveDeletions and deletedDeletions split deletionChoices by the timestamp.
var aliveDeletions, deletedDeletions = []int{0, 1, 2}, []int{3, 4, 5, 6, 7, 8}

// prevReadyChoices are the choices of dPrevReady: a Ready written by an earlier Summarize.
var prevReadyChoices = []condChoice{
	missing,
	{T, "NoIssuesReported", ""},
	{F, "IssueReported", "* NodeReady: an older message"},
}

// gateChoices are the choices of dGate: a readiness gate and the condition it names.
//
// observed is the gate condition's observedGeneration (the Machine's generation is 3): a gate
// that is fine for generation 2 counts as Unknown; one without observedGeneration (0) is read
// as it is.
var gateChoices = []struct {
	gate     *v1alpha1.MachineReadinessGate
	cond     condChoice
	observed int64
}{
	{nil, missing, 0},
	{&v1alpha1.MachineReadinessGate{ConditionType: gateNetwork, Polarity: v1alpha1.PositiveConditionPolarity}, missing, 0},
	{&v1alpha1.MachineReadinessGate{ConditionType: gateNetwork, Polarity: v1alpha1.PositiveConditionPolarity}, condChoice{F, "NetworkNotReady", "CNI not initialized"}, 2},
	{&v1alpha1.MachineReadinessGate{ConditionType: gateMaintenance, Polarity: v1alpha1.NegativeConditionPolarity}, condChoice{T, "Scheduled", ""}, 3},
	{&v1alpha1.MachineReadinessGate{ConditionType: gateMaintenance, Polarity: v1alpha1.NegativeConditionPolarity}, condChoice{F, "NotScheduled", ""}, 3},
	{&v1alpha1.MachineReadinessGate{ConditionType: gateNetwork, Polarity: v1alpha1.PositiveConditionPolarity}, condChoice{T, "NetworkReady", ""}, 2},
	{&v1alpha1.MachineReadinessGate{ConditionType: gateNetwork, Polarity: v1alpha1.PositiveConditionPolarity}, condChoice{T, "NetworkReady", ""}, 0},
	{&v1alpha1.MachineReadinessGate{ConditionType: gateMaintenance, Polarity: v1alpha1.NegativeConditionPolarity}, condChoice{F, "NotScheduled", ""}, 2},
}

// infrastructureRef is every Machine's spec.infrastructureRef.
var infrastructureRef = v1alpha1.ContractVersionedObjectReference{
	APIGroup: "infrastructure.cluster.x-k8s.io", Kind: "DockerMachine", Name: "m",
}

// bootstrapSpec is the spec.bootstrap of dBootstrapSpec's second choice, shared (read only).
var bootstrapSpec = &v1alpha1.Bootstrap{ConfigRef: &v1alpha1.ContractVersionedObjectReference{
	APIGroup: "bootstrap.cluster.x-k8s.io", Kind: "KubeadmConfig", Name: "m",
}}

const (
	gateNetwork     = "example.com/Network"
	gateMaintenance = "example.com/Maintenance"
)

// gateLists[j] is spec.readinessGates for gate choice j, shared (read only).
var gateLists = func() [][]v1alpha1.MachineReadinessGate {
	out := make([][]v1alpha1.MachineReadinessGate, len(gateChoices))
	for i, g := range gateChoices {
		if g.gate != nil {
			out[i] = []v1alpha1.MachineReadinessGate{*g.gate}
		}
	}
	return out
}()

// prevOps are the choices of dPrevOp: nil, then every type × state.
var prevOps = func() []*v1alpha1.LastOperation {
	out := []*v1alpha1.LastOperation{nil}
	for _, t := range v1alpha1.MachineOperationTypes() {
		for _, s := range v1alpha1.MachineOperationStates() {
			out = append(out, &v1alpha1.LastOperation{Type: t, State: s, Description: "previous operation",
				LastUpdated: local(300 + len(out))})
		}
	}
	return out
}()

func dimSize(d int) int {
	switch d {
	case dDeletion:
		return len(deletionChoices)
	case dBootstrapSpec:
		return 2
	case dPrevOp:
		return len(prevOps)
	case dPrevReady:
		return len(prevReadyChoices)
	case dGate:
		return len(gateChoices)
	}
	return len(condDims[d].choices)
}

// The input times. All are distinct whole seconds in time.Local, and all lie long before the
// clocks given to Summarize, so a time taken from the clock cannot pass for an input time.
var (
	created       = local(0)
	deletionTime  = local(250)
	prevReadyTime = local(260)
	farFuture     = time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC)
)

func local(minutes int) metav1.Time {
	return metav1.NewTime(t0.Add(time.Duration(minutes) * time.Minute).Local())
}

// condTime is the lastTransitionTime of choice j of condition dimension d; deletingTime and
// gateTime those of the Deleting and gate conditions.
func condTime(d, j int) metav1.Time  { return inputTimes[10+20*d+j] }
func deletingTime(j int) metav1.Time { return inputTimes[200+j] }
func gateTime(j int) metav1.Time     { return inputTimes[230+j] }

// inputTimes[n] is local(n), computed once.
var inputTimes = func() []metav1.Time {
	out := make([]metav1.Time, 400)
	for i := range out {
		out[i] = local(i)
	}
	return out
}()

// point is one input: a choice index per dimension.
type point [numDims]int

func (p point) String() string {
	var b strings.Builder
	for d := range numDims {
		fmt.Fprintf(&b, "%s=%d ", dimNames[d], p[d])
	}
	return strings.TrimSpace(b.String())
}

// cond returns the choice of condition dimension d.
func (p point) cond(d int) condChoice { return condDims[d].choices[p[d]] }

// machine builds the Machine of p, its conditions in catalog order as conditions.Set keeps
// them; reversed lists them in the opposite order.
func (p point) machine(reversed bool) *v1alpha1.Machine {
	return new(builder).build(p, reversed)
}

// builder builds Machines into storage it reuses: each build overwrites the previous Machine.
// The functions under test do not keep references to their input, so a shard checking
// hundreds of thousands of points reuses one builder instead of allocating for each.
type builder struct {
	m    v1alpha1.Machine
	list [numCondDims + 3]metav1.Condition
	prev v1alpha1.LastOperation
	ts   metav1.Time
}

func (b *builder) build(p point, reversed bool) *v1alpha1.Machine {
	b.m = v1alpha1.Machine{
		ObjectMeta: metav1.ObjectMeta{Name: "m", Namespace: "default", Generation: 3, CreationTimestamp: created},
		Spec:       v1alpha1.MachineSpec{InfrastructureRef: infrastructureRef},
	}
	m := &b.m
	if p[dBootstrapSpec] == 1 {
		m.Spec.Bootstrap = bootstrapSpec
	}
	if p.cond(dStandby).status == T {
		m.Spec.Standby = true
	}
	del := deletionChoices[p[dDeletion]]
	if del.timestamp {
		b.ts = deletionTime
		m.DeletionTimestamp = &b.ts
	}
	gate := gateChoices[p[dGate]]
	if gate.gate != nil {
		m.Spec.ReadinessGates = gateLists[p[dGate]]
	}

	list := b.list[:0]
	add := func(t string, c condChoice, ltt metav1.Time) {
		if c.status != "" {
			list = append(list, metav1.Condition{Type: t, Status: c.status, Reason: c.reason, Message: c.message,
				ObservedGeneration: 2, LastTransitionTime: ltt})
		}
	}
	add(v1alpha1.MachineReadyCondition, prevReadyChoices[p[dPrevReady]], prevReadyTime)
	add(bootstrapReady, p.cond(dBootstrap), condTime(dBootstrap, p[dBootstrap]))
	add(deleting, del.deleting, deletingTime(p[dDeletion]))
	for d := dDraining; d < numCondDims; d++ {
		add(condDims[d].conditionType, p.cond(d), condTime(d, p[d]))
	}
	if gate.gate != nil && gate.cond.status != "" {
		add(gate.gate.ConditionType, gate.cond, gateTime(p[dGate]))
		list[len(list)-1].ObservedGeneration = gate.observed
	}
	if reversed {
		for i, j := 0, len(list)-1; i < j; i, j = i+1, j-1 {
			list[i], list[j] = list[j], list[i]
		}
	}
	m.Status.Conditions = list
	if prev := prevOps[p[dPrevOp]]; prev != nil {
		b.prev = *prev
		m.Status.LastOperation = &b.prev
	}
	return m
}

// space is a set of points: the full product of the dimensions in full, each restricted to
// the choices in only (default: all), and every other dimension set from a hash of the case
// number among its allowed choices.
type space struct {
	name string
	full []int
	only map[int][]int
}

func (s space) allowed(d int) []int {
	if c, ok := s.only[d]; ok {
		return c
	}
	all := make([]int, dimSize(d))
	for i := range all {
		all[i] = i
	}
	return all
}

func (s space) size() int {
	n := 1
	for _, d := range s.full {
		n *= len(s.allowed(d))
	}
	return n
}

// points returns a function that gives case i of s. salt picks another hash for the hashed
// dimensions: the same i with another salt differs from it only there.
func (s space) points() func(i int, salt uint64) point {
	var allowed [numDims][]int
	var isFull [numDims]bool
	for d := range numDims {
		allowed[d] = s.allowed(d)
	}
	for _, d := range s.full {
		isFull[d] = true
	}
	return func(i int, salt uint64) point {
		var p point
		rest := i
		for _, d := range s.full {
			a := allowed[d]
			p[d] = a[rest%len(a)]
			rest /= len(a)
		}
		for d := range numDims {
			if !isFull[d] {
				a := allowed[d]
				p[d] = a[mix(uint64(i), uint64(d), salt)%uint64(len(a))]
			}
		}
		return p
	}
}

// mix is a splitmix64-style hash of the case number, the dimension and a salt.
func mix(i, d, salt uint64) uint64 {
	x := i*0x9e3779b97f4a7c15 + d*0xbf58476d1ce4e5b9 + salt*0x94d049bb133111eb
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

// checkFunc checks point p, case i of its space, records what it reached in cov and returns
// false on a failure (which it reports on t).
type checkFunc func(t *testing.T, i int, p point, cov *coverage) bool

// run checks every point of s, spread over parallel subtests (shards). Each shard gets its own
// check from newCheck (so that it may keep scratch space) and its own coverage, merged into cov
// when it ends; after maxFailures failures a shard stops.
func (s space) run(t *testing.T, cov *coverage, newCheck func() checkFunc) {
	const shards, maxFailures = 4, 10
	points, size := s.points(), s.size()
	t.Run(s.name, func(t *testing.T) {
		for shard := range shards {
			t.Run(fmt.Sprintf("shard%d", shard), func(t *testing.T) {
				t.Parallel()
				check, local := newCheck(), newCoverage()
				failures := 0
				for i := shard; i < size; i += shards {
					local.cases++
					if !check(t, i, points(i, 0), local) {
						if failures++; failures == maxFailures {
							t.Fatalf("stopping after %d failing points", maxFailures)
						}
					}
				}
				cov.merge(local)
			})
		}
	})
}

// coverage records what a space reached.
type coverage struct {
	mu     sync.Mutex
	cases  int
	phases map[v1alpha1.MachinePhase]int
	// ops counts results by (type, state): derived ones (not the previous value kept as it was)
	// and kept ones separately.
	derived, kept map[opKey]int
	readyReasons  map[string]int
}

type opKey struct {
	t v1alpha1.MachineOperationType
	s v1alpha1.MachineOperationState
}

func (k opKey) String() string { return string(k.t) + "/" + string(k.s) }

func newCoverage() *coverage {
	return &coverage{phases: map[v1alpha1.MachinePhase]int{}, derived: map[opKey]int{},
		kept: map[opKey]int{}, readyReasons: map[string]int{}}
}

func (c *coverage) addOp(prev, got *v1alpha1.LastOperation) {
	k := opKey{got.Type, got.State}
	if prev != nil && (opKey{prev.Type, prev.State}) == k {
		c.kept[k]++
		return
	}
	c.derived[k]++
}

func (c *coverage) merge(o *coverage) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.cases += o.cases
	for k, v := range o.phases {
		c.phases[k] += v
	}
	for k, v := range o.derived {
		c.derived[k] += v
	}
	for k, v := range o.kept {
		c.kept[k] += v
	}
	for k, v := range o.readyReasons {
		c.readyReasons[k] += v
	}
}

func allOpKeys() []opKey {
	var out []opKey
	for _, t := range v1alpha1.MachineOperationTypes() {
		for _, s := range v1alpha1.MachineOperationStates() {
			out = append(out, opKey{t, s})
		}
	}
	return out
}

func TestSpaceEnumeratesEveryChoice(t *testing.T) {
	s := space{name: "small", full: []int{dUpdating, dDeletion}, only: map[int][]int{dDeletion: {1, 4}}}
	if got, want := s.size(), len(condDims[dUpdating].choices)*2; got != want {
		t.Fatalf("size() = %d, want %d", got, want)
	}
	points := s.points()
	seen := map[[2]int]bool{}
	hashed := map[int]map[int]bool{}
	for i := range 4000 {
		p := points(i%s.size(), uint64(i/s.size()))
		seen[[2]int{p[dUpdating], p[dDeletion]}] = true
		for d := range numDims {
			if hashed[d] == nil {
				hashed[d] = map[int]bool{}
			}
			hashed[d][p[d]] = true
		}
	}
	if len(seen) != s.size() {
		t.Errorf("full dimensions: %d combinations seen, want %d", len(seen), s.size())
	}
	for d := range numDims {
		want := len(s.allowed(d))
		if got := len(hashed[d]); got != want {
			t.Errorf("dimension %s: %d choices seen, want %d", dimNames[d], got, want)
		}
	}
	// The builder keeps catalog order and reverses on request.
	p := points(3, 0)
	a, b := p.machine(false), p.machine(true)
	if n := len(a.Status.Conditions); n > 1 && a.Status.Conditions[0] != b.Status.Conditions[n-1] {
		t.Errorf("reversed list differs:\n%s", cmp.Diff(a.Status.Conditions, b.Status.Conditions))
	}
	if len(prevOps) != 1+len(allOpKeys()) {
		t.Errorf("prevOps has %d entries, want nil + %d", len(prevOps), len(allOpKeys()))
	}
}
