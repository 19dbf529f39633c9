package main

import (
	"context"
	"fmt"
	"time"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/test/kwok"
)

// The sample objects (config/samples) the scenario works with.
const (
	machinesFile    = "config/samples/machinestatus_v1alpha1_machine.yaml"
	simMachinesFile = "config/samples/infrastructure_v1alpha1_simmachine.yaml"

	hero    = "worker-0" // walks through every phase; its Node has the same name
	other   = "worker-1" // stays Running
	standby = "spare-0"  // spec.standby: true

	oldVersion = "v1.36.3"
	newVersion = "v1.36.4"

	// otherFinalizer is a fictional other controller's finalizer that keeps the deleted
	// Machine visible while the demo shows Deleting and Deleted.
	otherFinalizer = "example.com/keep"

	// healthCheckTimeout is worker-0's unhealthyNodeConditions timeout (see the sample).
	healthCheckTimeout = 15 * time.Second
)

// step is one scene: an action, then the phases it must lead to.
type step struct {
	title string
	// what says what happens and why the phase follows, for the reader.
	what string
	// do acts like a user, an infrastructure or a kubelet would, with kubectl.
	do func(ctx context.Context, e *env) error
	// want lists the phases to wait for; gone means the Machine no longer exists.
	want []expect
	// extra is how much longer than the step timeout the step may wait.
	extra time.Duration
	// show, when set, lists more kubectl commands to print after the Machines.
	show [][]string
}

// expect is a Machine in a phase, or gone.
type expect struct {
	name  string
	phase v1alpha1.MachinePhase
	gone  bool
}

func phase(name string, p v1alpha1.MachinePhase) expect { return expect{name: name, phase: p} }

func steps() []step {
	return []step{{
		title: "Pending: the Machines exist, their infrastructure does not yet",
		what: "kubectl apply creates three Machines whose SimMachines do not exist yet, so InfrastructureReady is\n" +
			"Unknown (InfrastructureDoesNotExist). spare-0 has spec.standby: true and shows Standby at once.",
		do:   kubectl("apply", "-f", machinesFile),
		want: []expect{phase(hero, v1alpha1.MachinePhasePending), phase(other, v1alpha1.MachinePhasePending), phase(standby, v1alpha1.MachinePhaseStandby)},
	}, {
		title: "Provisioning: the SimMachines exist and are being provisioned",
		what: "The SimMachines are created. The simulated provider reports status.initialization.provisioned=false\n" +
			"until provisionAfterSeconds (5 s for worker-0) have passed: InfrastructureReady=False.",
		do:   kubectl("apply", "-f", simMachinesFile),
		want: []expect{phase(hero, v1alpha1.MachinePhaseProvisioning)},
	}, {
		title: "Provisioned: worker-0's infrastructure is ready, its Node not yet registered",
		what: "The provider set spec.providerID=sim://default/worker-0 and provisioned=true: InfrastructureReady=True.\n" +
			"The host needs registerNodeAfterSeconds (5 s) more before its Node registers.",
		want: []expect{phase(hero, v1alpha1.MachinePhaseProvisioned)},
	}, {
		title: "Running: the Node registered and kwok made it Ready",
		what: "The provider created Node worker-0 (spec.providerID, annotation kwok.x-k8s.io/node=fake, kubelet " + oldVersion + ").\n" +
			"kwok's node-initialize stage set its Ready condition True; the manager found the Node by providerID.",
		want: []expect{phase(hero, v1alpha1.MachinePhaseRunning), phase(other, v1alpha1.MachinePhaseRunning), phase(standby, v1alpha1.MachinePhaseStandby)},
		show: [][]string{{"get", "simmachines", "-o", "wide"}, {"get", "nodes", "-o", "wide"}},
	}, {
		title: "Unknown: kwok flips the Node NotReady",
		what: "Labelling the Node " + kwok.NotReadyLabel + "=true makes kwok's node-not-ready stage set Ready=False.\n" +
			"The Machine was Running before, so it is Unknown while the 15 s health-check timeout runs.",
		do:   kubectl("label", "node", hero, kwok.NotReadyLabel+"=true"),
		want: []expect{phase(hero, v1alpha1.MachinePhaseUnknown)},
	}, {
		title: "Failed: the Node stayed NotReady longer than the health-check timeout",
		what: "Ready=False outlasted timeoutSeconds: 15, so HealthCheckSucceeded=False (UnhealthyNode), a terminal\n" +
			"signal while it lasts. Nothing is done to the Node; the manager requeued at the deadline. Ready's\n" +
			"message names each failing condition by its type (\"HealthCheckSucceeded: <its message>\").",
		want:  []expect{phase(hero, v1alpha1.MachinePhaseFailed)},
		extra: healthCheckTimeout,
	}, {
		title: "Recovered: kwok makes the Node Ready again",
		what: "Removing the label lets kwok's node-initialize stage set Ready=True again. Failed is not sticky:\n" +
			"the phase is recomputed from the conditions and the Machine is Running.",
		do:   kubectl("label", "node", hero, kwok.NotReadyLabel+"-"),
		want: []expect{phase(hero, v1alpha1.MachinePhaseRunning)},
	}, {
		title: "Updating: the Machine wants a newer kubelet",
		what: "spec.version goes from " + oldVersion + " to " + newVersion + " while the Node still reports kubelet " + oldVersion + ":\n" +
			"Updating=True (KubeletVersionUpdating).",
		do:   kubectl("patch", "machine", hero, "--type=merge", "-p", `{"spec":{"version":"`+newVersion+`"}}`),
		want: []expect{phase(hero, v1alpha1.MachinePhaseUpdating)},
	}, {
		title: "Running: the simulated updater upgraded the kubelet",
		what: "The updater sets the SimMachine's kubeletVersion to " + newVersion + "; the provider updates the Node's\n" +
			"status.nodeInfo.kubeletVersion, which now matches spec.version: Updating=False, lastOperation Update Successful.",
		do:   kubectl("patch", "simmachine", hero, "--type=merge", "-p", `{"spec":{"kubeletVersion":"`+newVersion+`"}}`),
		want: []expect{phase(hero, v1alpha1.MachinePhaseRunning)},
	}, {
		title: "Draining: the Node is cordoned",
		what:  "kubectl cordon sets the Node's spec.unschedulable: Draining=True (NodeCordoned).",
		do:    kubectl("cordon", hero),
		want:  []expect{phase(hero, v1alpha1.MachinePhaseDraining)},
	}, {
		title: "Deleting: the Machine is deleted, its infrastructure and Node still exist",
		what: "Another (fictional) controller holds the finalizer " + otherFinalizer + " so that the Machine stays visible.\n" +
			"Its deletionTimestamp is set: Deleting=True (DrainingNode); machinestatus itself never blocks deletion.",
		do: sequence(
			kubectl("patch", "machine", hero, "--type=merge", "-p", `{"metadata":{"finalizers":["`+otherFinalizer+`"]}}`),
			kubectl("delete", "machine", hero, "--wait=false"),
		),
		want: []expect{phase(hero, v1alpha1.MachinePhaseDeleting)},
	}, {
		title: "Deleted: the infrastructure and the Node are gone",
		what: "Deleting the SimMachine makes the provider delete Node worker-0 and release its own finalizer.\n" +
			"Nothing the Machine depends on is left (DeletionCompleted); only the other controller's finalizer keeps it.",
		do:   kubectl("delete", "simmachine", hero, "--wait=false"),
		want: []expect{phase(hero, v1alpha1.MachinePhaseDeleted)},
	}, {
		title: "Gone: the other controller releases its finalizer",
		what:  "With " + otherFinalizer + " removed the Machine disappears; worker-1 is still Running and spare-0 in Standby.",
		do:    kubectl("patch", "machine", hero, "--type=merge", "-p", `{"metadata":{"finalizers":null}}`),
		want:  []expect{{name: hero, gone: true}, phase(other, v1alpha1.MachinePhaseRunning), phase(standby, v1alpha1.MachinePhaseStandby)},
		show:  [][]string{{"get", "simmachines,nodes"}},
	}}
}

// runScenario plays every step: act, wait for the observed phases, print what kubectl shows.
func (e *env) runScenario(ctx context.Context) error {
	all := steps()
	for i, s := range all {
		banner(fmt.Sprintf("Step %d/%d  %s", i+1, len(all), s.title))
		fmt.Println(s.what)
		fmt.Println()
		t := time.Now()
		if s.do != nil {
			if err := s.do(ctx, e); err != nil {
				return fmt.Errorf("step %d (%s): %w", i+1, s.title, err)
			}
		}
		if err := e.wait(ctx, e.o.stepTimeout+s.extra, s.want); err != nil {
			return fmt.Errorf("step %d (%s): %w", i+1, s.title, err)
		}
		fmt.Printf("\n(observed after %s)\n\n", time.Since(t).Round(100*time.Millisecond))
		if err := e.show(ctx, s); err != nil {
			return fmt.Errorf("step %d (%s): %w", i+1, s.title, err)
		}
	}
	return nil
}

// show prints the Machines table, extra tables and, while it exists, the hero's description.
func (e *env) show(ctx context.Context, s step) error {
	if err := e.kubectl(ctx, "get", "machines", "-o", "wide"); err != nil {
		return err
	}
	for _, args := range s.show {
		fmt.Println()
		if err := e.kubectl(ctx, args...); err != nil {
			return err
		}
	}
	for _, w := range s.want {
		if w.name == hero && w.gone {
			return nil
		}
	}
	fmt.Println()
	return e.kubectl(ctx, "describe", "machine", hero)
}

// kubectl returns an action that runs kubectl with args.
func kubectl(args ...string) func(context.Context, *env) error {
	return func(ctx context.Context, e *env) error { return e.kubectl(ctx, args...) }
}

// sequence returns an action that runs actions in order.
func sequence(actions ...func(context.Context, *env) error) func(context.Context, *env) error {
	return func(ctx context.Context, e *env) error {
		for _, a := range actions {
			if err := a(ctx, e); err != nil {
				return err
			}
		}
		return nil
	}
}
