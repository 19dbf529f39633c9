package conditions

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Sanitize returns s with everything a terminal could act on made visible, so that text from
// other writers (a provider's condition message, a name, an annotation) can be printed or quoted
// without clearing a screen, moving the cursor, setting a window title or reordering what
// follows it. Each such character is replaced by a visible escape made of printable ASCII:
//
//   - tab, line feed, carriage return: \t, \n, \r
//   - every other C0 control character (U+0000–U+001F, ESC among them) and DEL: \xNN, e.g. \x1b
//   - C1 control characters (U+0080–U+009F), the bidirectional formatting characters (U+061C,
//     U+200E, U+200F, U+202A–U+202E, U+2066–U+2069) and the line and paragraph separators
//     (U+2028, U+2029): \uNNNN, e.g. \u202e
//   - each byte that is not part of valid UTF-8: \xNN, e.g. \xff
//
// Everything else, backslashes included, is kept. The result is valid UTF-8 without any of
// the characters above, whatever s is, so it is safe to print; and as only those characters
// change, the result is a fixed point: Sanitize(Sanitize(s)) == Sanitize(s), and Sanitize(s) ==
// s exactly when s holds none of them. So every reader can pass all the text it did not write
// through Sanitize, text the manager quoted included, and what the manager already escaped
// prints as it is, escaped once. The manager quotes other writers' text through it in what it
// derives (summaries, lastOperation descriptions, event notes); the CLI prints every string it
// did not write through it. An escape cannot be told from the same characters typed (no escaping
// can be both a fixed point and reversible, unless it changes nothing): the exact text stays in
// the other writer's own field, and in -o json|yaml.
func Sanitize(s string) string {
	i := 0
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 || c == 0x7f {
				break
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || unsafeRune(r) {
			break
		}
		i += size
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	b.WriteString(s[:i])
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '\t':
				b.WriteString(`\t`)
			case c == '\n':
				b.WriteString(`\n`)
			case c == '\r':
				b.WriteString(`\r`)
			case c < 0x20 || c == 0x7f:
				writeByteEscape(&b, c)
			default:
				b.WriteByte(c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			writeByteEscape(&b, c)
		case unsafeRune(r):
			b.WriteString(`\u`)
			hex := strconv.FormatInt(int64(r), 16)
			b.WriteString(strings.Repeat("0", 4-len(hex)))
			b.WriteString(hex)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// unsafeRune reports whether r, a valid rune of U+0080 or above, is one Sanitize escapes: a C1
// control character, a bidirectional formatting character or a line or paragraph separator.
func unsafeRune(r rune) bool {
	switch {
	case r <= 0x9f:
		return true
	case r == 0x061c, r == 0x200e, r == 0x200f, r == 0x2028, r == 0x2029:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}

// writeByteEscape writes \xNN, NN the byte c in two lower-case hex digits.
func writeByteEscape(b *strings.Builder, c byte) {
	const digits = "0123456789abcdef"
	b.WriteString(`\x`)
	b.WriteByte(digits[c>>4])
	b.WriteByte(digits[c&0xf])
}
