package describe

import (
	"context"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/duration"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/conditions"
)

// machineContexts is what describe reads besides the Machines: their Events and the
// MachineHealthChecks that may select Cluster API Machines.
type machineContexts struct {
	events []eventRecord
	mhcs   []clusterv1.MachineHealthCheck
}

// machineContexts reads the Events of the Machines' namespace (every namespace with -A) and,
// when some are Cluster API Machines, the MachineHealthChecks; what cannot be read becomes a
// warning on stderr.
func (o *describeOptions) machineContexts(ctx context.Context, ms []Machine, namespace string) *machineContexts {
	c := &machineContexts{}
	if len(ms) == 0 {
		return c
	}
	client, err := o.dynamicClient()
	if err != nil {
		return c
	}
	if o.showEvents {
		if c.events, err = listMachineEvents(ctx, client, namespace); err != nil {
			fmt.Fprintf(o.streams.ErrOut, "warning: cannot read Events: %v\n", err)
		}
	}
	capi := false
	for _, m := range ms {
		capi = capi || m.ClusterAPI != nil
	}
	if capi {
		// Without MachineHealthChecks (none, or not readable), no health-check deadline is shown.
		c.mhcs, _ = listAs[clusterv1.MachineHealthCheck](ctx, client, clusterAPIMachineHealthChecks, namespace, "")
	}
	return c
}

// eventsOf returns the Events about m, oldest first.
func (c *machineContexts) eventsOf(m Machine) []eventRecord {
	var out []eventRecord
	for _, e := range c.events {
		if e.regards(m) {
			out = append(out, e)
		}
	}
	return out
}

// healthChecksOf returns the MachineHealthChecks that select the Cluster API Machine m.
func (c *machineContexts) healthChecksOf(m *clusterv1.Machine) []clusterv1.MachineHealthCheck {
	var out []clusterv1.MachineHealthCheck
	for _, mhc := range c.mhcs {
		if mhc.Namespace != m.Namespace || mhc.Spec.ClusterName != m.Spec.ClusterName {
			continue
		}
		sel, err := metav1.LabelSelectorAsSelector(&mhc.Spec.Selector)
		if err != nil || sel.Empty() || !sel.Matches(labels.Set(m.Labels)) {
			continue
		}
		out = append(out, mhc)
	}
	return out
}

// stuck is what describe's "why is it stuck" lines say about a Machine in the middle of an
// operation, or a failed one.
type stuck struct {
	// waitingFor is the first problem: "Type Reason: message".
	waitingFor string
	// reason is the first problem's reason (the hint's key).
	reason string
	// since is when the current operation started (lastOperation.lastUpdated).
	since time.Time
	// deadlines apply to the current step.
	deadlines []deadline
}

// deadline is a timeout that applies to the current step.
type deadline struct {
	// what names the step, e.g. "node startup".
	what string
	// start is when the timeout started counting; zero when unknown.
	start time.Time
	// timeout is the timeout; 0 means none.
	timeout time.Duration
	// source says where the timeout and its start come from.
	source string
}

// stuckOf returns what m waits for, or nil when it waits for nothing (Running without a
// problem, Standby, Deleted).
func stuckOf(m Machine, d Description, c *machineContexts) *stuck {
	problem := firstProblem(d)
	op := d.LastOperation
	processing := op != nil && op.State == v1alpha1.MachineOperationStateProcessing
	if problem == nil && !processing {
		return nil
	}
	s := &stuck{}
	if op != nil {
		s.since = op.LastUpdated.Time
	}
	if problem != nil {
		s.reason = problem.Reason
		s.waitingFor = problem.Type + " " + problem.Reason
		if msg := conditions.CollapseSpace(conditions.OneLine(problem.Message)); msg != "" {
			s.waitingFor += ": " + truncateRunes(msg, 300)
		}
	}
	switch {
	case m.Machinestatus != nil:
		s.deadlines = machinestatusDeadlines(m.Machinestatus, d)
	case m.ClusterAPI != nil:
		s.deadlines = clusterAPIDeadlines(m.ClusterAPI, d, c)
	}
	if s.reason == "" && len(s.deadlines) == 0 && s.waitingFor == "" {
		return nil
	}
	return s
}

// nodeMissing reports whether d's Machine has no Node yet.
func nodeMissing(d Description) bool {
	if d.Node != "" {
		return false
	}
	c := condition(d, v1alpha1.MachineNodeReadyCondition)
	return c == nil || c.Reason == v1alpha1.MachineNodeDoesNotExistReason
}

// infraReadySince is when InfrastructureReady became True, else the creation time.
func infraReadySince(d Description) (time.Time, string) {
	if c := condition(d, v1alpha1.MachineInfrastructureReadyCondition); c != nil && c.Status == metav1.ConditionTrue {
		return c.LastTransitionTime.Time, "InfrastructureReady's lastTransitionTime"
	}
	return d.CreationTimestamp.Time, "the Machine's creation (InfrastructureReady is not True yet)"
}

// machinestatusDeadlines are the health check's timers of a machinestatus Machine:
// spec.healthCheck with its defaults, counted from InfrastructureReady (node startup) or from
// status.healthCheck (when the controller first saw an unhealthy Node condition).
func machinestatusDeadlines(m *v1alpha1.Machine, d Description) []deadline {
	var out []deadline
	hc := m.Spec.HealthCheck
	if nodeMissing(d) {
		timeout, source := v1alpha1.DefaultNodeStartupTimeoutSeconds, "default (spec.healthCheck.nodeStartupTimeoutSeconds unset)"
		if hc != nil && hc.NodeStartupTimeoutSeconds != nil {
			timeout, source = *hc.NodeStartupTimeoutSeconds, "spec.healthCheck.nodeStartupTimeoutSeconds"
		}
		// The controller starts this timer when InfrastructureReady turns True, not before.
		var start time.Time
		from := "not started: it counts from InfrastructureReady turning True"
		if c := condition(d, v1alpha1.MachineInfrastructureReadyCondition); c != nil && c.Status == metav1.ConditionTrue {
			start, from = c.LastTransitionTime.Time, "from InfrastructureReady's lastTransitionTime"
		}
		out = append(out, deadline{what: "node startup", start: start, timeout: seconds(timeout), source: source + ", " + from})
	}
	if m.Status.HealthCheck == nil {
		return out
	}
	for _, seen := range m.Status.HealthCheck.UnhealthyNodeConditions {
		timeout, source := v1alpha1.DefaultUnhealthyTimeoutSeconds, "default"
		if hc != nil && len(hc.UnhealthyNodeConditions) > 0 {
			timeout, source = 0, ""
			for _, u := range hc.UnhealthyNodeConditions {
				if u.Type == seen.Type && u.Status == seen.Status {
					timeout, source = u.TimeoutSeconds, "spec.healthCheck.unhealthyNodeConditions"
				}
			}
			if source == "" {
				continue
			}
		} else if seen.Type != corev1.NodeReady {
			continue
		}
		out = append(out, deadline{
			what:  fmt.Sprintf("Node %s=%s", seen.Type, seen.Status),
			start: seen.Since.Time, timeout: seconds(timeout),
			source: source + ", from status.healthCheck (first seen by the controller)",
		})
	}
	return out
}

// clusterAPIDeadlines are the timeouts of a Cluster API Machine's step: while deleting,
// spec.deletion's (drain from status.deletion.nodeDrainStartTime, volume detach, Node
// deletion); before its Node exists or while it is unhealthy, the checks of the
// MachineHealthChecks that select it.
func clusterAPIDeadlines(m *clusterv1.Machine, d Description, c *machineContexts) []deadline {
	var out []deadline
	if del := condition(d, "Deleting"); del != nil && del.Status == metav1.ConditionTrue {
		started := ptr.Deref(m.Status.Deletion, clusterv1.MachineDeletionStatus{})
		switch del.Reason {
		case clusterv1.MachineDeletingDrainingNodeReason:
			out = append(out, deadline{what: "drain", start: started.NodeDrainStartTime.Time, timeout: seconds(ptr.Deref(m.Spec.Deletion.NodeDrainTimeoutSeconds, 0)),
				source: "spec.deletion.nodeDrainTimeoutSeconds, from status.deletion.nodeDrainStartTime"})
		case clusterv1.MachineDeletingWaitingForVolumeDetachReason:
			out = append(out, deadline{what: "volume detach", start: started.WaitForNodeVolumeDetachStartTime.Time, timeout: seconds(ptr.Deref(m.Spec.Deletion.NodeVolumeDetachTimeoutSeconds, 0)),
				source: "spec.deletion.nodeVolumeDetachTimeoutSeconds, from status.deletion.waitForNodeVolumeDetachStartTime"})
		case clusterv1.MachineDeletingDeletingNodeReason:
			timeout, source := 10*time.Second, "default 10s (spec.deletion.nodeDeletionTimeoutSeconds unset)"
			if m.Spec.Deletion.NodeDeletionTimeoutSeconds != nil {
				timeout, source = seconds(*m.Spec.Deletion.NodeDeletionTimeoutSeconds), "spec.deletion.nodeDeletionTimeoutSeconds"
			}
			out = append(out, deadline{what: "Node deletion", timeout: timeout, source: source})
		}
		return out
	}
	mhcs := c.healthChecksOf(m)
	nodeReady := condition(d, "NodeReady")
	for _, mhc := range mhcs {
		switch {
		case nodeMissing(d):
			timeout, source := 10*time.Minute, "MachineHealthCheck "+mhc.Name+": default 10m (checks.nodeStartupTimeoutSeconds unset)"
			if t := mhc.Spec.Checks.NodeStartupTimeoutSeconds; t != nil {
				timeout, source = seconds(*t), "MachineHealthCheck "+mhc.Name+": checks.nodeStartupTimeoutSeconds"
			}
			start, from := infraReadySince(d)
			out = append(out, deadline{what: "node startup", start: start, timeout: timeout, source: source + ", from " + from})
		case nodeReady != nil && nodeReady.Status != metav1.ConditionTrue:
			for _, u := range mhc.Spec.Checks.UnhealthyNodeConditions {
				if u.Type != corev1.NodeReady || string(u.Status) != string(nodeReady.Status) {
					continue
				}
				out = append(out, deadline{what: fmt.Sprintf("Node Ready=%s", u.Status), start: nodeReady.LastTransitionTime.Time,
					timeout: seconds(ptr.Deref(u.TimeoutSeconds, 0)),
					source:  "MachineHealthCheck " + mhc.Name + ": checks.unhealthyNodeConditions, from NodeReady's lastTransitionTime"})
			}
		}
	}
	if len(mhcs) == 0 && (nodeMissing(d) || (nodeReady != nil && nodeReady.Status != metav1.ConditionTrue)) {
		out = append(out, deadline{what: "health check", source: "no MachineHealthCheck selects this Machine: nothing replaces it"})
	}
	return out
}

func seconds(s int32) time.Duration { return time.Duration(s) * time.Second }

// writeWaiting prints describe's "why is it stuck" lines: what the Machine waits for and since
// when, each deadline that applies (how long is left, where it comes from), and a hint.
func writeWaiting(b *strings.Builder, s *stuck, now time.Time) {
	if s == nil {
		return
	}
	field := func(label, value string) {
		fmt.Fprintf(b, "%-*s%s\n", labelWidth, label+":", value)
	}
	if s.waitingFor != "" {
		w := clean(s.waitingFor)
		if !s.since.IsZero() {
			w += " (operation started " + duration.HumanDuration(max(0, now.Sub(s.since))) + " ago)"
		}
		field("Waiting For", w)
	}
	for i, dl := range s.deadlines {
		var text string
		switch {
		case dl.timeout == 0 && dl.what == "health check":
			text = dl.source
		case dl.timeout == 0:
			text = fmt.Sprintf("%s: none (%s is 0 or unset: waits without limit)", dl.what, strings.SplitN(dl.source, ",", 2)[0])
		case dl.start.IsZero():
			text = fmt.Sprintf("%s: %s (%s)", dl.what, duration.HumanDuration(dl.timeout), dl.source)
		default:
			end := dl.start.Add(dl.timeout)
			left := "passed " + duration.HumanDuration(now.Sub(end)) + " ago"
			if end.After(now) {
				left = duration.HumanDuration(end.Sub(now)) + " left"
			}
			text = fmt.Sprintf("%s: %s, %s (%s)", dl.what, duration.HumanDuration(dl.timeout), left, dl.source)
		}
		if i == 0 {
			field("Deadline", text)
		} else {
			fmt.Fprintf(b, "%*s%s\n", labelWidth, "", text)
		}
	}
	if h := hints[s.reason]; h != "" {
		field("Hint", h)
	}
}
