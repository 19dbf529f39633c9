// Package controllers holds the machinestatus reconciler. It observes Machines, their Nodes and
// the infrastructure and bootstrap objects they reference, writes granular conditions, and lets
// package aggregate derive Ready, phase and lastOperation from them.
//
// It observes and never acts: no finalizer, no spec writes, no Node writes. Status is written
// with server-side apply, owning only the fields and condition types this controller sets, so
// conditions written by other controllers on the same Machine are kept; a reconcile that
// computes the status already stored sends nothing.
package controllers
