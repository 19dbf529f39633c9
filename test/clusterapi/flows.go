package clusterapi

import (
	"context"

	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
	infrav1 "github.com/machinestatus/machinestatus/test/infra/api/v1alpha1"
)

// Our lastOperations in the flows.
var (
	createSucceeded  = typeState{v1alpha1.MachineOperationCreate, v1alpha1.MachineOperationStateSuccessful}
	deleteProcessing = typeState{v1alpha1.MachineOperationDelete, v1alpha1.MachineOperationStateProcessing}
	deleteSucceeded  = typeState{v1alpha1.MachineOperationDelete, v1alpha1.MachineOperationStateSuccessful}
)

const (
	// remediationTimeout is how long the remediating MachineHealthChecks let a Node be NotReady.
	remediationTimeout = 10
	// startupTimeout is how long the never-registering pool's MachineHealthCheck waits for a
	// Node: long enough for the suite to see the Machine settle and keep it first.
	startupTimeout = 30
	// newVersion is the version a rollout moves to.
	newVersion = "v1.36.4"
)

// flows are the pools' scenarios, run side by side, each in its own MachineDeployment of
// Cluster clusterName; a Machine the suite keeps (keepPool) stays, once deleted, until released.
func flows() []flow {
	doAll := func(fs ...func(ctx context.Context, h *harness, pool string) error) func(ctx context.Context, h *harness, pool string) error {
		return func(ctx context.Context, h *harness, pool string) error {
			for _, f := range fs {
				if err := f(ctx, h, pool); err != nil {
					return err
				}
			}
			return nil
		}
	}
	create := func(replicas int32, sim infrav1.SimMachineSpec) func(ctx context.Context, h *harness, pool string) error {
		return func(ctx context.Context, h *harness, pool string) error {
			return h.createPool(ctx, poolSpec{name: pool, cluster: clusterName, replicas: replicas, sim: sim})
		}
	}
	healthCheck := func(unhealthy, startup int32) func(ctx context.Context, h *harness, pool string) error {
		return func(ctx context.Context, h *harness, pool string) error {
			return h.c.Create(ctx, poolHealthCheck(poolSpec{name: pool, cluster: clusterName}, unhealthy, startup))
		}
	}
	scale := func(replicas int32) func(ctx context.Context, h *harness, pool string) error {
		return func(ctx context.Context, h *harness, pool string) error { return h.scalePool(ctx, pool, replicas) }
	}
	keep := func(ctx context.Context, h *harness, pool string) error { return h.keepPool(ctx, pool) }
	release := func(match func(*clusterv1.Machine) bool) func(ctx context.Context, h *harness, pool string) error {
		return func(ctx context.Context, h *harness, pool string) error { return h.releasePool(ctx, pool, match) }
	}
	edit := func(edit func(*clusterv1.Machine)) func(ctx context.Context, h *harness, pool string) error {
		return func(ctx context.Context, h *harness, pool string) error {
			return h.editPool(ctx, pool, everyMachine, edit)
		}
	}

	runningOf := func(n int, healthChecked bool) group {
		return group{n: n, state: running(healthChecked), op: createSucceeded}
	}
	return []flow{
		{name: "scale", steps: []flowStep{
			{
				name: "created with 0 replicas, scaled to 3", do: doAll(create(0, infrav1.SimMachineSpec{}), scale(3)),
				expect: []group{runningOf(3, false)},
			},
			{
				name: "scaled to 1: two Machines deleted (a test finalizer keeps them)", do: doAll(keep, scale(1)),
				expect: []group{
					runningOf(1, false),
					{n: 2, state: deletedKept, op: deleteSucceeded, cause: causeDeletionRequested},
				},
			},
			{
				name: "released: gone", do: release(deleting),
				expect: []group{runningOf(1, false)}, gone: 2,
			},
		}},
		{name: "rollout", steps: []flowStep{
			{
				name: "created with 2 replicas", do: create(2, infrav1.SimMachineSpec{}),
				expect: []group{{n: 2, state: upToDate(false, true), op: createSucceeded}},
			},
			{
				name: "version " + kubeletVersion + " → " + newVersion + " (a template whose kubelet reports it), maxSurge 1, maxUnavailable 0: a new Machine, then an old one deleted (a test finalizer keeps it: the rollout waits for it to go)",
				do:   doAll(keep, func(ctx context.Context, h *harness, pool string) error { return h.rollOut(ctx, pool) }),
				expect: []group{
					{n: 1, state: upToDate(false, true), op: createSucceeded},
					{n: 1, state: upToDate(false, false), op: createSucceeded},
					{n: 1, state: deletedKept, op: deleteSucceeded, cause: causeRollout},
				},
			},
			{
				name: "released: gone; the rollout goes on: another new Machine, the last old one deleted (kept)", do: release(deleting),
				expect: []group{
					{n: 2, state: upToDate(false, true), op: createSucceeded},
					{n: 1, state: deletedKept, op: deleteSucceeded, cause: causeRollout},
				},
				gone: 1,
			},
			{
				name: "released: gone", do: release(deleting),
				expect: []group{{n: 2, state: upToDate(false, true), op: createSucceeded}}, gone: 1,
			},
		}},
		{name: "remediation", steps: []flowStep{
			{
				name:   "created with 2 replicas and a MachineHealthCheck that remediates (default triggerIf)",
				do:     doAll(create(2, infrav1.SimMachineSpec{}), healthCheck(remediationTimeout, 600)),
				expect: []group{runningOf(2, true)},
			},
			{
				name: "a Node NotReady past the timeout: the MachineSet deletes its Machine (a test finalizer keeps it) and waits for it to go",
				do: doAll(keep, func(ctx context.Context, h *harness, pool string) error {
					_, err := h.nodeNotReady(ctx, pool)
					return err
				}),
				expect: []group{
					runningOf(1, true),
					{n: 1, state: deletedKept, op: deleteSucceeded, cause: causeRemediationUnhealthyNode},
				},
			},
			{
				name: "released: gone; the MachineSet creates a replacement", do: release(deleting),
				expect: []group{runningOf(2, true)}, gone: 1,
			},
		}},
		{name: "hooks", steps: []flowStep{
			{
				name: "created with 1 replica", do: create(1, infrav1.SimMachineSpec{}),
				expect: []group{runningOf(1, false)},
			},
			{
				name:   "a pre-drain and a pre-terminate hook set, scaled to 0: the pre-drain hook holds the deletion",
				do:     doAll(keep, edit(setAnnotation(preDrainHook)), edit(setAnnotation(preTerminateHook)), scale(0)),
				expect: []group{{n: 1, state: deletingAt(clusterv1.MachineDeletingWaitingForPreDrainHookReason), op: deleteProcessing, cause: causeDeletionRequested}},
			},
			{
				name:   "pre-drain hook released: drained; the pre-terminate hook holds the deletion",
				do:     edit(dropAnnotation(preDrainHook)),
				expect: []group{{n: 1, state: deletingAt(clusterv1.MachineDeletingWaitingForPreTerminateHookReason), op: deleteProcessing, cause: causeDeletionRequested}},
			},
			{
				name:   "pre-terminate hook released: infrastructure and Node deleted (a test finalizer keeps the Machine)",
				do:     edit(dropAnnotation(preTerminateHook)),
				expect: []group{{n: 1, state: deletedKept, op: deleteSucceeded, cause: causeDeletionRequested}},
			},
			{name: "released: gone", do: release(deleting), gone: 1},
		}},
		{name: "never-registers", steps: []flowStep{
			{
				name:   "created with 1 replica whose Node never registers, and a MachineHealthCheck (node startup timeout 30 s)",
				do:     doAll(create(1, infrav1.SimMachineSpec{RegisterNodeAfterSeconds: never}), healthCheck(remediationTimeout, startupTimeout)),
				expect: []group{{n: 1, state: provisionedNoNode, op: createProcessing}},
			},
			{
				name:   "node startup timeout: the MachineSet deletes the Machine (a test finalizer keeps it) and waits for it to go",
				do:     keep,
				expect: []group{{n: 1, state: deletedKept, op: deleteSucceeded, cause: causeRemediationNodeStartupTimeout}},
			},
			{
				name:   "released: gone; the MachineSet creates a replacement",
				do:     release(deleting),
				expect: []group{{n: 1, state: provisionedNoNode, op: createProcessing}},
				gone:   1,
			},
			{
				name:   "the replacement times out in turn (the remediation loop)",
				do:     keep,
				expect: []group{{n: 1, state: deletedKept, op: deleteSucceeded, cause: causeRemediationNodeStartupTimeout}},
			},
			{name: "scaled to 0, released: gone", do: doAll(scale(0), release(everyMachine)), gone: 1},
		}},
		{name: "unheld", steps: []flowStep{
			{
				name: "created with 3 replicas", do: create(3, infrav1.SimMachineSpec{}),
				expect: []group{runningOf(3, false)},
			},
			{
				name: "scaled to 0 with no test finalizer: each Machine gone 70–320 ms after Cluster API's Deleting=True/DeletionCompleted",
				do:   scale(0), gone: 3,
			},
		}},
	}
}
