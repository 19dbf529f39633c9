// Package controllers holds the manager's reconcilers and their write path. MachineReconciler
// observes machinestatus Machines (their Node, and through package refs the objects they
// reference), lets package status compute their conditions and package aggregate derive Ready,
// phase and lastOperation, and writes the status with server-side apply, owning only the fields
// and condition types it sets. ClusterAPIMachineReconciler keeps the lastOperation of Cluster API
// Machines in an annotation. Both emit events and metrics on changes and never act: no
// finalizer, no spec writes, no Node writes; a reconcile that computes what is stored sends
// nothing.
package controllers
