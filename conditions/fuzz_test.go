package conditions_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/conditions"
)

// The fuzz targets are named so that neither is a regexp match of the other:
// `go test -fuzz FuzzSet` and `go test -fuzz FuzzValidate` each select exactly one.

var (
	// typePattern is the CRD schema's pattern for metav1.Condition.type.
	typePattern = regexp.MustCompile(`^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$`)
	// reasonPattern is the CRD schema's pattern for metav1.Condition.reason.
	reasonPattern = regexp.MustCompile(`^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$`)
)

// wellFormed states the rules for a condition independently of apimachinery's code: the CRD
// schema of metav1.Condition plus the qualified-name part lengths (prefix 253, name 63).
func wellFormed(c metav1.Condition) bool {
	prefix, name, ok := strings.Cut(c.Type, "/")
	if !ok {
		prefix, name = "", c.Type
	}
	return typePattern.MatchString(c.Type) && len(c.Type) <= 316 && len(prefix) <= 253 && len(name) <= 63 &&
		(c.Status == T || c.Status == F || c.Status == U) &&
		reasonPattern.MatchString(c.Reason) && len(c.Reason) <= 1024 &&
		len(c.Message) <= conditions.MaxMessageBytes &&
		c.ObservedGeneration >= 0 &&
		!c.LastTransitionTime.IsZero()
}

// FuzzValidate checks Validate against two oracles: apimachinery's ValidateCondition plus the
// CRD's 316-character limit on type, and wellFormed.
func FuzzValidate(f *testing.F) {
	f.Add("Ready", "True", "NoIssuesReported", "all good", int64(1), t0.Unix(), false)
	f.Add("example.com/Backup", "Unknown", "A,B:C_", "", int64(0), int64(0), false)
	f.Add("Ready", "True", "NoIssuesReported", "", int64(1), t0.Unix(), true)

	f.Fuzz(func(t *testing.T, typ, status, reason, message string, generation, lastTransitionUnix int64, zeroTime bool) {
		c := metav1.Condition{
			Type:               typ,
			Status:             metav1.ConditionStatus(status),
			Reason:             reason,
			Message:            message,
			ObservedGeneration: generation,
			LastTransitionTime: metav1.NewTime(time.Unix(lastTransitionUnix, 0)),
		}
		if zeroTime {
			c.LastTransitionTime = metav1.Time{}
		}

		err := conditions.Validate(c)
		accepted := err == nil

		apiErrs := metav1validation.ValidateCondition(c, field.NewPath("status", "conditions"))
		if want := len(apiErrs) == 0 && len(c.Type) <= 316; accepted != want {
			t.Errorf("Validate(%+v) = %v; ValidateCondition = %v and len(type) = %d, so want accepted=%v", c, err, apiErrs, len(c.Type), want)
		}
		if want := wellFormed(c); accepted != want {
			t.Errorf("Validate(%+v) = %v; the independent rules say accepted=%v", c, err, want)
		}
		if accepted {
			return
		}
		var verr *conditions.ValidationError
		if !errors.As(err, &verr) {
			t.Fatalf("Validate() error is %T, want *conditions.ValidationError", err)
		}
		if verr.Type != c.Type || len(verr.Errs) == 0 {
			t.Errorf("ValidationError = {Type: %q, %d errors}, want {Type: %q, at least one error}", verr.Type, len(verr.Errs), c.Type)
		}
		_ = err.Error() // never panics
	})
}

// longMessage is over MaxMessageBytes with 3-byte runes across the cut.
var longMessage = strings.Repeat("a", 1) + strings.Repeat("€", conditions.MaxMessageBytes/3+1)

// program reads a fuzzed byte string one byte at a time, then zeros.
type program []byte

func (p *program) next() byte {
	if len(*p) == 0 {
		return 0
	}
	b := (*p)[0]
	*p = (*p)[1:]
	return b
}

func pick[E any](pool []E, b byte) E { return pool[int(b)%len(pool)] }

// FuzzSet runs a fuzzed sequence of Sets on a Machine. Each step reads 4 bytes of prog:
//
//	b0: condition type
//	b1: status; bit 7 bumps metadata.generation first; bit 6 gives the input an explicit
//	    lastTransitionTime
//	b2: reason (and message from its high nibble)
//	b3: how far the clock moves before the Set: bits 0-6 times 123ms, or minutes when bit 7 is set;
//	    0x7f instead appends the condition b0-b2 describe as another writer would, unchecked
//	    (duplicates, invalid entries, odd times), with a whole-hour time when b1 bit 6 is set
//
// and checks the invariants after every call.
func FuzzSet(f *testing.F) {
	f.Add([]byte{1, 1, 0, 5, 1, 0, 0, 5, 1, 0x80, 0, 5}, "example.com/Custom", "Reason", "message")
	// [NodeReady False, NodeReady Unknown] appended by another writer, a bad entry, then Sets.
	f.Add([]byte{1, 0x41, 0, 0x7f, 1, 0x42, 1, 0x7f, 6, 0, 3, 0x7f, 1, 0, 0, 5, 6, 0, 0, 5, 1, 0x41, 1, 5}, "example.com/Custom", "Reason", "message")

	f.Fuzz(func(t *testing.T, prog []byte, fuzzType, fuzzReason, fuzzMessage string) {
		const maxSteps = 64
		if len(prog) > 4*maxSteps {
			prog = prog[:4*maxSteps]
		}
		typePool := []string{"Ready", "NodeReady", "Deleting", "example.com/Custom", fuzzType, "", "bad type"}
		statusPool := []metav1.ConditionStatus{T, F, U, "", "Maybe"}
		reasonPool := []string{"Reason", "Other_Reason:1", fuzzReason, "", "not a reason"}
		messagePool := []string{"", "message", fuzzMessage, longMessage}

		clock := clocktesting.NewFakeClock(t0)
		opt := conditions.WithClock{Clock: clock}
		m := machine(1)
		p := program(prog)
		for step := 0; len(p) > 0; step++ {
			b0, b1, b2, b3 := p.next(), p.next(), p.next(), p.next()
			if b3 == 0x7f {
				// Another writer appends an entry as it likes: a duplicate, an invalid entry
				// (empty reason, no time, bad type or status), an odd time. Set must cope.
				c := metav1.Condition{Type: pick(typePool, b0), Status: pick(statusPool, b1&0x3f), Reason: pick(reasonPool, b2&0x0f)}
				if b1&0x40 != 0 {
					c.LastTransitionTime = metav1.NewTime(t0.Add(time.Duration(int(b2)-128) * time.Hour).Truncate(time.Second).Local())
				}
				m.Status.Conditions = append(m.Status.Conditions, c)
				continue
			}
			if b3&0x80 != 0 {
				clock.Step(time.Duration(b3&0x7f) * time.Minute)
			} else {
				clock.Step(time.Duration(b3) * 123 * time.Millisecond)
			}
			if b1&0x80 != 0 {
				m.Generation++
			}
			c := metav1.Condition{
				Type:    pick(typePool, b0),
				Status:  pick(statusPool, b1&0x3f),
				Reason:  pick(reasonPool, b2&0x0f),
				Message: pick(messagePool, b2>>4),
			}
			if b1&0x40 != 0 {
				c.LastTransitionTime = metav1.NewTime(clock.Now().Add(-time.Duration(b0)*time.Minute - 321*time.Millisecond))
			}

			before := slices.Clone(m.Status.Conditions)
			changed, err := conditions.Set(m, c, opt)
			checkSet(t, step, m, c, clock.Now(), before, changed, err)

			// An identical second Set changes nothing, however far the clock has moved.
			after := slices.Clone(m.Status.Conditions)
			clock.Step(time.Duration(b0) * time.Second)
			changed2, err2 := conditions.Set(m, c, opt)
			if changed2 || (err == nil) != (err2 == nil) || !reflect.DeepEqual(after, m.Status.Conditions) {
				t.Fatalf("step %d: identical second Set(%+v) = %v, %v (first: %v); conditions before %+v, after %+v",
					step, c, changed2, err2, err, after, m.Status.Conditions)
			}
		}
		checkRoundTrip(t, m)
	})
}

// checkSet checks the invariants of one Set call that ran at now and turned before into
// m.Status.Conditions.
func checkSet(t *testing.T, step int, m *v1alpha1.Machine, c metav1.Condition, now time.Time, before []metav1.Condition, changed bool, err error) {
	t.Helper()
	after := m.Status.Conditions

	// Set accepts exactly the inputs that are well formed once it has filled in what it owns:
	// observedGeneration, lastTransitionTime, and a message cut to fit.
	owned := c
	owned.ObservedGeneration = m.Generation
	owned.LastTransitionTime = metav1.NewTime(now)
	owned.Message = ""
	if want := wellFormed(owned); (err == nil) != want {
		t.Fatalf("step %d: Set(%+v) error = %v, want accepted=%v", step, c, err, want)
	}
	if err != nil {
		var verr *conditions.ValidationError
		if changed || !errors.As(err, &verr) {
			t.Fatalf("step %d: Set(%+v) = %v, %v (%T); want false and a *ValidationError", step, c, changed, err, err)
		}
		if !reflect.DeepEqual(before, after) {
			t.Fatalf("step %d: a rejected Set(%+v) changed the conditions from %+v to %+v", step, c, before, after)
		}
		return
	}
	if changed == reflect.DeepEqual(before, after) {
		t.Fatalf("step %d: Set(%+v) changed = %v, but the conditions went from %+v to %+v", step, c, changed, before, after)
	}

	// The whole list is sorted; the type set has exactly one entry, valid. Entries of other
	// types (which another writer may have left duplicated or invalid) are exactly as before,
	// in the same order.
	for i, got := range after {
		if got.Type == c.Type {
			if err := conditions.Validate(got); err != nil {
				t.Fatalf("step %d: stored condition is invalid: %v", step, err)
			}
		}
		if i > 0 && conditions.Compare(after[i-1].Type, got.Type) > 0 {
			t.Fatalf("step %d: conditions not sorted: %q then %q", step, after[i-1].Type, got.Type)
		}
	}
	if n := countIn(after, c.Type); n != 1 {
		t.Fatalf("step %d: %d conditions of type %q after Set, want 1", step, n, c.Type)
	}
	old := findIn(before, c.Type)
	others := func(list []metav1.Condition) []metav1.Condition {
		var out []metav1.Condition
		for _, x := range list {
			if x.Type != c.Type {
				out = append(out, x)
			}
		}
		conditions.Sort(out)
		return out
	}
	if want, got := others(before), others(after); !reflect.DeepEqual(want, got) {
		t.Fatalf("step %d: Set(%q) changed other conditions from %+v to %+v", step, c.Type, want, got)
	}

	// The condition set holds the input, with observedGeneration from the object and a message
	// that fits.
	got := findIn(after, c.Type)
	if got == nil {
		t.Fatalf("step %d: Set(%q) succeeded but the condition is missing", step, c.Type)
	}
	if got.Status != c.Status || got.Reason != c.Reason || got.Message != conditions.TruncateMessage(c.Message) || got.ObservedGeneration != m.Generation {
		t.Fatalf("step %d: stored %+v for input %+v at generation %d", step, *got, c, m.Generation)
	}
	if len(got.Message) > conditions.MaxMessageBytes || (utf8.ValidString(c.Message) && !utf8.ValidString(got.Message)) {
		t.Fatalf("step %d: stored message of %d bytes, valid UTF-8 %v", step, len(got.Message), utf8.ValidString(got.Message))
	}

	// lastTransitionTime moves only when the status changes (a stored entry without one is
	// replaced whole).
	if old != nil && old.Status == c.Status && !old.LastTransitionTime.IsZero() {
		if !reflect.DeepEqual(got.LastTransitionTime, old.LastTransitionTime) {
			t.Fatalf("step %d: status stayed %s but lastTransitionTime moved from %v to %v", step, c.Status, old.LastTransitionTime, got.LastTransitionTime)
		}
		return
	}
	want := now
	if !c.LastTransitionTime.IsZero() {
		want = c.LastTransitionTime.Time
	}
	want = want.Truncate(time.Second)
	if !got.LastTransitionTime.Time.Equal(want) || got.LastTransitionTime.Location() != time.Local {
		t.Fatalf("step %d: lastTransitionTime = %v (%v), want %v in time.Local", step, got.LastTransitionTime, got.LastTransitionTime.Location(), want)
	}
}

// checkRoundTrip checks that the conditions survive a JSON round trip unchanged, when every
// message is valid UTF-8 (JSON cannot carry other bytes).
func checkRoundTrip(t *testing.T, m *v1alpha1.Machine) {
	t.Helper()
	// JSON replaces invalid UTF-8 (U+FFFD): only text a JSON object can hold survives, and an
	// API server never stores anything else. Another writer's entries of the fuzz program may
	// hold such text in any field.
	for _, c := range m.Status.Conditions {
		for _, s := range []string{c.Type, string(c.Status), c.Reason, c.Message} {
			if !utf8.ValidString(s) {
				return
			}
		}
	}
	data, err := json.Marshal(m)
	if err != nil {
		t.Fatalf("json.Marshal() error = %v", err)
	}
	got := &v1alpha1.Machine{}
	if err := json.Unmarshal(data, got); err != nil {
		t.Fatalf("json.Unmarshal() error = %v", err)
	}
	if !reflect.DeepEqual(m.Status.Conditions, got.Status.Conditions) {
		t.Fatalf("conditions changed in a JSON round trip:\nbefore %+v\nafter  %+v", m.Status.Conditions, got.Status.Conditions)
	}
}

func countIn(list []metav1.Condition, typ string) int {
	n := 0
	for i := range list {
		if list[i].Type == typ {
			n++
		}
	}
	return n
}

func findIn(list []metav1.Condition, typ string) *metav1.Condition {
	for i := range list {
		if list[i].Type == typ {
			return &list[i]
		}
	}
	return nil
}
