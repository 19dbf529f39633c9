// Package conditions reads and writes metav1.Conditions on any object that exposes them through
// the two-method Getter/Setter pair.
//
// Semantics (Kubernetes API conventions):
//   - A missing condition is Unknown: IsTrue and IsFalse report false for it, IsUnknown true.
//   - lastTransitionTime moves only when status changes; a reason, message or
//     observedGeneration change is still a change, but keeps the time.
//   - Times are truncated to seconds, the precision the API server stores, so a status survives
//     a JSON round trip unchanged.
//   - Conditions are kept in a stable order: Ready first, then alphabetical by type.
//   - Nothing invalid is stored: Set and the Mark functions validate first and return a
//     *ValidationError instead of writing.
//
// No function reads the wall clock unless the caller leaves the clock option unset; tests pass
// a fixed clock with WithClock.
//
// This package imports only apimachinery, k8s.io/api and the machinestatus API (for the
// catalog's polarity defaults); it never depends on the controller.
package conditions
