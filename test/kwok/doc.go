// Package kwok starts kwok (https://kwok.sigs.k8s.io, built by `make tools` into bin/kwok) as
// the kubelet of the Nodes that the simulated infrastructure provider (test/infra) creates, for
// the demo and the e2e tests.
//
// kwok runs with the node stages its module ships (kustomize/stage/node/fast: a new Node
// becomes Ready; kustomize/stage/node/heartbeat: a Ready Node heartbeats) and this package's
// node-not-ready stage: labelling a Node NotReadyLabel=true makes kwok set its Ready condition
// False; removing the label lets the fast stage make it Ready again.
package kwok
