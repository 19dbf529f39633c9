package conditions_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/machinestatus/machinestatus/conditions"
)

// TestValidate gives verdicts only: which conditions the API server would accept.
func TestValidate(t *testing.T) {
	valid := metav1.Condition{
		Type:               "Ready",
		Status:             T,
		Reason:             "NoIssuesReported",
		Message:            "all good",
		ObservedGeneration: 1,
		LastTransitionTime: sec(t0),
	}
	with := func(edit func(*metav1.Condition)) metav1.Condition {
		c := valid
		edit(&c)
		return c
	}
	withType := func(typ string) metav1.Condition { return with(func(c *metav1.Condition) { c.Type = typ }) }
	withReason := func(r string) metav1.Condition { return with(func(c *metav1.Condition) { c.Reason = r }) }

	prefix253 := strings.Repeat("a", 61) + "." + strings.Repeat("b", 63) + "." + strings.Repeat("c", 63) + "." + strings.Repeat("d", 63) // 253 characters
	name63 := "N" + strings.Repeat("x", 61) + "Y"

	tests := []struct {
		name      string
		condition metav1.Condition
		wantValid bool
	}{
		{"valid", valid, true},
		{"empty message", with(func(c *metav1.Condition) { c.Message = "" }), true},
		{"zero observedGeneration", with(func(c *metav1.Condition) { c.ObservedGeneration = 0 }), true},

		// type: a qualified name.
		{"type: one character", withType("a"), true},
		{"type: one digit", withType("1"), true},
		{"type: dashes, dots and underscores inside", withType("Node-Ready_v1.2"), true},
		{"type: 63-character name", withType(name63), true},
		{"type: 64-character name", withType(name63 + "Z"), false},
		{"type: with a prefix", withType("example.com/Ready"), true},
		{"type: 253-character prefix and 63-character name (317 characters)", withType(prefix253 + "/" + name63), false},
		{"type: 252-character prefix and 63-character name (316 characters)", withType(prefix253[1:] + "/" + name63), true},
		{"type: 253-character prefix and 62-character name (316 characters)", withType(prefix253 + "/" + name63[1:]), true},
		{"type: 254-character prefix", withType("a" + prefix253 + "/Ready"), false},
		{"type: upper case in the prefix", withType("Example.com/Ready"), false},
		{"type: prefix with an underscore", withType("ex_ample.com/Ready"), false},
		{"type: prefix ends with a dot", withType("example.com./Ready"), false},
		{"type: empty prefix", withType("/Ready"), false},
		{"type: empty name after the prefix", withType("example.com/"), false},
		{"type: two slashes", withType("example.com/a/Ready"), false},
		{"type: empty", withType(""), false},
		{"type: space", withType("Node Ready"), false},
		{"type: starts with a dash", withType("-Ready"), false},
		{"type: ends with a dot", withType("Ready."), false},
		{"type: colon", withType("Node:Ready"), false},
		{"type: non-ASCII", withType("Prêt"), false},

		// status.
		{"status: False", with(func(c *metav1.Condition) { c.Status = F }), true},
		{"status: Unknown", with(func(c *metav1.Condition) { c.Status = U }), true},
		{"status: empty", with(func(c *metav1.Condition) { c.Status = "" }), false},
		{"status: lower case", with(func(c *metav1.Condition) { c.Status = "true" }), false},
		{"status: other", with(func(c *metav1.Condition) { c.Status = "Maybe" }), false},

		// reason.
		{"reason: one letter", withReason("R"), true},
		{"reason: underscore, comma and colon inside", withReason("Reason_A,ReasonB:C1"), true},
		{"reason: ends with an underscore", withReason("Reason_"), true},
		{"reason: 1024 characters", withReason("R" + strings.Repeat("x", 1023)), true},
		{"reason: 1025 characters", withReason("R" + strings.Repeat("x", 1024)), false},
		{"reason: empty", withReason(""), false},
		{"reason: starts with a digit", withReason("1Reason"), false},
		{"reason: starts with an underscore", withReason("_Reason"), false},
		{"reason: ends with a comma", withReason("Reason,"), false},
		{"reason: ends with a colon", withReason("Reason:"), false},
		{"reason: space", withReason("Not Ready"), false},
		{"reason: dash", withReason("Not-Ready"), false},
		{"reason: dot", withReason("Not.Ready"), false},
		{"reason: non-ASCII", withReason("Prêt"), false},

		// message: bytes, not runes.
		{"message: 32768 bytes", with(func(c *metav1.Condition) { c.Message = strings.Repeat("x", 32768) }), true},
		{"message: 32769 bytes", with(func(c *metav1.Condition) { c.Message = strings.Repeat("x", 32769) }), false},
		{"message: 16384 two-byte runes", with(func(c *metav1.Condition) { c.Message = strings.Repeat("é", 16384) }), true},
		{"message: 16385 two-byte runes (fewer than 32768 runes)", with(func(c *metav1.Condition) { c.Message = strings.Repeat("é", 16385) }), false},

		// observedGeneration.
		{"observedGeneration: -1", with(func(c *metav1.Condition) { c.ObservedGeneration = -1 }), false},

		// lastTransitionTime.
		{"lastTransitionTime: zero", with(func(c *metav1.Condition) { c.LastTransitionTime = metav1.Time{} }), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := conditions.Validate(tt.condition)
			if gotValid := err == nil; gotValid != tt.wantValid {
				t.Fatalf("Validate() = %v, want valid=%v", err, tt.wantValid)
			}
			var verr *conditions.ValidationError
			if err != nil && (!errors.As(err, &verr) || len(verr.Errs) == 0) {
				t.Errorf("Validate() = %v (%T), want a *conditions.ValidationError with at least one violation", err, err)
			}
		})
	}
}

// TestValidationErrorProblems: every violated rule, without field paths, in order.
func TestValidationErrorProblems(t *testing.T) {
	err := conditions.ValidateType("-x/y z")
	var invalid *conditions.ValidationError
	if !errors.As(err, &invalid) || len(invalid.Errs) < 2 {
		t.Fatalf("ValidateType(%q) = %v, want a ValidationError with several problems", "-x/y z", err)
	}
	// Both of apimachinery's problems, in its order, without the field path.
	got := invalid.Problems()
	if !strings.HasPrefix(got, `Invalid value: "-x/y z": prefix part `) ||
		!strings.Contains(got, `; Invalid value: "-x/y z": name part `) || strings.Contains(got, "status.conditions") {
		t.Errorf("Problems() = %q, want the prefix's then the name's problem, joined with \"; \", without field paths", got)
	}
	if got := (&conditions.ValidationError{}).Problems(); got != "" {
		t.Errorf("Problems() of no errors = %q, want empty", got)
	}
}

// TestValidateType: the violations of a type alone, each on the type's field; the schema's
// length only beyond 316 characters.
func TestValidateType(t *testing.T) {
	prefix253 := strings.Repeat("a", 61) + "." + strings.Repeat("b", 63) + "." + strings.Repeat("c", 63) + "." + strings.Repeat("d", 63)
	name62 := "N" + strings.Repeat("x", 60) + "Y"
	tests := []struct {
		name string
		typ  string
		want []field.ErrorType
	}{
		{"valid", "Ready", nil},
		{"valid, 316 characters", prefix253 + "/" + name62, nil},
		{"name part ends with a dash, 316 characters: not too long", prefix253 + "/" + name62[:61] + "-", []field.ErrorType{field.ErrorTypeInvalid}},
		{"both parts valid, 317 characters: too long only", prefix253 + "/" + name62 + "Z", []field.ErrorType{field.ErrorTypeTooLong}},
		{"name part ends with a dash, 317 characters", prefix253 + "/" + name62 + "-", []field.ErrorType{field.ErrorTypeInvalid, field.ErrorTypeTooLong}},
		{"invalid prefix and name", "-x/y z", []field.ErrorType{field.ErrorTypeInvalid, field.ErrorTypeInvalid}},
		{"empty", "", []field.ErrorType{field.ErrorTypeInvalid, field.ErrorTypeInvalid}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := conditions.ValidateType(tt.typ)
			if tt.want == nil {
				if err != nil {
					t.Fatalf("ValidateType() = %v, want nil", err)
				}
				return
			}
			var invalid *conditions.ValidationError
			if !errors.As(err, &invalid) || invalid.Type != tt.typ {
				t.Fatalf("ValidateType() = %v, want a *conditions.ValidationError of this type", err)
			}
			var got []field.ErrorType
			for _, fe := range invalid.Errs {
				got = append(got, fe.Type)
				if want := "status.conditions[" + tt.typ + "].type"; fe.Field != want {
					t.Errorf("violation on %q, want %q", fe.Field, want)
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("violations %v, want %v", got, tt.want)
			}
		})
	}
}
