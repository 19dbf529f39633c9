// Package aggregate derives what is derived from conditions: summaries of many conditions into
// one, and a Machine's Ready condition, phase and lastOperation.
//
// Conditions are the only source of truth. Controllers write granular conditions with package
// conditions; this package reads them and computes, without side effects:
//   - NewSummaryCondition / SetSummaryCondition: one condition (e.g. Ready) summarizing the
//     conditions in scope, with polarity, missing-condition handling and a bounded,
//     deterministic message;
//   - Phase: the one-word phase for humans and GUIs (first matching row of the phase table);
//   - LastOperation: the most recent operation and its state, from the conditions and the
//     previous value;
//   - Summarize: all three written on a Machine's status, reporting whether anything changed;
//   - ClusterAPIMachineStatus: the phase and lastOperation of a Cluster API v1beta2 Machine, read
//     as a machinestatus Machine (MachineFromClusterAPI), its previous lastOperation kept by the
//     caller (LastOperationAnnotation).
//
// Every function is pure and deterministic: the same object gives the same result, and applying
// a result again changes nothing. No logic here reads the wall clock; lastOperation's time is
// taken from condition lastTransitionTimes. The only time written anew is the
// lastTransitionTime of a summary whose status changes, which conditions.Set takes from the
// clock passed as a conditions.SetOption (conditions.WithClock; the real clock when none is
// given). Controllers should decide from conditions, never from the phase.
//
// This package imports only package conditions, the machinestatus API, apimachinery and Cluster
// API's API types (sigs.k8s.io/cluster-api/api, never sigs.k8s.io/cluster-api), so other
// controllers and GUIs can use it without the machinestatus controller.
package aggregate
