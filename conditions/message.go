package conditions

import "unicode/utf8"

const (
	// MaxMessageBytes is the longest condition message the API server accepts, in bytes.
	MaxMessageBytes = 32 * 1024

	// TruncationMarker ends a message that TruncateMessage had to cut.
	TruncationMarker = "… (truncated)"
)

// TruncateMessage returns msg unchanged when it fits in MaxMessageBytes; otherwise it returns
// the longest prefix that ends at a UTF-8 boundary and, followed by TruncationMarker, fits.
func TruncateMessage(msg string) string {
	return TruncateTo(msg, MaxMessageBytes)
}

// TruncateTo is TruncateMessage with a limit of maxBytes bytes (at least len(TruncationMarker)).
func TruncateTo(msg string, maxBytes int) string {
	if len(msg) <= maxBytes {
		return msg
	}
	cut := max(maxBytes-len(TruncationMarker), 0)
	for cut > 0 && !utf8.RuneStart(msg[cut]) {
		cut--
	}
	return msg[:cut] + TruncationMarker
}
