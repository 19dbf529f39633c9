// Package conditions reads and writes metav1.Conditions on any object that exposes them through
// the two-method Getter/Setter pair (e.g. *v1alpha1.Machine), and reads conditions from the
// shapes other objects carry them in.
//
// # Semantics
//
// These follow the Kubernetes API conventions:
//   - A missing condition is Unknown: IsTrue and IsFalse report false for it, IsUnknown true.
//   - lastTransitionTime moves only when status changes. A reason, message or
//     observedGeneration change is still a change (Set returns true) but keeps the time.
//   - observedGeneration is taken from the object's metadata.generation.
//   - Times are truncated to seconds, the precision the API server stores, so a status survives
//     a JSON round trip unchanged.
//   - Conditions are kept in one stable order: Ready first, then alphabetical by type
//     (Compare). Summaries and printers use the same order.
//   - Nothing invalid is stored: Set and the Mark functions validate first and return a
//     *ValidationError instead of writing. Validate applies the API server's rules for
//     metav1.Condition; messages longer than 32768 bytes are cut at a UTF-8 boundary and end
//     with TruncationMarker rather than rejected.
//   - Polarity is not this package's concern: it keeps no registry. Whoever summarizes says
//     which types are negative (NegativePolarityConditionTypes; the Machine catalog's are
//     v1alpha1.IsNegativePolarity), as Cluster API's conditions package does.
//
// # Summaries
//
// NewSummaryCondition and SetSummaryCondition summarize the conditions of one object whose types
// are in scope (ForConditionTypes) into one condition, e.g. Ready; NewAggregateCondition
// summarizes one condition type across many objects, e.g. the Machines of a pool. Both are
// generic: any types, any object. Their reasons are fixed (reasons.go), their messages one line
// and bounded. Package aggregate applies them to Machines (their Ready condition).
//
// # Several writers
//
// NewPatch records what one writer changed between the version it read and the version it
// wants; Patch.Apply replays that onto the latest version: changes to different types merge, the
// same change on both sides is not a conflict, and a change to a type someone else changed in
// between is a *ConflictError (retryable) unless the type is owned (OwnedConditionTypes) or
// ForceOverwrite is set. Server-side apply with list-map semantics (status.conditions is a
// list-map keyed by type) is the other safe way; the machinestatus controller uses it.
//
// # Adapters
//
// FromNode, FromUnstructured (metav1 shape, Cluster API v1beta1 shape with severity, and
// status.v1beta2.conditions) and FromClusterAPIMachine read foreign conditions into a List, a
// read-only Getter whose conditions all pass Validate. An entry another writer left invalid is
// skipped and named in a *SkippedError (an *AdapterError per entry, naming the object and the
// field); conditions that cannot be read at all are an *AdapterError. Never a panic.
//
// # Time
//
// No function reads the wall clock unless the caller leaves the clock option unset; tests pass
// a fixed clock with WithClock.
//
// This package imports only apimachinery, k8s.io/api, k8s.io/utils' clock and Cluster API's api
// module (for its adapter): it knows nothing of Machines' rules, nor of the controller.
package conditions
