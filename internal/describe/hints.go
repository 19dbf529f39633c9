package describe

// hints maps a condition reason (of either API) to what to look at next: the one table of
// describe's Hint line. The reasons are machinestatus's and Cluster API's own; the hints are
// ours, so they print as they are.
var hints = map[string]string{
	// The Node never registered.
	"NodeStartupTimeout": "the Node never registered: check the instance's console and cloud-init (or ignition) log; the kubelet never joined",
	"NodeDoesNotExist":   "no Node has this Machine's providerID yet: check that the instance booted and the kubelet can reach the API server",
	// The infrastructure.
	"InfrastructureNotProvisioned": "the provider has not provisioned the host yet: read the infrastructure object's conditions and the provider's logs",
	"InfrastructureFailed":         "the provider reported a terminal failure: read the infrastructure object's status.failureMessage; the Machine must be replaced",
	"InfrastructureDoesNotExist":   "the infrastructure object named in spec.infrastructureRef does not exist: check its name and namespace",
	"BootstrapConfigNotReady":      "the bootstrap provider has not written the bootstrap data yet: read the bootstrap config's conditions",
	"BootstrapFailed":              "the bootstrap provider reported a failure: read the bootstrap config's status",
	// The Node's health.
	"UnhealthyNode":     "a Node condition lasted past its timeout: kubectl describe node NODE; the kubelet, its network or the host's resources",
	"NodeStatusUnknown": "the kubelet stopped posting node status: the host may be down or cut off; check it from the provider's console",
	"NodeNotReady":      "the Node is NotReady: kubectl describe node NODE (its conditions say which part, e.g. the network plugin)",
	"NodeUnhealthy":     "a Node condition is unhealthy: kubectl describe node NODE",
	"NodeDeleted":       "the Machine's Node was deleted: the host may be gone; the Machine will not recover by itself",
	// Remediation and deletion.
	"WaitingForRemediation":            "a MachineHealthCheck marked the Machine unhealthy: its owner (MachineSet, control plane) replaces it unless the health check's limits (maxUnhealthy, unhealthyRange) stop it",
	"DrainingNode":                     "the drain waits for Pods to leave: kubectl get pods -A --field-selector spec.nodeName=NODE; a PodDisruptionBudget often blocks an eviction",
	"WaitingForVolumeDetach":           "volumes are still attached to the Node: kubectl get volumeattachments | grep NODE",
	"WaitingForPreDrainHook":           "a pre-drain lifecycle hook annotation holds the Machine: the controller named in pre-drain.delete.hook.machine.cluster.x-k8s.io/* must remove it",
	"WaitingForPreTerminateHook":       "a pre-terminate lifecycle hook annotation holds the Machine: the controller named in pre-terminate.delete.hook.machine.cluster.x-k8s.io/* must remove it",
	"WaitingForInfrastructureDeletion": "the provider has not deleted the host yet: read the infrastructure object and the provider's logs",
	"DeletingNode":                     "the Node object is being deleted: check that the API server is reachable (nodeDeletionTimeoutSeconds bounds it)",
	// Updates.
	"KubeletVersionUpdating": "the kubelet runs another version than spec.version: the update has not reached the host yet",
	"UpdateFailed":           "the update failed: read the Updating condition's message and the provider's logs",
	"DrainingFailed":         "the drain failed: kubectl get pods -A --field-selector spec.nodeName=NODE; a PodDisruptionBudget often blocks an eviction",
	"WaitingForNodeDeletion": "the Node object is being deleted: check that the API server is reachable",
}
