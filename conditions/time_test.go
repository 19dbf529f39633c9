package conditions

import (
	"encoding/json"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestStoredTime: StoredTime gives what a JSON round trip through the API server gives back
// (whole seconds, local location, the fraction dropped and not rounded), and keeps the zero time
// zero.
func TestStoredTime(t *testing.T) {
	utc := time.Date(2026, 11, 30, 12, 0, 5, 999_999_999, time.UTC)
	east := time.Date(2026, 11, 30, 14, 0, 5, 500_000_000, time.FixedZone("CEST", 2*3600))
	for _, in := range []time.Time{utc, east, utc.Truncate(time.Second)} {
		raw, err := json.Marshal(metav1.NewTime(in))
		if err != nil {
			t.Fatal(err)
		}
		var back metav1.Time
		if err := json.Unmarshal(raw, &back); err != nil {
			t.Fatal(err)
		}
		if got := StoredTime(in); got != back {
			t.Errorf("StoredTime(%s) = %v (%s), a round trip gives %v (%s)", in, got, got.Location(), back, back.Location())
		}
	}
	if got := StoredTime(utc); got.Second() != 5 {
		t.Errorf("StoredTime rounds: second %d, want 5", got.Second())
	}
	for _, zero := range []time.Time{{}, time.Time{}.Add(999 * time.Millisecond)} {
		if got := StoredTime(zero); got != (metav1.Time{}) {
			t.Errorf("StoredTime(%s) = %#v, want the zero metav1.Time", zero, got)
		}
	}
}
