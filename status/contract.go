package status

import (
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/machinestatus/machinestatus/conditions"
)

// Contract is what a referenced infrastructure or bootstrap object reports, read according to
// the Cluster API contract (v1beta2 first, then v1beta1).
type Contract struct {
	// Ready is status.initialization.provisioned / dataSecretCreated (v1beta2), else status.ready.
	Ready bool
	// ProviderID is spec.providerID (infrastructure only).
	ProviderID string
	// DataSecretName is status.dataSecretName (bootstrap only).
	DataSecretName string
	// FailureReason and FailureMessage are the terminal status.failureReason/failureMessage
	// (v1beta1) or status.deprecated.v1beta1.failureReason/failureMessage.
	FailureReason, FailureMessage string
	// ReadyMessage is the message of the object's own Ready condition when it is not True.
	ReadyMessage string
}

// contractFields are the contract's fields, as JSON reads them; a missing or null field is the
// zero value.
type contractFields struct {
	Spec struct {
		ProviderID string `json:"providerID"`
	} `json:"spec"`
	Status struct {
		Initialization map[string]json.RawMessage `json:"initialization"`
		Ready          bool                       `json:"ready"`
		DataSecretName string                     `json:"dataSecretName"`
		FailureReason  string                     `json:"failureReason"`
		FailureMessage string                     `json:"failureMessage"`
		Deprecated     struct {
			V1Beta1 struct {
				FailureReason  string `json:"failureReason"`
				FailureMessage string `json:"failureMessage"`
			} `json:"v1beta1"`
		} `json:"deprecated"`
	} `json:"status"`
}

// RefFromObject returns st for an object that exists: what obj reports per the contract or, when
// it does not follow the contract, ProblemContractViolation with a message of at most
// maxForeignMessage bytes naming the field. readyField is as for ReadContract.
func RefFromObject(st Ref, obj *unstructured.Unstructured, readyField string) Ref {
	st.Exists = true
	c, err := ReadContract(obj, readyField)
	if err != nil {
		st.Problem = ProblemContractViolation
		st.Unreadable = bound(fmt.Sprintf("%s does not follow the contract: %v", st, err))
		return st
	}
	st.Contract = c
	return st
}

// maxProviderIDLength is the Machine CRD's MaxLength of spec.providerID and status.providerID.
const maxProviderIDLength = 512

// ReadContract reads obj per the contract; readyField is "provisioned" for infrastructure and
// "dataSecretCreated" for bootstrap objects. Missing and null fields read as their zero value. A
// field of the wrong JSON type (or an object on the way to it that is not an object), a
// spec.providerID longer than 512 characters, a bootstrap object ready without
// status.dataSecretName, or conditions that conditions.FromUnstructured cannot read at all are
// an error naming the field, e.g. "status.ready: must be a boolean, not a string"; values are
// never quoted.
func ReadContract(obj *unstructured.Unstructured, readyField string) (Contract, error) {
	var c Contract
	data, err := json.Marshal(obj.Object)
	if err != nil {
		return c, err
	}
	var f contractFields
	if err := json.Unmarshal(data, &f); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) {
			return c, fmt.Errorf("%s: must be %s, not %s", typeErr.Field, jsonKind(typeErr.Type.Kind().String()), jsonKind(typeErr.Value))
		}
		return c, err
	}
	readyPath := "status.ready"
	c.Ready = f.Status.Ready
	if raw, ok := f.Status.Initialization[readyField]; ok && string(raw) != "null" {
		readyPath = "status.initialization." + readyField
		if err := json.Unmarshal(raw, &c.Ready); err != nil {
			return c, fmt.Errorf("%s: must be a boolean, not %s", readyPath, jsonKind(jsonValueKind(raw)))
		}
	}
	c.ProviderID, c.DataSecretName = f.Spec.ProviderID, f.Status.DataSecretName
	c.FailureReason, c.FailureMessage = f.Status.FailureReason, f.Status.FailureMessage
	if c.FailureReason == "" && c.FailureMessage == "" {
		c.FailureReason, c.FailureMessage = f.Status.Deprecated.V1Beta1.FailureReason, f.Status.Deprecated.V1Beta1.FailureMessage
	}
	if readyField == "dataSecretCreated" && c.Ready && c.DataSecretName == "" {
		// The bootstrap contract names the data with the flag; Cluster API refuses a ready
		// object without it ("got empty status.dataSecretName field").
		return c, fmt.Errorf("status.dataSecretName: must be set when %s is true", readyPath)
	}
	if n := utf8.RuneCountInString(c.ProviderID); n > maxProviderIDLength {
		return c, fmt.Errorf("spec.providerID: must be at most %d characters, not %d", maxProviderIDLength, n)
	}
	if c.ReadyMessage, err = readyConditionMessage(obj); err != nil {
		return c, err
	}
	return c, nil
}

// jsonKind names a JSON type as the errors of this package do: the value kinds of
// json.UnmarshalTypeError ("string", "number", "bool", "array", "object") and the Go kinds of the
// fields ("string", "bool", "struct", "ptr").
func jsonKind(k string) string {
	switch k {
	case "string":
		return "a string"
	case "bool", "ptr":
		return "a boolean"
	case "array", "slice":
		return "a list"
	case "object", "struct", "map":
		return "an object"
	}
	return "a " + k
}

// jsonValueKind is the kind of a JSON value as json.UnmarshalTypeError names it.
func jsonValueKind(raw json.RawMessage) string {
	switch raw[0] {
	case '"':
		return "string"
	case '{':
		return "object"
	case '[':
		return "array"
	case 't', 'f':
		return "bool"
	}
	return "number"
}

// readyConditionMessage returns the message of the object's Ready condition when it is not
// True, read with conditions.FromUnstructured, or "" when there is none. Entries another writer
// left invalid are skipped (conditions.SkippedError); a conditions list that cannot be read at
// all is an error naming the field.
func readyConditionMessage(obj *unstructured.Unstructured) (string, error) {
	list, err := conditions.FromUnstructured(obj)
	var skipped *conditions.SkippedError
	if err != nil && !errors.As(err, &skipped) {
		var aerr *conditions.AdapterError
		if errors.As(err, &aerr) {
			return "", fmt.Errorf("%s: %w", aerr.Field, aerr.Err)
		}
		return "", fmt.Errorf("status.conditions: %w", err)
	}
	if c := conditions.Get(list, "Ready"); c != nil && c.Status != metav1.ConditionTrue {
		return c.Message, nil
	}
	return "", nil
}
