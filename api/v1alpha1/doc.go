// Package v1alpha1 holds the machinestatus.io/v1alpha1 API: the Machine kind, its condition
// catalog, and the phase and lastOperation vocabulary derived from the conditions.
//
// Conditions are the only source of truth. Phase and LastOperation are computed from them by
// package aggregate so that humans, GUIs and simple tools can read a Machine at a glance;
// controllers should decide from conditions, never from the phase.
//
// This package imports only apimachinery and k8s.io/api so that any client can use it.
//
// +kubebuilder:object:generate=true
// +groupName=machinestatus.io
package v1alpha1
