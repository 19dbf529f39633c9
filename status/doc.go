// Package status computes a machinestatus Machine's conditions from what the controller
// observed: the infrastructure and bootstrap objects it references (read by contract, Ref and
// ReadContract), its Node (found by providerID, MachineNode), the health-check timers and the
// kubelet version; then package aggregate derives Ready, phase and lastOperation (Compute).
//
// It holds the controller's rules and nothing else: no client, no cache, no clock (time comes in
// as Inputs.Now), so it is tested with plain `go test`. Package refs reads the referenced objects
// into Refs; package controllers reconciles, writes the status and reports.
package status
