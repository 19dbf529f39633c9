package aggregate

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/machinestatus/machinestatus/conditions"
)

const (
	// maxSummaryItems is how many contributing conditions a summary message lists before it
	// ends with "and N more".
	maxSummaryItems = 3

	// maxSummaryItemBytes bounds one item of a summary message ("<Type>: <text>"). With
	// maxSummaryItems items and "and N more", a message stays far below
	// conditions.MaxMessageBytes.
	maxSummaryItemBytes = 512

	// notYetReportedText is the text of a missing condition in a summary message.
	notYetReportedText = "not yet reported"

	// noConditionsReportedMessage is the message of a summary whose conditions in scope are
	// all missing and all ignored when missing.
	noConditionsReportedMessage = "none of the conditions in scope is reported"
)

// SummaryConfigError says why a summary cannot be computed: the options are inconsistent.
// It is a programming error in the caller, never a property of the object summarized.
type SummaryConfigError struct {
	// Target is the type of the summary condition that was asked for.
	Target string
	// Problem says what is wrong with the configuration.
	Problem string
}

// Error implements error.
func (e *SummaryConfigError) Error() string {
	return fmt.Sprintf("cannot summarize conditions into %q: %s", e.Target, e.Problem)
}

// NewSummaryCondition computes a condition of type target that summarizes the conditions of
// from whose types are in scope (see ForConditionTypes). It does not modify from.
//
// Each condition type in scope (a repeated type counts once) is classified:
//   - missing: skipped when listed in IgnoreTypesIfMissing, else Unknown ("not yet reported");
//   - False, or True for a negative type (listed in NegativePolarityConditionTypes): an issue;
//   - Unknown (or any status other than True and False): unknown;
//   - otherwise: fine.
//
// The summary is, first match wins:
//   - False when at least one condition is an issue: reason IssueReported (one) or
//     MultipleIssuesReported (several);
//   - Unknown when at least one condition is unknown: reason NotYetReported (the only one is
//     missing), UnknownReported (the only one is present) or MultipleUnknownReported;
//   - Unknown with reason NoConditionsReported when nothing in scope is present and every type
//     may be ignored when missing;
//   - True with reason NoIssuesReported and an empty message otherwise.
//
// The message lists the issues, then the unknowns, each group in catalog order (Ready first,
// then alphabetical by type: conditions.Compare), one item
// "<Type>: <message, or reason when the message is empty>" per condition, at most three items
// followed by "and N more", all on one line separated by "; " (a multi-line message is put on
// one line, its lines separated by ", ": see conditions.OneLine), so that it reads cleanly in
// kubectl describe and -o yaml. Each item is cut at a UTF-8 boundary to 512 bytes, so the
// message is always well under the API server's 32768-byte limit, and the same input always
// gives the same message.
//
// The returned condition has Type, Status, Reason and Message set; ObservedGeneration and
// LastTransitionTime are left zero for conditions.Set to fill. A misconfiguration (no type in
// scope, target in scope, an invalid condition type) returns a *SummaryConfigError.
func NewSummaryCondition(from conditions.Getter, target string, opts ...SummaryOption) (*metav1.Condition, error) {
	var o SummaryOptions
	applySummaryOptions(&o, opts)
	c, err := newSummaryCondition(from, target, &o)
	if err != nil {
		return nil, err
	}
	return &c, nil
}

// newSummaryCondition is NewSummaryCondition with the options applied, returning the condition
// by value so that a summary that changes nothing allocates nothing.
func newSummaryCondition(from conditions.Getter, target string, o *SummaryOptions) (metav1.Condition, error) {
	scope, err := summaryScope(target, o)
	if err != nil {
		return metav1.Condition{}, err
	}
	return summarizeScope(from, target, scope, o), nil
}

// summarizeScope is newSummaryCondition once the scope is known to be valid (summaryScope
// accepts it): Summarize builds Ready's scope valid by construction and skips the check.
func summarizeScope(from conditions.Getter, target string, scope []string, o *SummaryOptions) metav1.Condition {
	// Only the first maxSummaryItems issues and unknowns appear in the message; the others are
	// counted.
	var issues, unknowns summaryItems
	var t tally
	var index typeIndex
	list := conditions.GetAll(from)
	index.init(list)
	// A type in scope is counted once: repeats of a present type find the same position (marked
	// in counted), repeats of a missing one are compared with the types before it. Positions past
	// the bit sets' 64 compare types too (no CRD allows that many conditions).
	var counted, negative positions
	for _, ct := range o.NegativePolarityConditionTypes {
		negative.add(index.find(ct, typeHash(ct)))
	}
	for i, ct := range scope {
		p := index.find(ct, typeHash(ct))
		var c *metav1.Condition
		var s standing
		switch {
		case p < 0:
			if slices.Contains(scope[:i], ct) || slices.Contains(o.IgnoreTypesIfMissing, ct) {
				continue
			}
			s = standingOf(nil, false)
		case p < positionsSize:
			if !counted.add(p) {
				continue
			}
			c = &list[p]
			s = standingOf(c, negative.has(p))
		default:
			if slices.Contains(scope[:i], ct) {
				continue
			}
			c = &list[p]
			s = standingOf(c, slices.Contains(o.NegativePolarityConditionTypes, ct))
		}
		t.add(s)
		switch s {
		case issue:
			issues.add(summaryItem{conditionType: ct, text: itemText(c)})
		case unknown:
			unknowns.add(summaryItem{conditionType: ct, text: itemText(c)})
		case notReported:
			unknowns.add(summaryItem{conditionType: ct, missing: true})
		}
	}

	out := metav1.Condition{Type: target}
	out.Status, out.Reason = t.verdict()
	switch out.Reason {
	case NoIssuesReportedReason:
	case NoConditionsReportedReason:
		out.Message = noConditionsReportedMessage
	default:
		out.Message = summaryMessage(&issues, &unknowns)
	}
	return out
}

// SetSummaryCondition computes the summary like NewSummaryCondition and writes it to to with
// conditions.Set, passing the options given by WithSetOptions (e.g. a fixed clock). It reports
// whether to changed; on a misconfiguration it writes nothing and returns the
// *SummaryConfigError, and a condition rejected by conditions.Set returns its error.
func SetSummaryCondition(to conditions.Setter, target string, opts ...SummaryOption) (bool, error) {
	var o SummaryOptions
	applySummaryOptions(&o, opts)
	return setSummaryCondition(to, target, &o)
}

// setSummaryCondition is SetSummaryCondition with the options applied.
func setSummaryCondition(to conditions.Setter, target string, o *SummaryOptions) (bool, error) {
	c, err := newSummaryCondition(to, target, o)
	if err != nil {
		return false, err
	}
	return conditions.Set(to, c, o.SetOptions...)
}

// summaryScope checks the options and returns the condition types in scope as given (they may
// repeat a type; summarizeScope counts each once). A problem with several types names the
// first in catalog order (conditions.Compare).
func summaryScope(target string, o *SummaryOptions) ([]string, error) {
	if problems := typeProblems(target); problems != "" {
		return nil, &SummaryConfigError{Target: target, Problem: "invalid target condition type: " + problems}
	}
	if len(o.ConditionTypes) == 0 {
		return nil, &SummaryConfigError{Target: target, Problem: "no condition types in scope (use ForConditionTypes)"}
	}
	if slices.Contains(o.ConditionTypes, target) || conditions.ValidateTypes(o.ConditionTypes) != nil {
		return nil, scopeError(target, o.ConditionTypes)
	}
	return o.ConditionTypes, nil
}

// scopeError is the error of a scope that holds target or an invalid type: the first such type
// in catalog order.
func scopeError(target string, types []string) error {
	sorted := slices.SortedFunc(slices.Values(types), conditions.Compare)
	for _, t := range sorted {
		if t == target {
			return &SummaryConfigError{Target: target, Problem: "the target condition type cannot be in its own scope"}
		}
		if problems := typeProblems(t); problems != "" {
			return &SummaryConfigError{Target: target, Problem: fmt.Sprintf("invalid condition type %q in scope: %s", t, problems)}
		}
	}
	// Unreachable: summaryScope calls scopeError only when a type is the target or invalid.
	return &SummaryConfigError{Target: target, Problem: "invalid condition types in scope"}
}

// typeProblems says why t cannot be a condition type (conditions.ValidateType): the problems of
// its *conditions.ValidationError (ValidationError.Problems), never empty; "" when t is valid.
func typeProblems(t string) string {
	err := conditions.ValidateType(t)
	if err == nil {
		return ""
	}
	var invalid *conditions.ValidationError
	if !errors.As(err, &invalid) || len(invalid.Errs) == 0 {
		return err.Error()
	}
	return invalid.Problems()
}

// summaryItem is one condition that contributes to a summary's message.
type summaryItem struct {
	conditionType string
	text          string
	missing       bool
}

// summaryItems counts items and keeps, without allocating, the first maxSummaryItems of them in
// catalog order (conditions.Compare of their types, which are distinct), whatever the order they
// are added in.
type summaryItems struct {
	n     int
	first [maxSummaryItems]summaryItem
}

func (l *summaryItems) add(i summaryItem) {
	kept := min(l.n, maxSummaryItems)
	l.n++
	at := kept
	for at > 0 && conditions.Compare(i.conditionType, l.first[at-1].conditionType) < 0 {
		at--
	}
	if at == maxSummaryItems {
		return
	}
	copy(l.first[at+1:], l.first[at:kept]) // the last kept item falls off when l.first is full
	l.first[at] = i
}

// lineText is what the item's line says: the condition's text, or "not yet reported".
func (i *summaryItem) lineText() string {
	if i.missing {
		return notYetReportedText
	}
	return i.text
}

// itemSeparator separates the items of a summary message; a multi-line text quoted in one
// item (e.g. a Cluster API v1beta2 summary) is put on one line with ", " (conditions.OneLine),
// so that the message stays on one line.
const itemSeparator = "; "

// line is the item's text in a summary message: "<Type>: <text>", the text on one line (see
// conditions.OneLine), cut to maxSummaryItemBytes.
func (i *summaryItem) line() string {
	return conditions.TruncateTo(i.conditionType+": "+conditions.OneLine(i.lineText()), maxSummaryItemBytes)
}

// writeLine writes i.line() to b without building the line as a string of its own: the pieces
// of the one-line text go straight to b when they fit, else to an array on the stack that is
// cut as conditions.TruncateTo cuts. maxLen and plain are i.maxLen()'s.
func (i *summaryItem) writeLine(b *strings.Builder, maxLen int, plain bool) {
	text := i.lineText()
	if maxLen <= maxSummaryItemBytes && (plain || utf8.ValidString(text)) {
		b.WriteString(i.conditionType)
		b.WriteString(": ")
		if plain {
			b.WriteString(text) // one line already (conditions.PlainLine)
			return
		}
		conditions.OneLinePieces(text, func(piece string) bool {
			b.WriteString(piece)
			return true
		})
		return
	}
	// The line may be longer than maxSummaryItemBytes: its first maxSummaryItemBytes+1 bytes
	// are enough to find the cut.
	var buf [maxSummaryItemBytes + 1]byte
	line := appendUpTo(buf[:0], i.conditionType)
	line = appendUpTo(line, ": ")
	full := false
	conditions.OneLinePieces(text, func(piece string) bool {
		line = appendUpTo(line, piece)
		full = len(line) == cap(line)
		return !full // the rest of a long text is not read
	})
	if !full || !utf8.ValidString(text) {
		// Short after all (every piece read, at most maxSummaryItemBytes), or invalid UTF-8
		// that TruncateTo must replace first.
		b.WriteString(i.line())
		return
	}
	cut := max(maxSummaryItemBytes-len(conditions.TruncationMarker), 0)
	for cut > 0 && !utf8.RuneStart(line[cut]) {
		cut--
	}
	b.Write(line[:cut])
	b.WriteString(conditions.TruncationMarker)
}

// maxLen is an upper bound of the length of the item's line before it is cut:
// "<Type>: " and conditions.OneLineMaxLen of its text; plain is conditions.PlainLine of the
// text (then the bound is the exact length).
func (i *summaryItem) maxLen() (n int, plain bool) {
	text := i.lineText()
	if conditions.PlainLine(text) {
		return len(i.conditionType) + len(": ") + len(text), true
	}
	return len(i.conditionType) + len(": ") + conditions.OneLineMaxLen(text), false
}

// appendUpTo appends as much of s to line as its capacity allows.
func appendUpTo(line []byte, s string) []byte {
	return append(line, s[:min(len(s), cap(line)-len(line))]...)
}

// summaryMessage lists the first maxSummaryItems issues, then unknowns, on one line separated
// by "; ", then "and N more" for the others.
func summaryMessage(issues, unknowns *summaryItems) string {
	var lines [maxSummaryItems]*summaryItem
	shown := 0
	for _, l := range [...]*summaryItems{issues, unknowns} {
		for j := 0; j < min(l.n, maxSummaryItems) && shown < maxSummaryItems; j++ {
			lines[shown] = &l.first[j]
			shown++
		}
	}
	var maxLens [maxSummaryItems]int
	var plain [maxSummaryItems]bool
	// The message's size, exact when its lines are plain (else each line's bound), so that
	// it is built in one allocation.
	size := (shown - 1) * len(itemSeparator)
	for j, item := range lines[:shown] {
		maxLens[j], plain[j] = item.maxLen()
		size += min(maxLens[j], maxSummaryItemBytes)
	}
	more := issues.n + unknowns.n - shown
	var n [20]byte
	var count []byte
	if more > 0 {
		count = strconv.AppendInt(n[:0], int64(more), 10)
		size += len(itemSeparator+"and ") + len(count) + len(" more")
	}
	var b strings.Builder
	b.Grow(size)
	for j, item := range lines[:shown] {
		if j > 0 {
			b.WriteString(itemSeparator)
		}
		item.writeLine(&b, maxLens[j], plain[j])
	}
	if more > 0 {
		b.WriteString(itemSeparator + "and ")
		b.Write(count)
		b.WriteString(" more")
	}
	return b.String()
}

// findCondition returns the first condition of type t in list, like meta.FindStatusCondition
// (and so conditions.Get), but without copying it: the caller must not modify it.
func findCondition(list []metav1.Condition, t string) *metav1.Condition {
	for i := range list {
		if list[i].Type == t {
			return &list[i]
		}
	}
	return nil
}

// typeIndex finds the first condition of a type in a list (as findCondition does) through an
// open-addressing hash table of the list's positions, built in one pass on the stack. A list
// longer than maxIndexedConditions is searched for each type instead.
type typeIndex struct {
	list   []metav1.Condition
	linear bool
	slots  [1 << slotBits]uint8 // position in list + 1; 0 is an empty slot (twice maxIndexedConditions: probing always meets one)
}

// maxIndexedConditions is the longest list typeIndex indexes: the 64 conditions the Machine CRD
// allows (v1alpha1.MaxConditions; Cluster API's CRDs allow 32).
const maxIndexedConditions = 64

// init indexes list.
func (x *typeIndex) init(list []metav1.Condition) {
	x.list = list
	if x.linear = len(list) > maxIndexedConditions; x.linear {
		return
	}
	for i := range list {
		h := typeHash(list[i].Type)
		for ; x.slots[h] != 0; h = (h + 1) % uint32(len(x.slots)) {
			if list[x.slots[h]-1].Type == list[i].Type {
				break // a later duplicate: the first one stays
			}
		}
		if x.slots[h] == 0 {
			x.slots[h] = uint8(i + 1)
		}
	}
}

// find returns the position of the first condition of type t, whose typeHash is h, or -1.
func (x *typeIndex) find(t string, h uint32) int {
	if x.linear {
		return slices.IndexFunc(x.list, func(c metav1.Condition) bool { return c.Type == t })
	}
	for ; x.slots[h] != 0; h = (h + 1) % uint32(len(x.slots)) {
		if p := int(x.slots[h]) - 1; x.list[p].Type == t {
			return p
		}
	}
	return -1
}

// positions is a set of positions in a condition list, those below positionsSize.
type positions uint64

// positionsSize is the number of positions a positions set holds.
const positionsSize = 64

// add adds p and reports whether it is new; a p outside [0, positionsSize) is ignored and
// reported as not new.
func (s *positions) add(p int) bool {
	if p < 0 || p >= positionsSize || *s&(1<<p) != 0 {
		return false
	}
	*s |= 1 << p
	return true
}

// has reports whether p was added.
func (s positions) has(p int) bool {
	return p >= 0 && s&(1<<p) != 0 // 1<<p is 0 from p = positionsSize on
}

// typeHash picks the slot of type t in typeIndex's table of 1<<slotBits slots from its length
// and its first, middle and last two bytes, mixed by one multiplication whose top slotBits bits
// are the slot (Fibonacci hashing): O(1), which is what matters for types of 10 to 60 bytes. Types that share a slot cost a probe and a comparison more, never a wrong answer;
// the Machine's and Cluster API's Machine condition types each get a slot of their own
// (TestTypeHashSpreads).
func typeHash(t string) uint32 {
	n := len(t)
	if n == 0 {
		return 0
	}
	w := uint32(n) ^ uint32(t[0])<<8 ^ uint32(t[n/2])<<16 ^ uint32(t[n-1])<<24 ^ uint32(t[max(n-2, 0)])<<3 //nolint:gosec // G115: only the low bits of the length matter
	return w * 2654435761 >> (32 - slotBits)
}

// slotBits is the number of bits of a slot of typeIndex's table: 1<<slotBits slots.
const slotBits = 7

// The table has at least twice maxIndexedConditions slots, so that a probe always meets an empty
// one, and its positions + 1 fit a uint8: the build fails otherwise (a negative constant
// converted to uint).
const (
	_ = uint(1<<slotBits - 2*maxIndexedConditions)
	_ = uint(255 - maxIndexedConditions)
)

// itemText is what a summary says about a present condition: its message, else its reason,
// else its status.
func itemText(c *metav1.Condition) string {
	switch {
	case c.Message != "":
		return c.Message
	case c.Reason != "":
		return c.Reason
	}
	return string(c.Status)
}
