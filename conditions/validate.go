package conditions

import (
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ValidationError says why a condition was rejected. Errs lists every violated rule with the
// field it concerns (type, status, reason, message, observedGeneration, lastTransitionTime).
type ValidationError struct {
	// Type is the type of the rejected condition (may itself be invalid).
	Type string
	// Errs are the violated rules.
	Errs field.ErrorList
}

// Error implements error.
func (e *ValidationError) Error() string {
	return fmt.Sprintf("invalid condition %q: %v", e.Type, e.Errs.ToAggregate())
}

// Problems returns the violated rules without their field paths (field.Error.ErrorBody),
// joined with "; "; "" when Errs is empty.
func (e *ValidationError) Problems() string {
	problems := make([]string, 0, len(e.Errs))
	for _, fe := range e.Errs {
		problems = append(problems, fe.ErrorBody())
	}
	return strings.Join(problems, "; ")
}

// maxTypeLength is the CRD schema's limit on a condition type (metav1.Condition's
// +kubebuilder:validation:MaxLength=316); ValidateCondition checks only its parts.
const maxTypeLength = 316

// Validate checks condition against the API server's rules for metav1.Condition and returns a
// *ValidationError listing every violation, or nil:
//   - type: a qualified name (optional DNS-subdomain prefix of at most 253 characters and "/",
//     then at most 63 characters of [A-Za-z0-9-_.] starting and ending alphanumeric), at most
//     316 characters in all;
//   - status: True, False or Unknown;
//   - reason: 1 to 1024 characters matching [A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?;
//   - message: at most 32768 bytes;
//   - observedGeneration: at least 0;
//   - lastTransitionTime: set.
//
// These are apimachinery's metav1 validation (ValidateCondition), which the API server runs for
// built-in types, plus the length of type that the CRD schema of metav1.Condition adds.
func Validate(condition metav1.Condition) error {
	path := field.NewPath("status", "conditions").Key(condition.Type)
	errs := metav1validation.ValidateCondition(condition, path)
	if len(condition.Type) > maxTypeLength {
		errs = append(errs, field.TooLong(path.Child("type"), "", maxTypeLength))
	}
	if len(errs) == 0 {
		return nil
	}
	return &ValidationError{Type: condition.Type, Errs: errs}
}

// ValidateType checks t against Validate's rules for a condition type and returns a
// *ValidationError whose Errs concern only the type, or nil.
func ValidateType(t string) error {
	if validType(t) {
		return nil
	}
	path := field.NewPath("status", "conditions").Key(t).Child("type")
	errs := metav1validation.ValidateLabelName(t, path)
	if len(t) > maxTypeLength {
		errs = append(errs, field.TooLong(path, "", maxTypeLength))
	}
	return &ValidationError{Type: t, Errs: errs}
}

// validType reports whether t passes Validate's rule for a condition type: the check of
// apimachinery's ValidateCondition (a qualified name) and the schema's length, without building
// the errors.
func validType(t string) bool {
	return len(t) <= maxTypeLength && len(validation.IsQualifiedName(t)) == 0
}

// validReason reports whether r passes Validate's rule for a reason.
func validReason(r string) bool {
	return Validate(metav1.Condition{Type: "ValidReason", Status: metav1.ConditionTrue, Reason: r, LastTransitionTime: metav1.Unix(1, 0)}) == nil
}
