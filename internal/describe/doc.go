// Package describe implements `machinestatus describe` (also the kubectl plugin
// `kubectl machinestatus describe`): it reads Machines from the cluster of the current
// kubeconfig — machinestatus.io/v1alpha1 Machines or Cluster API cluster.x-k8s.io/v1beta2
// Machines — and prints each one's phase, lastOperation and conditions, problems first.
//
// For a Cluster API Machine the phase and lastOperation come from
// aggregate.ClusterAPIMachineStatus (with the lastOperation a controller keeps in the
// machinestatus.io/last-operation annotation as its memory, when there is one) and the
// conditions from conditions.FromClusterAPIMachine; for a machinestatus Machine they are its
// status as the controller wrote it.
//
// One concern per file: resource.go turns the command line into the Machine APIs and names to
// read, fetch.go reads them (stream.go streams whole lists), description.go builds what is
// printed, text.go and structured.go print it, sort.go and customcolumns.go apply kubectl's own
// --sort-by and -o custom-columns, command.go wires the cobra command and its flags.
package describe
