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
	var known string
	return quickValidTypeKnown(t, &known)
}

// quickValidTypeKnown is quickValidType, except that a prefix equal to *known (one found valid
// before) is not checked again; a prefix it finds valid is stored in *known.
func quickValidTypeKnown(t string, known *string) bool {
	if alnumName(t) {
		return true // the usual CamelCase type, eight bytes at a time
	}
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
	if i >= 0 {
		prefix := t[:i]
		if t[i] != '/' {
			return false
		}
		if prefix == "" || prefix != *known {
			if !quickValidPrefix(prefix) {
				return false
			}
			*known = prefix
		}
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

// alnumName reports whether t is 1 to maxTypeNameBytes ASCII letters and digits: a valid
// condition type without a prefix, recognised eight bytes at a time from eight bytes on (the
// last eight overlap the ones before when the length is not a multiple of eight).
func alnumName(t string) bool {
	if len(t) < 8 {
		for i := range len(t) {
			if !isAlnum(t[i]) {
				return false
			}
		}
		return len(t) > 0
	}
	if len(t) > maxTypeNameBytes {
		return false
	}
	for i := 0; i+8 < len(t); i += 8 {
		if !alnum8(load8(t[i:])) {
			return false
		}
	}
	return alnum8(load8(t[len(t)-8:]))
}

// load8 returns the first eight bytes of s (at least eight long) as a little-endian word; the
// compiler turns it into one load.
func load8(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// alnum8 reports whether every byte of w is an ASCII letter or digit ([A-Za-z0-9], the bytes
// classAlpha|classDigit marks), eight bytes at once. For bytes below 0x80, adding 0x80-lo sets a
// byte's high bit exactly when it is at least lo, and adding 0x7f-hi exactly when it is above
// hi, without a carry into the next byte. Letters are tested with 0x20 set (upper case becomes
// lower case, and only letters land in [a-z]); digits on the bytes as they are (0x20 would
// bring control characters into [0-9]).
func alnum8(w uint64) bool {
	const (
		ones = 0x0101010101010101
		high = 0x8080808080808080
	)
	if w&high != 0 {
		return false
	}
	inRange := func(x uint64, lo, hi uint64) uint64 {
		return (x + (0x80-lo)*ones) &^ (x + (0x7f-hi)*ones) & high
	}
	return inRange(w|0x20*ones, 'a', 'z')|inRange(w, '0', '9') == high
}
