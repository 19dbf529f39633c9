package conditions

import (
	"errors"
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Reasons an adapter writes when a foreign condition's reason cannot be used as it is.
const (
	// NoReasonReportedReason replaces an empty reason: Cluster API v1beta1 conditions usually
	// have none when True, and a Node condition may be written without one.
	NoReasonReportedReason = "NoReasonReported"
	// InvalidReasonReportedReason replaces a reason that is not a valid metav1.Condition reason
	// (e.g. one with spaces, which a Node or a Cluster API v1beta1 condition may carry); the
	// original reason, quoted, starts the message.
	InvalidReasonReportedReason = "InvalidReasonReported"
)

// List is a read-only list of conditions. It implements Getter, so Get, IsTrue, GetReason and
// the other free functions read it.
//
// The adapters FromNode, FromUnstructured and FromClusterAPIMachine return a List: they read the
// conditions of an object this package does not own, whatever their shape, into
// metav1.Conditions, so that one library serves every shape. They share these rules, applied in
// this order to each foreign condition:
//   - type must be a valid condition type, status True, False or Unknown, observedGeneration at
//     least 0, and lastTransitionTime set; an entry that breaks these rules (or is not a
//     condition at all) was written by another writer and is skipped: the adapter returns every
//     other entry and a *SkippedError listing an *AdapterError per skipped entry, naming the
//     object and the field. One broken entry never hides the others, and the object is never
//     modified. Only a list that cannot be read at all (e.g. status.conditions is not a list)
//     gives no conditions and an *AdapterError;
//   - an empty reason becomes NoReasonReportedReason; a reason that does not match the
//     metav1.Condition pattern becomes InvalidReasonReportedReason, and the original reason,
//     quoted and cut to 256 bytes, is put in front of the message;
//   - the message is cut to MaxMessageBytes as TruncateMessage does;
//   - lastTransitionTime is truncated to seconds, as Set stores it;
//   - when several conditions have the same type, the first one is kept and the others are
//     dropped (they are still checked): meta.FindStatusCondition, and so Get, reads the first;
//   - the result is sorted like Set sorts (Ready first, then alphabetical by type).
//
// Callers that only read may use the List whatever the error when it is a *SkippedError
// (errors.As), as the machinestatus controller does.
//
// Every condition in a List an adapter returns passes Validate. An adapter never panics, never
// modifies the object it reads, and returns nil, nil for a nil object.
type List []metav1.Condition

// GetConditions implements Getter.
func (l List) GetConditions() []metav1.Condition { return l }

var _ Getter = List(nil)

// AdapterError says that the conditions of a foreign object cannot be read: which object, which
// field and why.
type AdapterError struct {
	// Object names the object: its kind, then namespace/name or, when cluster-scoped, its name,
	// e.g. "Node worker-0" or "DockerMachine default/worker-0".
	Object string
	// Field is the path of the offending field, e.g. "status.conditions[2].status"; the index is
	// the position in the object's own list.
	Field string
	// Err says what is wrong with the field.
	Err error
}

// Error implements error.
func (e *AdapterError) Error() string {
	return fmt.Sprintf("cannot read conditions of %s: %s: %v", e.Object, e.Field, e.Err)
}

// Unwrap returns Err.
func (e *AdapterError) Unwrap() error { return e.Err }

// SkippedError says that an adapter skipped entries of a foreign object's conditions that break
// the rules shared by every adapter (see List); the List returned with it holds every other
// entry. errors.As finds each skipped entry's *AdapterError through Unwrap.
type SkippedError struct {
	// Object names the object, as AdapterError.Object does.
	Object string
	// Skipped has one error per skipped entry, in the order of the object's list.
	Skipped []*AdapterError
}

// Error implements error.
func (e *SkippedError) Error() string {
	parts := make([]string, 0, len(e.Skipped))
	for _, s := range e.Skipped {
		parts = append(parts, s.Field+": "+s.Err.Error())
	}
	return fmt.Sprintf("skipped %d invalid conditions of %s: %s", len(e.Skipped), e.Object, strings.Join(parts, "; "))
}

// Unwrap returns the skipped entries' errors.
func (e *SkippedError) Unwrap() []error {
	errs := make([]error, len(e.Skipped))
	for i, s := range e.Skipped {
		errs[i] = s
	}
	return errs
}

// maxQuotedReasonBytes bounds the part of an invalid reason that is kept in the message.
const maxQuotedReasonBytes = 256

// collector gathers the conditions an adapter reads from one object and applies the shared
// rules above.
type collector struct {
	object  string
	list    List
	seen    map[string]bool
	skipped []*AdapterError
}

func newCollector(kind, namespace, name string) *collector {
	if kind == "" {
		kind = "object"
	}
	if name == "" {
		name = "<unnamed>"
	}
	if namespace != "" {
		name = namespace + "/" + name
	}
	return &collector{object: kind + " " + name, seen: map[string]bool{}}
}

// fail returns an *AdapterError about field of the collector's object.
func (col *collector) fail(field string, err error) *AdapterError {
	return &AdapterError{Object: col.object, Field: field, Err: err}
}

// skip records that the entry at field was skipped because of err (an *AdapterError from add or
// fail).
func (col *collector) skip(err error) {
	var aerr *AdapterError
	if errors.As(err, &aerr) {
		col.skipped = append(col.skipped, aerr)
	}
}

// add checks and normalises c, read from field, and keeps it unless a condition of the same
// type was kept before. An invalid c is recorded as skipped.
func (col *collector) add(field string, c metav1.Condition) {
	if err := col.check(field, c); err != nil {
		col.skip(err)
	}
}

// check is add, returning why c is invalid instead of recording it.
func (col *collector) check(field string, c metav1.Condition) error {
	if err := checkType(c.Type); err != nil {
		return col.fail(field+".type", err)
	}
	switch c.Status {
	case metav1.ConditionTrue, metav1.ConditionFalse, metav1.ConditionUnknown:
	default:
		return col.fail(field+".status", fmt.Errorf("must be True, False or Unknown, not %q", c.Status))
	}
	if c.ObservedGeneration < 0 {
		return col.fail(field+".observedGeneration", fmt.Errorf("must not be negative, not %d", c.ObservedGeneration))
	}
	if c.LastTransitionTime.IsZero() {
		return col.fail(field+".lastTransitionTime", errors.New("missing"))
	}
	c.Reason, c.Message = mapReason(c.Reason, c.Message)
	c.Message = TruncateMessage(c.Message)
	c.LastTransitionTime = StoredTime(c.LastTransitionTime.Time)
	// c now passes Validate: the checks above are its rules field by field (the type's and the
	// reason's through ValidateType and validReason), worded for a foreign object's field.
	if col.seen[c.Type] {
		return nil
	}
	col.seen[c.Type] = true
	col.list = append(col.list, c)
	return nil
}

// result returns the kept conditions in the package's order (nil when there are none), and a
// *SkippedError when entries were skipped.
func (col *collector) result() (List, error) {
	Sort(col.list)
	if len(col.skipped) > 0 {
		return col.list, &SkippedError{Object: col.object, Skipped: col.skipped}
	}
	return col.list, nil
}

// checkType returns why t is not a valid condition type (ValidateType's rule), or nil.
func checkType(t string) error {
	if t == "" {
		return errors.New("missing")
	}
	var invalid *ValidationError
	if err := ValidateType(t); errors.As(err, &invalid) {
		return fmt.Errorf("%q is not a valid condition type: %s", t, invalid.Problems())
	}
	return nil
}

// mapReason returns the reason and message to store for a foreign reason and message.
func mapReason(reason, message string) (string, string) {
	switch {
	case reason == "":
		return NoReasonReportedReason, message
	case validReason(reason):
		return reason, message
	}
	quoted := fmt.Sprintf("reason %q", TruncateTo(reason, maxQuotedReasonBytes))
	if message == "" {
		return InvalidReasonReportedReason, quoted
	}
	return InvalidReasonReportedReason, quoted + ": " + message
}
