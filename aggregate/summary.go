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

	// maxSummaryItemBytes bounds one line of a summary message ("* <Type>: <text>"). With
	// maxSummaryItems lines and the "and N more" line, a message stays far below
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
// Each condition type in scope is classified, in catalog order (conditions.Compare):
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
// The message lists the issues, then the unknowns, each group in catalog order, one line
// "* <Type>: <message, or reason when the message is empty>" per condition, at most three
// lines followed by "and N more". Each line is cut at a UTF-8 boundary to 512 bytes, so the
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
	var scopeBuf [16]string
	scope, err := summaryScope(target, o, scopeBuf[:0])
	if err != nil {
		return metav1.Condition{}, err
	}

	// Only the first maxSummaryItems issues and unknowns appear in the message; the others are
	// counted.
	var issues, unknowns summaryItems
	var t tally
	var find scopeFinder
	find.init(conditions.GetAll(from))
	for _, ct := range scope {
		c := find.next(ct)
		if c == nil && slices.Contains(o.IgnoreTypesIfMissing, ct) {
			continue
		}
		s := standingOf(c, slices.Contains(o.NegativePolarityConditionTypes, ct))
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
		return out, nil
	case NoConditionsReportedReason:
		out.Message = noConditionsReportedMessage
		return out, nil
	}
	out.Message = summaryMessage(&issues, &unknowns)
	return out, nil
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

// summaryScope checks the options and returns the condition types in scope, deduplicated and
// in catalog order, appended to buf (so that a caller's array can hold them).
func summaryScope(target string, o *SummaryOptions, buf []string) ([]string, error) {
	scope := buf[:0]
	scope = append(scope, o.ConditionTypes...)
	slices.SortFunc(scope, conditions.Compare)
	scope = slices.Compact(scope)
	if problems := conditionTypeProblems(target); len(problems) > 0 {
		return nil, &SummaryConfigError{Target: target, Problem: "invalid target condition type: " + strings.Join(problems, "; ")}
	}
	if len(scope) == 0 {
		return nil, &SummaryConfigError{Target: target, Problem: "no condition types in scope (use ForConditionTypes)"}
	}
	for _, t := range scope {
		if t == target {
			return nil, &SummaryConfigError{Target: target, Problem: "the target condition type cannot be in its own scope"}
		}
		if problems := conditionTypeProblems(t); len(problems) > 0 {
			return nil, &SummaryConfigError{Target: target, Problem: fmt.Sprintf("invalid condition type %q in scope: %s", t, strings.Join(problems, "; "))}
		}
	}
	return scope, nil
}

// conditionTypeProblems says why t cannot be a condition type (conditions.ValidateType), or
// returns nil.
func conditionTypeProblems(t string) []string {
	err := conditions.ValidateType(t)
	if err == nil {
		return nil
	}
	var invalid *conditions.ValidationError
	if errors.As(err, &invalid) {
		problems := make([]string, 0, len(invalid.Errs))
		for _, e := range invalid.Errs {
			problems = append(problems, e.ErrorBody())
		}
		return problems
	}
	return nil
}

// summaryItem is one condition that contributes to a summary's message.
type summaryItem struct {
	conditionType string
	text          string
	missing       bool
}

// summaryItems counts items and keeps the first maxSummaryItems of them, without allocating.
type summaryItems struct {
	n     int
	first [maxSummaryItems]summaryItem
}

func (l *summaryItems) add(i summaryItem) {
	if l.n < maxSummaryItems {
		l.first[l.n] = i
	}
	l.n++
}

// lineText is what the item's line says: the condition's text, or "not yet reported".
func (i summaryItem) lineText() string {
	if i.missing {
		return notYetReportedText
	}
	return i.text
}

// line is the item's line: "* <Type>: <text>", continuation lines (e.g. of a nested summary)
// indented so that every item starts with "* ", cut to maxSummaryItemBytes.
func (i summaryItem) line() string {
	text := strings.ReplaceAll(i.lineText(), "\n", "\n  ")
	return conditions.TruncateTo("* "+i.conditionType+": "+text, maxSummaryItemBytes)
}

// writeLine writes i.line() to b without building the line as a string of its own: short lines
// piece by piece, long ones cut in an array on the stack as conditions.TruncateTo cuts them.
func (i summaryItem) writeLine(b *strings.Builder) {
	text := i.lineText()
	newlines := strings.Count(text, "\n")
	if i.lineLen(text, newlines) <= maxSummaryItemBytes {
		b.WriteString("* ")
		b.WriteString(i.conditionType)
		b.WriteString(": ")
		for ; newlines > 0; newlines-- {
			j := strings.IndexByte(text, '\n')
			b.WriteString(text[:j+1])
			b.WriteString("  ")
			text = text[j+1:]
		}
		b.WriteString(text)
		return
	}
	// The line is longer than maxSummaryItemBytes: its first maxSummaryItemBytes+1 bytes are
	// enough to find the cut.
	var buf [maxSummaryItemBytes + 1]byte
	line := appendUpTo(buf[:0], "* ")
	line = appendUpTo(line, i.conditionType)
	line = appendUpTo(line, ": ")
	for len(line) < len(buf) {
		j := strings.IndexByte(text, '\n')
		if j < 0 {
			line = appendUpTo(line, text)
			break
		}
		line = appendUpTo(line, text[:j+1])
		line = appendUpTo(line, "  ")
		text = text[j+1:]
	}
	cut := max(maxSummaryItemBytes-len(conditions.TruncationMarker), 0)
	for cut > 0 && !utf8.RuneStart(line[cut]) {
		cut--
	}
	b.Write(line[:cut])
	b.WriteString(conditions.TruncationMarker)
}

// lineLen is the length of the item's line before any cut, given its text and the number of
// newlines in it.
func (i summaryItem) lineLen(text string, newlines int) int {
	return len("* ") + len(i.conditionType) + len(": ") + len(text) + newlines*len("  ")
}

// appendUpTo appends as much of s to line as its capacity allows.
func appendUpTo(line []byte, s string) []byte {
	return append(line, s[:min(len(s), cap(line)-len(line))]...)
}

// summaryMessage lists the first maxSummaryItems issues, then unknowns, one line each, then
// "and N more" for the others.
func summaryMessage(issues, unknowns *summaryItems) string {
	var lines [maxSummaryItems]summaryItem
	shown := copy(lines[:], issues.first[:min(issues.n, maxSummaryItems)])
	shown += copy(lines[shown:], unknowns.first[:min(unknowns.n, maxSummaryItems)])
	size := 0
	for _, item := range lines[:shown] {
		text := item.lineText()
		size += min(item.lineLen(text, strings.Count(text, "\n")), maxSummaryItemBytes) + len("\n")
	}
	more := issues.n + unknowns.n - shown
	var b strings.Builder
	b.Grow(size + len("and  more") + 20)
	for i, item := range lines[:shown] {
		if i > 0 {
			b.WriteByte('\n')
		}
		item.writeLine(&b)
	}
	if more > 0 {
		var n [20]byte
		b.WriteString("\nand ")
		b.Write(strconv.AppendInt(n[:0], int64(more), 10))
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

// scopeFinder finds the conditions of the scope's types in a list, asked in the scope's order
// (ascending conditions.Compare), in one walk of the list in that order: the list itself when it
// is sorted (conditions.Set keeps it so), else an index of up to maxIndexedConditions positions
// sorted on the stack. A longer unsorted list is searched for each type. Every way finds the first
// condition of a type, as findCondition does.
type scopeFinder struct {
	list    []metav1.Condition
	mode    int // walkList, walkIndex or searchEach
	i       int // next position (in the index, or in list) to look at
	indexed [maxIndexedConditions]uint8
}

// How scopeFinder walks.
const (
	walkList   = iota // list is sorted
	walkIndex         // indexed[:len(list)] holds list's positions in ascending type order
	searchEach        // unsorted and too long to index
)

// maxIndexedConditions is the longest unsorted list scopeFinder indexes (twice the 32 the CRDs
// of Cluster API and machinestatus allow).
const maxIndexedConditions = 64

// init prepares f to walk list.
func (f *scopeFinder) init(list []metav1.Condition) {
	f.list = list
	switch {
	case slices.IsSortedFunc(list, compareConditionTypes):
		f.mode = walkList
	case len(list) > maxIndexedConditions:
		f.mode = searchEach
	default:
		f.mode = walkIndex
		order := f.indexed[:len(list)]
		for i := range order {
			order[i] = uint8(i)
		}
		// Stable, so that the first of several conditions of a type comes first.
		slices.SortStableFunc(order, func(a, b uint8) int { return conditions.Compare(list[a].Type, list[b].Type) })
	}
}

// at returns the i-th condition in ascending type order.
func (f *scopeFinder) at(i int) *metav1.Condition {
	if f.mode == walkIndex {
		return &f.list[f.indexed[i]]
	}
	return &f.list[i]
}

// next returns the condition of type t, which must not sort before the type of the previous
// call, or nil. The caller must not modify it.
func (f *scopeFinder) next(t string) *metav1.Condition {
	if f.mode == searchEach {
		return findCondition(f.list, t)
	}
	for f.i < len(f.list) && conditions.Compare(f.at(f.i).Type, t) < 0 {
		f.i++
	}
	if f.i < len(f.list) && f.at(f.i).Type == t {
		return f.at(f.i)
	}
	return nil
}

func compareConditionTypes(a, b metav1.Condition) int { return conditions.Compare(a.Type, b.Type) }

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
