package clusterapi

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
	infrav1 "github.com/machinestatus/machinestatus/test/infra/api/v1alpha1"
	"github.com/machinestatus/machinestatus/test/internal/managerlog"
	"github.com/machinestatus/machinestatus/test/kwok"
)

const (
	// worker is the Machine whose lifecycle is recorded; controlPlane initializes the Cluster.
	worker       = "worker-0"
	controlPlane = "control-plane-0"

	// quiet is how long a Machine must stay unchanged (Cluster API and our side both done
	// writing) for its state to count as settled.
	quiet = 3 * time.Second
	// stepTimeout bounds each step (generous: the machine is shared).
	stepTimeout = 4 * time.Minute
	// poll is how often a step reads the Machine.
	poll = 250 * time.Millisecond
)

// step is one settled state of the lifecycle: what the test does, the Cluster API state that
// ends it, and what our side must say then.
type step struct {
	name string
	do   func(context.Context, *harness) error
	// reached is true for the Cluster API state this step waits for.
	reached func(*clusterv1.Machine) bool
	// wantType and wantState are our lastOperation's; wantCause its deletion cause.
	wantType  v1alpha1.MachineOperationType
	wantState v1alpha1.MachineOperationState
	wantCause string
}

func lifecycle() []step {
	return []step{
		{
			name: "created; the infrastructure is being provisioned",
			do: func(ctx context.Context, h *harness) error {
				return h.createMachine(ctx, clusterName, worker, false, never, never, keepFinalizer)
			},
			reached: func(m *clusterv1.Machine) bool {
				return m.Status.Phase == string(clusterv1.MachinePhasePending) &&
					hasCondition(m, clusterv1.MachineInfrastructureReadyCondition, metav1.ConditionFalse, "")
			},
			wantType: v1alpha1.MachineOperationCreate, wantState: v1alpha1.MachineOperationStateProcessing,
		},
		{
			name: "infrastructure provisioned, no Node yet",
			do: func(ctx context.Context, h *harness) error {
				return h.patchSimMachine(ctx, worker, func(s *infrav1.SimMachineSpec) { s.ProvisionAfterSeconds = 0 })
			},
			reached: func(m *clusterv1.Machine) bool {
				return m.Status.Phase == string(clusterv1.MachinePhaseProvisioned) &&
					hasCondition(m, clusterv1.MachineInfrastructureReadyCondition, metav1.ConditionTrue, "")
			},
			wantType: v1alpha1.MachineOperationCreate, wantState: v1alpha1.MachineOperationStateProcessing,
		},
		{
			name: "Node registered and Ready",
			do: func(ctx context.Context, h *harness) error {
				return h.patchSimMachine(ctx, worker, func(s *infrav1.SimMachineSpec) { s.RegisterNodeAfterSeconds = 0 })
			},
			reached: func(m *clusterv1.Machine) bool {
				return m.Status.Phase == string(clusterv1.MachinePhaseRunning) &&
					hasCondition(m, clusterv1.MachineNodeReadyCondition, metav1.ConditionTrue, "") &&
					hasCondition(m, clusterv1.MachineHealthCheckSucceededCondition, metav1.ConditionTrue, "")
			},
			wantType: v1alpha1.MachineOperationCreate, wantState: v1alpha1.MachineOperationStateSuccessful,
		},
		{
			name: "Node NotReady, within the health check's timeout",
			do: func(ctx context.Context, h *harness) error {
				return h.labelNode(ctx, worker, kwok.NotReadyLabel, true)
			},
			reached: func(m *clusterv1.Machine) bool {
				return hasCondition(m, clusterv1.MachineNodeReadyCondition, metav1.ConditionFalse, "") &&
					hasCondition(m, clusterv1.MachineHealthCheckSucceededCondition, metav1.ConditionTrue, "")
			},
			wantType: v1alpha1.MachineOperationHealthCheck, wantState: v1alpha1.MachineOperationStateProcessing,
		},
		{
			name: "MachineHealthCheck failed the Machine (no remediation)",
			reached: func(m *clusterv1.Machine) bool {
				return hasCondition(m, clusterv1.MachineHealthCheckSucceededCondition, metav1.ConditionFalse, "")
			},
			wantType: v1alpha1.MachineOperationHealthCheck, wantState: v1alpha1.MachineOperationStateFailed,
		},
		{
			name: "Node Ready again, health check passed",
			do: func(ctx context.Context, h *harness) error {
				return h.labelNode(ctx, worker, kwok.NotReadyLabel, false)
			},
			reached: func(m *clusterv1.Machine) bool {
				return hasCondition(m, clusterv1.MachineNodeReadyCondition, metav1.ConditionTrue, "") &&
					hasCondition(m, clusterv1.MachineHealthCheckSucceededCondition, metav1.ConditionTrue, "")
			},
			wantType: v1alpha1.MachineOperationHealthCheck, wantState: v1alpha1.MachineOperationStateSuccessful,
		},
		{
			name: "deleted; draining the Node (a Pod holds the drain)",
			do: func(ctx context.Context, h *harness) error {
				if err := h.c.Create(ctx, drainBlocker(worker)); err != nil {
					return err
				}
				return h.c.Delete(ctx, &clusterv1.Machine{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: worker}})
			},
			reached: func(m *clusterv1.Machine) bool {
				return hasCondition(m, clusterv1.MachineDeletingCondition, metav1.ConditionTrue, clusterv1.MachineDeletingDrainingNodeReason)
			},
			wantType: v1alpha1.MachineOperationDelete, wantState: v1alpha1.MachineOperationStateProcessing,
			wantCause: causeDeletionRequested,
		},
		{
			name: "drained, Node and infrastructure deleted; a finalizer keeps the object",
			do: func(ctx context.Context, h *harness) error {
				pod := drainBlocker(worker)
				if err := h.removeFinalizer(ctx, pod); err != nil {
					return err
				}
				return client.IgnoreNotFound(h.c.Delete(ctx, pod, client.GracePeriodSeconds(0)))
			},
			reached: func(m *clusterv1.Machine) bool {
				return hasCondition(m, clusterv1.MachineDeletingCondition, metav1.ConditionTrue, clusterv1.MachineDeletingDeletionCompletedReason) &&
					!contains(m.Finalizers, clusterv1.MachineFinalizer)
			},
			wantType: v1alpha1.MachineOperationDelete, wantState: v1alpha1.MachineOperationStateSuccessful,
			wantCause: causeDeletionRequested,
		},
	}
}

// Options configure Run.
type Options struct {
	// StateDir receives the kubeconfigs and logs (relative to the repository root unless
	// absolute).
	StateDir string
	// Out receives what starts, and one block per settled step (nil: discarded).
	Out io.Writer
}

// Step is one settled step as recorded.
type Step struct {
	LifecycleRow
	// Want is the lastOperation type and state our side must say, and its deletion cause.
	WantType  v1alpha1.MachineOperationType
	WantState v1alpha1.MachineOperationState
	WantCause string
	// Operation is our lastOperation (nil when there is none).
	Operation *v1alpha1.LastOperation
	// Justified is false for a difference from Cluster API's phase that the docs do not justify.
	Justified bool
}

// Mismatch says where a step's recorded state is not what the step wants ("" when it is).
func (s Step) Mismatch() string {
	var out []string
	if !s.Justified {
		out = append(out, fmt.Sprintf("our phase %s, Cluster API's %s: a difference docs/clusterapi.md does not justify", s.Phase, s.ClusterAPIPhase))
	}
	if p := causeProblem(s.Cause); p != "" {
		out = append(out, p)
	}
	wantCause := ""
	if s.WantType == v1alpha1.MachineOperationDelete {
		wantCause = s.WantCause
	}
	if s.Operation == nil || s.Operation.Type != s.WantType || s.Operation.State != s.WantState || s.Cause != wantCause {
		out = append(out, fmt.Sprintf("our lastOperation %s (deletion cause %q), want %s %s (deletion cause %q)", describeOp(s.Operation), s.Cause, s.WantType, s.WantState, wantCause))
	}
	return strings.Join(out, "; ")
}

// Run starts the harness and the Cluster, drives the worker Machine through the lifecycle
// under Cluster API's controllers and returns every settled step. The error is for what kept
// the lifecycle from running (a step that never settled, a failed write) or an ERROR line of
// our manager; the comparison is the caller's.
func Run(ctx context.Context, o Options) (steps []Step, err error) {
	if o.Out == nil {
		o.Out = io.Discard
	}
	h, err := startHarness(ctx, o.StateDir, o.Out)
	if err != nil {
		return nil, err
	}
	defer h.stop()
	defer func() {
		if err != nil {
			err = fmt.Errorf("%w\n%s", err, h.fleet.LogHint())
		}
	}()
	fmt.Fprintln(o.Out, "Cluster API v1.14 controllers (Cluster, Machine, MachineSet, MachineDeployment, MachineHealthCheck, ClusterCache): in this process")
	if err := h.createClusters(ctx); err != nil {
		return nil, err
	}
	if steps, err = h.runLifecycle(ctx, o.Out); err != nil {
		return steps, err
	}
	return steps, h.checkManager()
}

// runLifecycle drives the worker Machine of Cluster clusterName through the lifecycle and
// returns every settled step.
func (h *harness) runLifecycle(ctx context.Context, out io.Writer) ([]Step, error) {
	var steps []Step
	for i, s := range lifecycle() {
		if s.do != nil {
			if err := s.do(ctx, h); err != nil {
				return steps, fmt.Errorf("step %d (%s): %w", i+1, s.name, err)
			}
		}
		m, view, err := h.settle(ctx, s.reached)
		if err != nil {
			return steps, fmt.Errorf("step %d (%s): %w", i+1, s.name, err)
		}
		st := Step{
			LifecycleRow: LifecycleRow{Step: s.name, Row: recordRow(lifecycleConditions, m, view), Cause: view.cause},
			WantType:     s.wantType, WantState: s.wantState, WantCause: s.wantCause, Operation: view.op,
		}
		st.Difference, st.Justified = justification(st.ClusterAPIPhase, view.phase)
		steps = append(steps, st)
		fmt.Fprintf(out, "\n%d. %s\n   Cluster API:   phase %-12s %s\n   machinestatus: phase %-12s lastOperation %s\n",
			i+1, s.name, st.ClusterAPIPhase, strings.ReplaceAll(st.Conditions, "<br>", ", "), st.Phase, describeOp(view.op))
		if st.Difference != "" {
			fmt.Fprintf(out, "   difference justified in docs/clusterapi.md, section %q\n", st.Difference)
		}
	}
	return steps, h.checkDeletedEverything(ctx)
}

// checkManager checks that our manager is still running and logged nothing at ERROR: under
// its least-privilege role, a request the role does not allow would have been logged.
func (h *harness) checkManager() error {
	select {
	case <-h.fleet.Manager.Done():
		return fmt.Errorf("our manager exited: %w", h.fleet.Manager.ExitError())
	default:
	}
	lines, err := managerlog.Unexpected(h.fleet.Manager.LogPath)
	if err != nil {
		return err
	}
	if len(lines) > 0 {
		return fmt.Errorf("our manager logged %d ERROR lines (%s), e.g.:\n%s",
			len(lines), h.fleet.Manager.LogPath, strings.Join(lines[:min(len(lines), 5)], "\n"))
	}
	return nil
}

// settle waits until the worker reaches a state and stays there, unchanged, for quiet, with our
// manager caught up (its annotation is what this version of the Machine gives); it returns that
// settled Machine and our view of it.
func (h *harness) settle(ctx context.Context, reached func(*clusterv1.Machine) bool) (*clusterv1.Machine, ourView, error) {
	var (
		m        *clusterv1.Machine
		view     ourView
		version  string
		since    time.Time
		lastSeen string
	)
	err := wait.PollUntilContextTimeout(ctx, poll, stepTimeout, true, func(ctx context.Context) (bool, error) {
		got := &clusterv1.Machine{}
		if err := h.c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: worker}, got); err != nil {
			return false, err
		}
		lastSeen = fmt.Sprintf("phase %q, conditions %s", got.Status.Phase, conditionsOf(got))
		if !reached(got) {
			version = ""
			return false, nil
		}
		if got.ResourceVersion != version {
			version, since = got.ResourceVersion, time.Now()
			return false, nil
		}
		v := viewOf(got)
		if !v.settled || time.Since(since) < quiet {
			return false, nil
		}
		m, view = got, v
		return true, nil
	})
	if err != nil {
		return nil, ourView{}, fmt.Errorf("not settled (last seen: %s): %w", lastSeen, err)
	}
	return m, view, nil
}

// checkDeletedEverything checks that deletion drained and deleted the Node and the
// infrastructure, then releases the worker and waits for it to go away.
func (h *harness) checkDeletedEverything(ctx context.Context) error {
	if err := h.c.Get(ctx, client.ObjectKey{Name: worker}, &corev1.Node{}); !apierrors.IsNotFound(err) {
		return fmt.Errorf("node %s after deletion: want NotFound, got %w", worker, err)
	}
	if err := h.c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: worker}, &infrav1.SimMachine{}); !apierrors.IsNotFound(err) {
		return fmt.Errorf("SimMachine %s after deletion: want NotFound, got %w", worker, err)
	}
	m := &clusterv1.Machine{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: worker}}
	if err := h.removeFinalizer(ctx, m); err != nil {
		return err
	}
	if err := wait.PollUntilContextTimeout(ctx, poll, stepTimeout, true, func(ctx context.Context) (bool, error) {
		err := h.c.Get(ctx, client.ObjectKeyFromObject(m), &clusterv1.Machine{})
		return apierrors.IsNotFound(err), client.IgnoreNotFound(err)
	}); err != nil {
		return fmt.Errorf("the worker Machine did not go away once released: %w", err)
	}
	return nil
}

func hasCondition(m *clusterv1.Machine, t string, s metav1.ConditionStatus, reason string) bool {
	for _, c := range m.Status.Conditions {
		if c.Type == t && c.Status == s && (reason == "" || c.Reason == reason) {
			return true
		}
	}
	return false
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func describeOp(op *v1alpha1.LastOperation) string {
	if op == nil {
		return "none"
	}
	return fmt.Sprintf("%s %s: %s", op.Type, op.State, op.Description)
}

// conditionsOf lists the Machine's conditions as type=status/reason, for messages.
func conditionsOf(m *clusterv1.Machine) string {
	var parts []string
	for _, c := range m.Status.Conditions {
		parts = append(parts, fmt.Sprintf("%s=%s/%s", c.Type, c.Status, c.Reason))
	}
	return strings.Join(parts, " ")
}
