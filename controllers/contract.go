package controllers

import (
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/machinestatus/machinestatus/conditions"
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

// contractError says that an object does not follow the contract (a field has the wrong type).
type contractError struct {
	field string
	err   error
}

func (e *contractError) Error() string { return fmt.Sprintf("%s: %v", e.field, e.err) }

// readContract reads obj per the contract; readyField is "provisioned" for infrastructure and
// "dataSecretCreated" for bootstrap objects. It returns a *contractError when a field has the
// wrong type.
func readContract(obj *unstructured.Unstructured, readyField string) (contractStatus, error) {
	var s contractStatus
	ready, found, err := unstructured.NestedBool(obj.Object, "status", "initialization", readyField)
	if err != nil {
		return s, &contractError{"status.initialization." + readyField, err}
	}
	if !found {
		if ready, _, err = unstructured.NestedBool(obj.Object, "status", "ready"); err != nil {
			return s, &contractError{"status.ready", err}
		}
	}
	s.Ready = ready

	strs := []struct {
		into *string
		path []string
	}{
		{&s.ProviderID, []string{"spec", "providerID"}},
		{&s.DataSecretName, []string{"status", "dataSecretName"}},
		{&s.FailureReason, []string{"status", "failureReason"}},
		{&s.FailureMessage, []string{"status", "failureMessage"}},
	}
	for _, f := range strs {
		v, _, err := unstructured.NestedString(obj.Object, f.path...)
		if err != nil {
			return s, &contractError{strings.Join(f.path, "."), err}
		}
		*f.into = v
	}
	if s.FailureReason == "" && s.FailureMessage == "" {
		dep := []string{"status", "deprecated", "v1beta1"}
		s.FailureReason, _, _ = unstructured.NestedString(obj.Object, append(dep, "failureReason")...)
		s.FailureMessage, _, _ = unstructured.NestedString(obj.Object, append(dep, "failureMessage")...)
	}
	s.ReadyMessage = readyConditionMessage(obj)
	return s, nil
}

// readyConditionMessage returns the message of the object's Ready condition when it is not
// True, read with conditions.FromUnstructured (metav1 shape, Cluster API v1beta1 shape, or
// status.v1beta2.conditions), or "" when there is none or it is malformed.
func readyConditionMessage(obj *unstructured.Unstructured) string {
	list, err := conditions.FromUnstructured(obj)
	if err != nil {
		return ""
	}
	if c := conditions.Get(list, "Ready"); c != nil && c.Status != metav1.ConditionTrue {
		return c.Message
	}
	return ""
}
