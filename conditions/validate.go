package conditions

import (
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
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
// joined with "; ", e.g. `Invalid value: "-x": a valid C identifier must ...`; "" when Errs is
// empty. Callers that name the field themselves (an invalid type of a summary's scope, a
// foreign condition an adapter skips) quote it.
func (e *ValidationError) Problems() string {
	problems := make([]string, 0, len(e.Errs))
	for _, fe := range e.Errs {
		problems = append(problems, fe.ErrorBody())
	}
	return strings.Join(problems, "; ")
}

// maxTypeLength is the CRD schema's limit on a condition type (metav1.Condition's
// +kubebuilder:validation:MaxLength=316). ValidateCondition checks the prefix (253) and the name
// (63) separately, so it accepts a 317-character type that a CRD-backed API server rejects.
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
// The rules are apimachinery's metav1 validation (ValidateCondition), the same code the API
// server runs for built-in types, plus the 316-character limit on type that the CRD schema of
// metav1.Condition adds. A valid condition is recognised first by hand-written checks of the
// same rules, so that it costs no allocation; only the others run through apimachinery's
// regular expressions, which also word the errors.
func Validate(condition metav1.Condition) error {
	if quickValid(condition) {
		return nil
	}
	return validate(condition)
}

// ValidateType checks t against Validate's rules for a condition type (a qualified name of at
// most 316 characters, see Validate) and returns a *ValidationError whose Errs concern only the
// type, or nil. Summaries, aggregates and the adapters check types with it.
func ValidateType(t string) error {
	if quickValidType(t) {
		return nil
	}
	return validate(metav1.Condition{Type: t, Status: metav1.ConditionTrue, Reason: "ValidType", LastTransitionTime: metav1.Unix(1, 0)})
}

// ValidateTypes is ValidateType of each of types, in order: nil when every one is valid, else
// the *ValidationError of the first invalid one. Types that share a prefix (e.g. a provider's
// example.com/...) cost less than with ValidateType one by one: a prefix found valid is not
// checked again for the types after it. It allocates only to return an error.
func ValidateTypes(types []string) error {
	var known string
	for _, t := range types {
		if !quickValidTypeKnown(t, &known) {
			if err := ValidateType(t); err != nil {
				return err
			}
		}
	}
	return nil
}

// validReason reports whether r passes Validate's rule for a reason (1 to 1024 characters
// matching [A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?).
func validReason(r string) bool {
	return quickValidReason(r) ||
		validate(metav1.Condition{Type: "ValidReason", Status: metav1.ConditionTrue, Reason: r, LastTransitionTime: metav1.Unix(1, 0)}) == nil
}

// validate is Validate without the quick path: apimachinery's validation and the type length.
func validate(condition metav1.Condition) error {
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
