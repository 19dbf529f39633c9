// Package clusterctl reads the add-on provider repository `make clusterctl` writes with Cluster
// API's own clusterctl library (sigs.k8s.io/cluster-api/cmd/clusterctl/client), offline from a
// local directory, as `clusterctl init --addon machinestatus` reads it from a release: the
// provider is declared in a clusterctl configuration file, its versions, components and
// metadata are read and processed by clusterctl's code. (clusterctl init itself installs
// cert-manager from the internet, which these tests cannot reach.)
package clusterctl
