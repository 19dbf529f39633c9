package conditions

import (
	"strings"
	"unicode/utf8"
)

const (
	// MaxMessageBytes is the longest condition message the API server accepts, in bytes.
	MaxMessageBytes = 32 * 1024

	// TruncationMarker ends a message that TruncateMessage had to cut.
	TruncationMarker = "… (truncated)"
)

// TruncateMessage returns msg as valid UTF-8 (each invalid byte replaced by U+FFFD, as JSON
// encoding would, so the message survives a round trip unchanged) and, when that is longer than
// MaxMessageBytes, the longest prefix that ends at a UTF-8 boundary and, followed by
// TruncationMarker, fits.
func TruncateMessage(msg string) string {
	return TruncateTo(msg, MaxMessageBytes)
}

// TruncateTo is TruncateMessage with a limit of maxBytes bytes (at least len(TruncationMarker)).
func TruncateTo(msg string, maxBytes int) string {
	msg = validUTF8(msg)
	if len(msg) <= maxBytes {
		return msg
	}
	cut := max(maxBytes-len(TruncationMarker), 0)
	for cut > 0 && !utf8.RuneStart(msg[cut]) {
		cut--
	}
	return msg[:cut] + TruncationMarker
}

// validUTF8 replaces each byte of s that is not part of a valid UTF-8 sequence with U+FFFD,
// byte by byte like encoding/json.
func validUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b.WriteString(string(utf8.RuneError))
		} else {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}
