// Package aggregate derives what a Machine's conditions imply: its Ready condition, phase and
// lastOperation, and the same for a Cluster API v1beta2 Machine. Generic summaries of conditions
// on any object (NewSummaryCondition, NewAggregateCondition and their options) live in package
// conditions; this package applies them to Machines and holds the Machine rules:
//   - Summarize: Ready, lastOperation, phase and Stalled written on a Machine's status, reporting
//     whether anything changed;
//   - Phase: the phase of the first row of the phase table (PhaseRows) a Machine matches;
//   - LastOperation: the most recent operation and its state, from the conditions and the
//     previous value;
//   - ConditionPolarity: the one polarity rule of Ready and of printers;
//   - ClusterAPIMachineStatus and MachineFromClusterAPI: a Cluster API Machine read as a
//     machinestatus Machine, its previous lastOperation kept by the caller
//     (LastOperationAnnotation);
//   - Cluster and Pool: the cluster and pool a Machine belongs to, from its labels.
//
// Every function is pure and deterministic: the same object gives the same result, and applying
// a result again changes nothing. A time written anew is the now the caller passes (a reconcile's
// instant), and only on a change; the wall clock is never read. Controllers should decide from
// conditions, never from the phase. The rules with tables generated from this package:
// docs/rules.md.
//
// This package imports only package conditions, the machinestatus API, apimachinery and Cluster
// API's API types (sigs.k8s.io/cluster-api/api, never sigs.k8s.io/cluster-api), so other
// controllers and GUIs can use it without the machinestatus controller.
package aggregate
