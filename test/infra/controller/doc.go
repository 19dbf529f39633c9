// Package controller is the simulated infrastructure provider: it reconciles SimMachines
// (test/infra/api/v1alpha1) the way a real Cluster API infrastructure provider reconciles its
// machines, and creates a Node for each provisioned host that kwok then plays the kubelet of.
//
// It acts where the machinestatus controller only observes: it owns a finalizer on SimMachines,
// writes their spec.providerID and status, and creates, updates and deletes Nodes. The demo and
// the e2e tests run it next to the machinestatus manager so that Machines go through every
// phase against real objects.
package controller
