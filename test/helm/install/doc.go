// Package install installs the Helm chart dist/chart with Helm's SDK into an embedded
// kube-apiserver + etcd (make test-helm; too costly for make test, see the Makefile): install,
// upgrade (the CRD updated in place), uninstall (the CRD kept), with bin/manager then run as the
// chart's ServiceAccount with the chart's arguments until it reconciles a Machine; and it runs the
// commands of docs/install.md, each way on a control plane of its own.
//
// test/helm is a module of its own: Helm v4's SDK needs newer Kubernetes modules (k8s.io/*
// v0.37, controller-runtime v0.25) than Cluster API lets the main module have.
package install
