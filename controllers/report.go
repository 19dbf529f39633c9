package controllers

import (
	"cmp"
	"maps"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"

	"github.com/machinestatus/machinestatus/aggregate"
	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/conditions"
)

// reporter reports what a reconciler observes of the Machines of one API: events, and the
// metrics per Machine and in total. It remembers what it reported last for each Machine, which
// is also the Cluster API reconciler's memory of a lastOperation between the writes it saves.
// The zero value is not ready: set api, apiVersion and recorder, then call init.
type reporter struct {
	// api is the API group label; apiVersion the apiVersion of the events' regarding.
	api, apiVersion string
	recorder        events.EventRecorder
	// allPhases emits an event on every phase change; false only on a change to Failed.
	allPhases bool

	mu   sync.Mutex
	seen map[types.NamespacedName]*reported
}

// reported is what a reporter last reported of one Machine.
type reported struct {
	phase     v1alpha1.MachinePhase
	op        *v1alpha1.LastOperation
	cluster   string
	pool      string
	deletion  *metav1.Time
	info      prometheus.Labels
	regarding *corev1.ObjectReference
	related   *corev1.ObjectReference
}

// observation is a Machine as one reconcile derived it.
type observation struct {
	m        metav1.Object
	cluster  string
	pool     string
	phase    v1alpha1.MachinePhase
	op       *v1alpha1.LastOperation
	upToDate string // "true", "false", or "" when unknown
}

// baseline is what a Machine the reporter does not know yet is compared with: what its
// stored status or annotation says.
type baseline struct {
	op *v1alpha1.LastOperation
	// phase is the phase before ("" for a Machine new to machinestatus); phaseKnown false
	// when nothing tells it (a Cluster API Machine keeps no phase).
	phase      v1alpha1.MachinePhase
	phaseKnown bool
}

// init makes every phase of r's API present in machinestatus_machines, 0 until counted.
func (r *reporter) init() {
	for _, p := range v1alpha1.MachinePhases() {
		machinesMetric.WithLabelValues(r.api, string(p))
	}
}

// last returns the lastOperation last reported for key, and whether key is known.
func (r *reporter) last(key types.NamespacedName) (*v1alpha1.LastOperation, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s, ok := r.seen[key]
	if !ok {
		return nil, false
	}
	return s.op.DeepCopy(), true
}

// report reports o, compared with what was last reported for its Machine or, for a Machine not
// known yet, with b: a phase change (event, machinestatus_machine_phase_transitions_total), an
// operation result (event, machinestatus_machine_operation_results_total, and its duration when
// the Processing state it ends was seen), and the Machine's series.
func (r *reporter) report(o observation, b baseline) {
	key := types.NamespacedName{Namespace: o.m.GetNamespace(), Name: o.m.GetName()}
	r.mu.Lock()
	defer r.mu.Unlock()
	last, known := r.seen[key]
	if known {
		b = baseline{op: last.op, phase: last.phase, phaseKnown: true}
	} else {
		last = &reported{}
	}
	next := &reported{phase: o.phase, op: o.op.DeepCopy(), cluster: o.cluster, pool: o.pool,
		deletion: o.m.GetDeletionTimestamp(), regarding: eventRegarding(r.apiVersion, o.m), related: eventRelated(o.m)}

	if b.phaseKnown && b.phase != o.phase {
		phaseTransitionsMetric.WithLabelValues(r.api, cmp.Or(string(b.phase), "none"), string(o.phase)).Inc()
		if r.allPhases || o.phase == v1alpha1.MachinePhaseFailed {
			kind := corev1.EventTypeNormal
			if o.phase == v1alpha1.MachinePhaseFailed {
				kind = corev1.EventTypeWarning
			}
			r.event(next, kind, phaseEventReason(o.phase), "Phase changed to "+string(o.phase))
		}
	}
	if op := o.op; op != nil && op.State != v1alpha1.MachineOperationStateProcessing &&
		(b.op == nil || b.op.Type != op.Type || b.op.State != op.State) {
		start := b.op
		if start != nil && (start.Type != op.Type || start.State != v1alpha1.MachineOperationStateProcessing) {
			start = nil
		}
		r.result(next, op, start, o.m.GetCreationTimestamp())
	}

	if known && last.phase != o.phase {
		machinesMetric.WithLabelValues(r.api, string(last.phase)).Dec()
	}
	if !known || last.phase != o.phase {
		machinesMetric.WithLabelValues(r.api, string(o.phase)).Inc()
	}
	next.info = prometheus.Labels{apiGroupLabel: r.api, "namespace": key.Namespace, "name": key.Name,
		"cluster": o.cluster, "pool": o.pool, "phase": string(o.phase), "operation_type": "", "operation_state": "",
		"up_to_date": o.upToDate}
	if o.op != nil {
		next.info["operation_type"], next.info["operation_state"] = string(o.op.Type), string(o.op.State)
	}
	r.deleteSeries(last, next)
	machineInfoMetric.With(next.info).Set(1)
	if o.op != nil {
		lastOperationTimestampMetric.With(timestampLabels(next.info)).Set(float64(o.op.LastUpdated.Unix()))
	}
	if r.seen == nil {
		r.seen = map[types.NamespacedName]*reported{}
	}
	r.seen[key] = next
}

// result reports that the Machine reached op, a Successful or Failed state: an event, the
// results counter, and the duration from the operation's start when start, the Processing state
// op ends, was reported (Create starts at created, Delete at the deletionTimestamp).
func (r *reporter) result(s *reported, op, start *v1alpha1.LastOperation, created metav1.Time) {
	operationResultsMetric.WithLabelValues(r.api, string(op.Type), string(op.State)).Inc()
	if start != nil {
		begin := start.LastUpdated
		switch {
		case op.Type == v1alpha1.MachineOperationCreate:
			begin = created
		case op.Type == v1alpha1.MachineOperationDelete && s.deletion != nil:
			begin = *s.deletion
		}
		operationDurationMetric.WithLabelValues(r.api, s.cluster, s.pool, string(op.Type), string(op.State)).
			Observe(max(0, op.LastUpdated.Sub(begin.Time).Seconds()))
	}
	reason := operationEventReason(op.Type, op.State)
	if op.State == v1alpha1.MachineOperationStateFailed {
		r.event(s, corev1.EventTypeWarning, reason, string(op.Type)+": "+conditions.CollapseSpace(op.Description))
		return
	}
	note := string(op.Type) + " succeeded"
	if text := aggregate.ReasonText(op.Reason); text != "" {
		note += " (" + text + ")"
	}
	r.event(s, corev1.EventTypeNormal, reason, note)
}

// known reports whether key has been reported.
func (r *reporter) known(key types.NamespacedName) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	_, ok := r.seen[key]
	return ok
}

// gone reports that the Machine key left this manager's cache: its series are removed. When
// deleted (the Machine no longer exists, rather than left this manager's selection), its
// deletion ends Successful at now, with its event and result, and its duration when the deletion
// was seen in progress: the Machine object is deleted once its last finalizer is removed, often
// before its last status write is observed, or even its deletionTimestamp.
func (r *reporter) gone(key types.NamespacedName, now time.Time, deleted bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	last, ok := r.seen[key]
	if !ok {
		return
	}
	delete(r.seen, key)
	machinesMetric.WithLabelValues(r.api, string(last.phase)).Dec()
	r.deleteSeries(last, nil)
	op := last.op
	if !deleted || (op != nil && op.Type == v1alpha1.MachineOperationDelete && op.State == v1alpha1.MachineOperationStateSuccessful) {
		return
	}
	end := &v1alpha1.LastOperation{Type: v1alpha1.MachineOperationDelete, State: v1alpha1.MachineOperationStateSuccessful,
		LastUpdated: conditions.StoredTime(now)}
	var start *v1alpha1.LastOperation
	if op != nil && op.Type == v1alpha1.MachineOperationDelete {
		end.Reason = op.Reason
		if op.State == v1alpha1.MachineOperationStateProcessing {
			start = op
		}
	}
	r.result(last, end, start, metav1.Time{})
}

// deleteSeries removes the per-Machine series of last that next (nil: none) does not set again.
func (r *reporter) deleteSeries(last, next *reported) {
	if last.info == nil {
		return
	}
	if next == nil || !maps.Equal(last.info, next.info) {
		machineInfoMetric.Delete(last.info)
	}
	if next == nil || !maps.Equal(timestampLabels(last.info), timestampLabels(next.info)) || next.op == nil {
		lastOperationTimestampMetric.Delete(timestampLabels(last.info))
	}
}

// timestampLabels are the labels of machinestatus_machine_last_operation_timestamp_seconds
// taken from those of a machinestatus_machine_info series.
func timestampLabels(info prometheus.Labels) prometheus.Labels {
	l := prometheus.Labels{}
	for _, k := range []string{apiGroupLabel, "namespace", "name", "cluster", "pool"} {
		l[k] = info[k]
	}
	return l
}

// event emits an event about the Machine of s.
func (r *reporter) event(s *reported, kind, reason, note string) {
	if s.related == nil {
		r.recorder.Eventf(s.regarding, nil, kind, reason, eventAction, "%s", note)
		return
	}
	r.recorder.Eventf(s.regarding, s.related, kind, reason, eventAction, "%s", note)
}
