package conditions_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/machinestatus/machinestatus/conditions"
)

const marker = conditions.TruncationMarker

func TestTruncateTo(t *testing.T) {
	limit := len(marker) + 5 // room for 5 bytes of the message
	tests := []struct {
		name string
		msg  string
		max  int
		want string
	}{
		{"empty", "", limit, ""},
		{"short", "abc", limit, "abc"},
		{"exactly the limit", strings.Repeat("x", limit), limit, strings.Repeat("x", limit)},
		{"one byte over", strings.Repeat("x", limit+1), limit, "xxxxx" + marker},
		{"multi-byte runes that fit", strings.Repeat("é", limit/2), limit, strings.Repeat("é", limit/2)},
		{"cut before a 2-byte rune that does not fit", "abcdé" + strings.Repeat("x", limit), limit, "abcd" + marker},
		{"cut before a 3-byte rune that straddles the cut", "abc€" + strings.Repeat("x", limit), limit, "abc" + marker},
		{"cut before a 4-byte rune that straddles the cut", "ab🙂" + strings.Repeat("x", limit), limit, "ab" + marker},
		{"a rune that ends exactly at the cut is kept", "a🙂" + strings.Repeat("x", limit), limit, "a🙂" + marker},
		{"nothing of the message fits", strings.Repeat("x", len(marker)+1), len(marker), marker},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := conditions.TruncateTo(tt.msg, tt.max)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("TruncateTo(%d) (-want +got):\n%s", tt.max, diff)
			}
		})
	}
}

// TestTruncateMessage puts runes of every UTF-8 width at every offset around the cut of a
// message just over MaxMessageBytes, directly and through Set.
func TestTruncateMessage(t *testing.T) {
	type test struct {
		name string
		msg  string
		want string
	}
	tests := []test{
		{"empty", "", ""},
		{"exactly MaxMessageBytes", strings.Repeat("x", conditions.MaxMessageBytes), strings.Repeat("x", conditions.MaxMessageBytes)},
		{"exactly MaxMessageBytes of 2-byte runes", strings.Repeat("é", conditions.MaxMessageBytes/2), strings.Repeat("é", conditions.MaxMessageBytes/2)},
		{"one byte over", strings.Repeat("x", conditions.MaxMessageBytes+1), strings.Repeat("x", conditions.MaxMessageBytes-len(marker)) + marker},
	}
	cut := conditions.MaxMessageBytes - len(marker) // the most message bytes that fit before the marker
	for _, r := range []string{"é", "€", "🙂"} {
		for shift := range len(r) + 1 {
			// ASCII up to cut-shift, then runes r across the cut.
			msg := strings.Repeat("a", cut-shift) + strings.Repeat(r, conditions.MaxMessageBytes)
			// The expected prefix is the longest valid UTF-8 prefix of at most cut bytes,
			// computed without utf8.RuneStart, which the code under test uses.
			keep := cut
			for !utf8.ValidString(msg[:keep]) {
				keep--
			}
			tests = append(tests, test{fmt.Sprintf("%d-byte runes from %d bytes before the cut", len(r), shift), msg, msg[:keep] + marker})
		}
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := conditions.TruncateMessage(tt.msg)
			if got != tt.want {
				// Show only the ends: the messages are 32 KiB long.
				t.Errorf("TruncateMessage() = (%d bytes) ...%q, want (%d bytes) ...%q", len(got), tail(got), len(tt.want), tail(tt.want))
			}
			if !utf8.ValidString(got) {
				t.Errorf("TruncateMessage() is not valid UTF-8: ...%q", tail(got))
			}
			if len(got) > conditions.MaxMessageBytes {
				t.Errorf("len(TruncateMessage()) = %d, want at most %d", len(got), conditions.MaxMessageBytes)
			}
			if len(tt.msg) > conditions.MaxMessageBytes && !strings.HasSuffix(got, marker) {
				t.Errorf("TruncateMessage() = ...%q, want it to end with %q", tail(got), marker)
			}

			// Set stores the same, and the stored condition is valid.
			m := machine(1)
			if _, err := conditions.MarkFalse(m, "NodeReady", "NodeNotReady", tt.msg, clockAt(t0)); err != nil {
				t.Fatalf("MarkFalse() error = %v", err)
			}
			if stored := conditions.GetMessage(m, "NodeReady"); stored != tt.want {
				t.Errorf("stored message = (%d bytes) ...%q, want (%d bytes) ...%q", len(stored), tail(stored), len(tt.want), tail(tt.want))
			}
			if err := conditions.Validate(*conditions.Get(m, "NodeReady")); err != nil {
				t.Errorf("stored condition is invalid: %v", err)
			}
		})
	}
}

func tail(s string) string {
	const n = 24
	if len(s) <= n {
		return s
	}
	return s[len(s)-n:]
}

// TestTruncateMessageInvalidUTF8: invalid bytes become U+FFFD one by one, as JSON encoding
// does, so a stored message survives a round trip.
func TestTruncateMessageInvalidUTF8(t *testing.T) {
	tests := []struct{ in, want string }{
		{"\xee", "\uFFFD"},
		{"a\xff\xfeb", "a\uFFFD\uFFFDb"},
		{"ok \xe2\x82", "ok \uFFFD\uFFFD"},
		{"valid \uFFFD", "valid \uFFFD"},
		{"é\xc3 🙂\xf0\x9f\x99", "é\uFFFD 🙂\uFFFD\uFFFD\uFFFD"},
	}
	for _, tt := range tests {
		got := conditions.TruncateMessage(tt.in)
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("TruncateMessage(%q) (-want +got):\n%s", tt.in, diff)
		}
		b, err := json.Marshal(got)
		if err != nil {
			t.Fatal(err)
		}
		var back string
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		if back != got || !utf8.ValidString(got) {
			t.Errorf("TruncateMessage(%q) = %q, which JSON turns into %q", tt.in, got, back)
		}
	}
}
