package conditions

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Limits of apimachinery's metav1 validation that quickValid checks by hand.
const (
	maxReasonBytes     = 1024 // metav1 validation: reason at most 1024 characters
	maxPrefixBytes     = 253  // DNS-1123 subdomain prefix of a qualified name
	maxTypeNameBytes   = 63   // name part of a qualified name
	maxMessageAPIBytes = 32 * 1024
)

// quickValid reports whether condition certainly passes Validate. It checks the same rules as
// Validate, written as loops over bytes instead of apimachinery's regular expressions, so that
// the common case (a valid condition) costs nanoseconds and no allocation. It never accepts a
// condition that Validate rejects; for any doubt it returns false and Validate runs the full
// validation, which also produces the error messages.
func quickValid(condition metav1.Condition) bool {
	switch condition.Status {
	case metav1.ConditionTrue, metav1.ConditionFalse, metav1.ConditionUnknown:
	default:
		return false
	}
	return condition.ObservedGeneration >= 0 &&
		!condition.LastTransitionTime.IsZero() &&
		len(condition.Message) <= maxMessageAPIBytes &&
		quickValidType(condition.Type) &&
		quickValidReason(condition.Reason)
}

// quickValidType reports whether t is a qualified name (an optional DNS-1123 subdomain prefix
// and "/", then a name of [A-Za-z0-9-_.] that starts and ends alphanumeric) of at most
// maxTypeLength characters.
func quickValidType(t string) bool {
	if len(t) == 0 || len(t) > maxTypeLength {
		return false
	}
	// One pass from the end over the name's characters; a '/' ends the name and starts the
	// prefix, any other character outside the name's class makes t invalid.
	i := len(t) - 1
	for i >= 0 && charClass[t[i]]&(classAlpha|classDigit|classNameExtra) != 0 {
		i--
	}
	name := t[i+1:]
	if i >= 0 && (t[i] != '/' || !quickValidPrefix(t[:i])) {
		return false
	}
	return len(name) > 0 && len(name) <= maxTypeNameBytes && isAlnum(name[0]) && isAlnum(name[len(name)-1])
}

// quickValidPrefix reports whether p is a DNS-1123 subdomain: at most 253 characters, labels
// of [a-z0-9-] separated by single dots, each starting and ending with [a-z0-9]. A second "/"
// anywhere in p makes it invalid, as in apimachinery.
func quickValidPrefix(p string) bool {
	if len(p) == 0 || len(p) > maxPrefixBytes {
		return false
	}
	labelStart := 0
	for i := 0; i <= len(p); i++ {
		if i < len(p) && p[i] != '.' {
			if c := p[i]; !isLowerAlnum(c) && c != '-' {
				return false
			}
			continue
		}
		// p[labelStart:i] is a label.
		if i == labelStart || !isLowerAlnum(p[labelStart]) || !isLowerAlnum(p[i-1]) {
			return false
		}
		labelStart = i + 1
	}
	return true
}

// quickValidReason reports whether r matches [A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])? and has at
// most 1024 characters.
func quickValidReason(r string) bool {
	if len(r) == 0 || len(r) > maxReasonBytes || !isAlpha(r[0]) {
		return false
	}
	for i := 1; i < len(r); i++ {
		if charClass[r[i]]&(classAlpha|classDigit|classReasonMore) == 0 {
			return false
		}
	}
	last := r[len(r)-1]
	return isAlnum(last) || last == '_'
}

// Byte classes of the quick checks, looked up in charClass.
const (
	classAlpha      uint8 = 1 << iota // [A-Za-z]
	classDigit                        // [0-9]
	classLower                        // [a-z0-9]: DNS-1123 label characters besides '-'
	classNameExtra                    // '-', '_', '.': allowed inside a qualified name
	classReasonMore                   // '_', ',', ':': allowed after a reason's first letter
)

var charClass = func() (t [256]uint8) {
	for c := 'a'; c <= 'z'; c++ {
		t[c] |= classAlpha | classLower
	}
	for c := 'A'; c <= 'Z'; c++ {
		t[c] |= classAlpha
	}
	for c := '0'; c <= '9'; c++ {
		t[c] |= classDigit | classLower
	}
	for _, c := range "-_." {
		t[c] |= classNameExtra
	}
	for _, c := range "_,:" {
		t[c] |= classReasonMore
	}
	return t
}()

func isAlpha(c byte) bool      { return charClass[c]&classAlpha != 0 }
func isAlnum(c byte) bool      { return charClass[c]&(classAlpha|classDigit) != 0 }
func isLowerAlnum(c byte) bool { return charClass[c]&classLower != 0 }
