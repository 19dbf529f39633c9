// Package aggregate derives what is derived from conditions: summaries of many conditions into
// one, and a Machine's Ready condition, phase and lastOperation.
//
// Conditions are the only source of truth. Controllers write granular conditions with package
// conditions; this package reads them and computes, without side effects:
//   - NewSummaryCondition / SetSummaryCondition: one condition (e.g. Ready) summarizing the
//     conditions in scope, with polarity, missing-condition handling and a bounded,
//     deterministic message; a Summarizer (NewSummarizer) checks the target and options once,
//     for a controller that summarizes the same scope on every reconcile;
//   - Phase: the one-word phase for humans and GUIs (first matching row of the phase table);
//   - LastOperation: the most recent operation and its state, from the conditions and the
//     previous value;
//   - Summarize: all three written on a Machine's status, reporting whether anything changed;
//   - ClusterAPIMachineStatus: the phase and lastOperation of a Cluster API v1beta2 Machine, read
//     as a machinestatus Machine (MachineFromClusterAPI), its previous lastOperation kept by the
//     caller (LastOperationAnnotation).
//
// Every function is pure and deterministic: the same object gives the same result, and applying
// a result again changes nothing. Times written anew come only from the clock passed as a
// conditions.SetOption (conditions.WithClock): the lastTransitionTime of a summary whose status
// changes (conditions.Set, which reads the real clock when none is given), and lastOperation's
// lastUpdated when (type, state) changes and no condition lastTransitionTime dates the change
// (a reason decided it; without a clock the best time the object gives is kept, never the wall
// clock); otherwise lastUpdated is a condition's lastTransitionTime. The clock is read only on a
// change. Controllers should decide from conditions, never from the phase.
//
// This package imports only package conditions, the machinestatus API, apimachinery and Cluster
// API's API types (sigs.k8s.io/cluster-api/api, never sigs.k8s.io/cluster-api), so other
// controllers and GUIs can use it without the machinestatus controller.
package aggregate
