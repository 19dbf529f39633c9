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
		{"unicode kept", "Knoten ist bereit — ノード…", "Knoten ist bereit — ノード…"},
		{"backslash", `C:\path\x1b`, `C:\\path\\x1b`},
		{"clear screen", "\x1b[2J\x1b[HPhase: Running", `\x1b[2J\x1b[HPhase: Running`},
		{"cursor up and colour", "failed\x1b[1A\x1b[32mRunning\x1b[0m", `failed\x1b[1A\x1b[32mRunning\x1b[0m`},
		{"window title OSC with BEL", "\x1b]0;owned\x07x", `\x1b]0;owned\x07x`},
		{"OSC with ST", "\x1b]8;;http://x\x1b\\link", `\x1b]8;;http://x\x1b\\link`},
		{"tab newline return", "a\tb\nc\rd", `a\tb\nc\rd`},
		{"NUL and DEL", "a\x00b\x7fc", `a\x00b\x7fc`},
		{"C1 CSI as a rune", "a\u009b2Jb\u0085c", `a\u009b2Jb\u0085c`},
		{"bidi override", "Failed\u202e gninnuR", `Failed\u202e gninnuR`},
		{"bidi isolates and marks", "\u2066a\u2069\u200e\u200f\u061c", `\u2066a\u2069\u200e\u200f\u061c`},
		{"line separators", "a\u2028b\u2029c", `a\u2028b\u2029c`},
		{"invalid UTF-8", "a\xffb\xc3(c\x9b", `a\xffb\xc3(c\x9b`},
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

// checkSanitized fails unless out is valid UTF-8 without a character Sanitize escapes and
// unsanitize(out) gives in back.
func checkSanitized(t *testing.T, in, out string) {
	t.Helper()
	if !utf8.ValidString(out) {
		t.Errorf("Sanitize(%q) = %q: not valid UTF-8", in, out)
	}
	for _, r := range out {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && unsafeRune(r)) {
			t.Errorf("Sanitize(%q) = %q: holds %U", in, out, r)
		}
	}
	if back := unsanitize(t, out); back != in {
		t.Errorf("unsanitize(Sanitize(%q)) = %q", in, back)
	}
}

// unsanitize is Sanitize's inverse.
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
		case '\\':
			b.WriteByte('\\')
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
	s := "Node ip-10-0-1-2 is Ready — ok"
	if n := testing.AllocsPerRun(100, func() { _ = Sanitize(s) }); n != 0 {
		t.Errorf("Sanitize of clean text allocates %v times", n)
	}
}

func FuzzSanitize(f *testing.F) {
	for _, s := range []string{"", "a\\b", "\x1b[2J", "\u202e", "\xff\xfe", "\u0085"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		checkSanitized(t, in, Sanitize(in))
	})
}
