package conditions

import (
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSanitize(t *testing.T) {
	for _, tt := range []struct{ name, in, want string }{
		{"empty", "", ""},
		{"plain", "Phase: Running", "Phase: Running"},
		{"unicode kept", "Knoten ist bereit — ノード… \u00a0\u2027\u202f\u2065\u206a", "Knoten ist bereit — ノード… \u00a0\u2027\u202f\u2065\u206a"},
		{"backslashes kept", `C:\path\x1b \\ \u202e \`, `C:\path\x1b \\ \u202e \`},
		{"clear screen", "\x1b[2J\x1b[HPhase: Running", `\x1b[2J\x1b[HPhase: Running`},
		{"cursor up and colour", "failed\x1b[1A\x1b[32mRunning\x1b[0m", `failed\x1b[1A\x1b[32mRunning\x1b[0m`},
		{"window title OSC with BEL", "\x1b]0;owned\x07x", `\x1b]0;owned\x07x`},
		{"OSC with ST", "\x1b]8;;http://x\x1b\\link", `\x1b]8;;http://x\x1b\link`},
		{"a backslash before an escape", "\\\x1b[2J", `\\x1b[2J`},
		{"tab newline return", "a\tb\nc\rd", `a\tb\nc\rd`},
		{"NUL, unit separator, DEL", "a\x00b\x1fc\x7fd", `a\x00b\x1fc\x7fd`},
		{"C1 CSI as a rune, the C1 range's ends", "a\u009b2Jb\u0085c\u0080\u009f", `a\u009b2Jb\u0085c\u0080\u009f`},
		{"bidi overrides and embeddings", "Failed\u202e gninnuR\u202a\u202b\u202c\u202d", `Failed\u202e gninnuR\u202a\u202b\u202c\u202d`},
		{"bidi isolates and marks", "\u2066a\u2067\u2068\u2069\u200e\u200f\u061c", `\u2066a\u2067\u2068\u2069\u200e\u200f\u061c`},
		{"line separators", "a\u2028b\u2029c", `a\u2028b\u2029c`},
		{"invalid UTF-8", "a\xffb\xc3(c\x9b", `a\xffb\xc3(c\x9b`},
		{"a lone continuation byte", "a\x80b", `a\x80b`},
		{"multi-byte text after an escape", "\x1b[0m Knoten — ノード", `\x1b[0m Knoten — ノード`},
		{"a surrogate encoded", "a\xed\xa0\x80b", `a\xed\xa0\x80b`},
		{"truncated rune at the end", "ok\xe2\x80", `ok\xe2\x80`},
		{"U+FFFD itself is kept", "a\uFFFDb", "a\uFFFDb"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := Sanitize(tt.in)
			if got != tt.want {
				t.Errorf("Sanitize(%q) = %q, want %q", tt.in, got, tt.want)
			}
			checkSanitized(t, tt.in, got)
		})
	}
}

// TestSanitizeIsAFixedPoint: what Sanitize returned, e.g. another writer's text the manager
// quoted in a Ready message, is printed by a reader that sanitizes again exactly as it is:
// escaped once, never \\x1b.
func TestSanitizeIsAFixedPoint(t *testing.T) {
	for _, s := range []string{
		`A: \x1b[2J\x1b[H\x1b]0;title\x07Phase: Running\u202e\x00\xff`,
		`Health check failed (UnhealthyNode): C:\path\x1b, \\server\share, \t \n \u2028`,
		"Ready: ノード \\ ok",
	} {
		if got := Sanitize(s); got != s {
			t.Errorf("Sanitize(%q) = %q, want it unchanged", s, got)
		}
	}
}

// checkSanitized fails unless out, Sanitize(in), is valid UTF-8 without a character Sanitize
// escapes, is a fixed point of Sanitize, equals in exactly when in holds nothing to escape,
// and, when in holds no backslash (so no escape can be mistaken for typed text), gives in back
// through unsanitize.
func checkSanitized(t *testing.T, in, out string) {
	t.Helper()
	if !utf8.ValidString(out) {
		t.Errorf("Sanitize(%q) = %q: not valid UTF-8", in, out)
	}
	for _, r := range out {
		if unsafeForTest(r) {
			t.Errorf("Sanitize(%q) = %q: holds %U", in, out, r)
		}
	}
	if again := Sanitize(out); again != out {
		t.Errorf("Sanitize(Sanitize(%q)) = %q, want %q", in, again, out)
	}
	if clean := utf8.ValidString(in) && !strings.ContainsFunc(in, unsafeForTest); clean != (out == in) {
		t.Errorf("Sanitize(%q) = %q: the input is clean: %v, but unchanged: %v", in, out, clean, out == in)
	}
	if !strings.Contains(in, `\`) {
		if back := unsanitize(t, out); back != in {
			t.Errorf("unsanitize(Sanitize(%q)) = %q", in, back)
		}
	}
}

// unsafeForTest is the list of characters Sanitize documents, written out again.
func unsafeForTest(r rune) bool {
	switch {
	case r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f:
		return true
	case r == 0x061c, r == 0x200e, r == 0x200f, r == 0x2028, r == 0x2029:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}

// unsanitize reads Sanitize's escapes back, for text that held no backslash.
func unsanitize(t *testing.T, s string) string {
	t.Helper()
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			b.WriteByte(s[i])
			continue
		}
		i++
		switch s[i] {
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 'x':
			v, err := strconv.ParseUint(s[i+1:i+3], 16, 8)
			if err != nil {
				t.Fatalf("bad escape in %q: %v", s, err)
			}
			b.WriteByte(byte(v))
			i += 2
		case 'u':
			v, err := strconv.ParseUint(s[i+1:i+5], 16, 32)
			if err != nil {
				t.Fatalf("bad escape in %q: %v", s, err)
			}
			b.WriteRune(rune(v))
			i += 4
		default:
			t.Fatalf("unknown escape \\%c in %q", s[i], s)
		}
	}
	return b.String()
}

func TestSanitizeKeepsCleanTextWithoutAllocating(t *testing.T) {
	s := `Node ip-10-0-1-2 is Ready — ok, C:\path`
	if n := testing.AllocsPerRun(100, func() { _ = Sanitize(s) }); n != 0 {
		t.Errorf("Sanitize of clean text allocates %v times", n)
	}
}

func FuzzSanitize(f *testing.F) {
	for _, s := range []string{"", "a\\b", "\x1b[2J", "\u202e", "\xff\xfe", "\u0085", `\x1b`, "\\\x1b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		checkSanitized(t, in, Sanitize(in))
	})
}
