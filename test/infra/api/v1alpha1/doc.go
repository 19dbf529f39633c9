// Package v1alpha1 holds infrastructure.machinestatus.io/v1alpha1, the API of the simulated
// infrastructure provider used by the demo and the e2e tests: the SimMachine kind.
//
// SimMachine follows the Cluster API v1beta2 infrastructure contract, so that the machinestatus
// controller reads it exactly as it reads a real provider's machine (e.g. an AWSMachine):
// spec.providerID, status.initialization.provisioned, status.conditions and the terminal
// status.failureReason / status.failureMessage. Its CRD carries the contract label
// cluster.x-k8s.io/v1beta2=v1alpha1, by which Cluster API's own controllers resolve a Machine's
// spec.infrastructureRef {apiGroup, kind, name} to this version (test/clusterapi runs them).
//
// +kubebuilder:object:generate=true
// +groupName=infrastructure.machinestatus.io
package v1alpha1
