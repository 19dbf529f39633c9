package controllers

import (
	"errors"
	"fmt"
	"unicode/utf8"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/machinestatus/machinestatus/conditions"
	"github.com/machinestatus/machinestatus/internal/jsontype"
)

// contractStatus is what a referenced infrastructure or bootstrap object reports, read
// according to the Cluster API contract (v1beta2 first, then v1beta1).
type contractStatus struct {
	// Ready is status.initialization.provisioned / dataSecretCreated (v1beta2), else status.ready.
	Ready bool
	// ProviderID is spec.providerID (infrastructure only).
	ProviderID string
	// DataSecretName is status.dataSecretName (bootstrap only).
	DataSecretName string
	// FailureReason and FailureMessage are the terminal status.failureReason/failureMessage
	// (v1beta1) or status.deprecated.v1beta1.failureReason/failureMessage.
	FailureReason, FailureMessage string
	// ReadyMessage is the message of the object's own Ready condition, when it has one.
	ReadyMessage string
}

// contractState returns st for an object that exists: what obj reports per the contract or, when
// it does not follow the contract, the ContractViolation problem with a message of at most
// maxForeignMessage bytes naming the field. readyField is as for readContract.
func contractState(st refState, obj *unstructured.Unstructured, readyField string) refState {
	st.Exists = true
	status, err := readContract(obj, readyField)
	if err != nil {
		st.Problem = refContractViolation
		st.Unreadable = bound(fmt.Sprintf("%s does not follow the contract: %v", st, err))
		return st
	}
	st.Status = status
	return st
}

// maxProviderIDLength is the Machine CRD's MaxLength of spec.providerID and status.providerID.
const maxProviderIDLength = 512

// readContract reads obj per the contract; readyField is "provisioned" for infrastructure and
// "dataSecretCreated" for bootstrap objects. Missing and null fields read as their zero value.
// It returns a *jsontype.FieldError naming a spec.providerID longer than maxProviderIDLength
// characters, or the first field it reads that has the wrong JSON type
// (including an object on the way to it that is not an object, e.g. a string status) or, for
// status.conditions / status.v1beta2.conditions, that conditions.FromUnstructured cannot read.
func readContract(obj *unstructured.Unstructured, readyField string) (contractStatus, error) {
	var s contractStatus
	ready, found, err := jsontype.Nested(obj.Object, jsontype.Bool, "status", "initialization", readyField)
	if err != nil {
		return s, err
	}
	if !found {
		if ready, _, err = jsontype.Nested(obj.Object, jsontype.Bool, "status", "ready"); err != nil {
			return s, err
		}
	}
	s.Ready = ready

	var depReason, depMessage string
	strs := []struct {
		into *string
		path []string
	}{
		{&s.ProviderID, []string{"spec", "providerID"}},
		{&s.DataSecretName, []string{"status", "dataSecretName"}},
		{&s.FailureReason, []string{"status", "failureReason"}},
		{&s.FailureMessage, []string{"status", "failureMessage"}},
		{&depReason, []string{"status", "deprecated", "v1beta1", "failureReason"}},
		{&depMessage, []string{"status", "deprecated", "v1beta1", "failureMessage"}},
	}
	for _, f := range strs {
		if *f.into, _, err = jsontype.Nested(obj.Object, jsontype.String, f.path...); err != nil {
			return s, err
		}
	}
	if n := utf8.RuneCountInString(s.ProviderID); n > maxProviderIDLength {
		// The Machine's status.providerID, where it is copied, holds at most that many.
		return s, &jsontype.FieldError{Path: "spec.providerID", Err: fmt.Errorf("must be at most %d characters, not %d", maxProviderIDLength, n)}
	}
	if s.FailureReason == "" && s.FailureMessage == "" {
		s.FailureReason, s.FailureMessage = depReason, depMessage
	}
	if s.ReadyMessage, err = readyConditionMessage(obj); err != nil {
		return s, err
	}
	return s, nil
}

// readyConditionMessage returns the message of the object's Ready condition when it is not
// True, read with conditions.FromUnstructured (metav1 shape, Cluster API v1beta1 shape, or
// status.v1beta2.conditions), or "" when there is none. Entries another writer left invalid
// are skipped (conditions.SkippedError): they never hide the others. A conditions list it cannot
// read at all is a *jsontype.FieldError naming the field.
func readyConditionMessage(obj *unstructured.Unstructured) (string, error) {
	list, err := conditions.FromUnstructured(obj)
	var skipped *conditions.SkippedError
	if err != nil && !errors.As(err, &skipped) {
		var aerr *conditions.AdapterError
		if errors.As(err, &aerr) {
			return "", &jsontype.FieldError{Path: aerr.Field, Err: aerr.Err}
		}
		return "", &jsontype.FieldError{Path: "status.conditions", Err: err}
	}
	if c := conditions.Get(list, "Ready"); c != nil && c.Status != metav1.ConditionTrue {
		return c.Message, nil
	}
	return "", nil
}
