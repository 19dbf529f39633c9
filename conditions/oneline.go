package conditions

import "strings"

// OneLine returns msg on a single line, so that it reads cleanly wherever it is printed as it
// is: kubectl describe prints a multi-line value with its continuation lines at column 0,
// where they read as the object's next fields. Each line is trimmed of surrounding white
// space and of a leading list marker ("* " or "- ", as Cluster API v1beta2 summaries start
// their lines); empty lines are dropped; the lines are joined with ", ", or with a space after
// a line that ends with ":" (a heading and its nested list). For example
// "* A: x\n* B:\n  * C: y" becomes "A: x, B: C: y". A message without a line break is returned
// as it is, without allocating.
func OneLine(msg string) string {
	if !hasLineBreak(msg) {
		return msg
	}
	var b strings.Builder
	b.Grow(OneLineMaxLen(msg))
	OneLinePieces(msg, func(piece string) bool {
		b.WriteString(piece)
		return true
	})
	return b.String()
}

// OneLineMaxLen is an upper bound of len(OneLine(msg)): a line break ("\n" or "\r") becomes at
// most ", ".
func OneLineMaxLen(msg string) int {
	if !hasLineBreak(msg) {
		return len(msg)
	}
	return len(msg) + strings.Count(msg, "\n") + strings.Count(msg, "\r")
}

// OneLinePieces calls yield with the pieces that, concatenated, are OneLine(msg): the kept
// lines and the separators between them, in order, without allocating. It stops when yield
// returns false.
func OneLinePieces(msg string, yield func(piece string) bool) {
	if !hasLineBreak(msg) {
		yield(msg)
		return
	}
	first, heading := true, false
	for line := range strings.FieldsFuncSeq(msg, func(r rune) bool { return r == '\n' || r == '\r' }) {
		line = strings.TrimSpace(line)
		line = strings.TrimSpace(strings.TrimPrefix(line, "* "))
		line = strings.TrimSpace(strings.TrimPrefix(line, "- "))
		if line == "" {
			continue
		}
		sep := ", "
		switch {
		case first:
			sep = ""
		case heading:
			sep = " "
		}
		if (sep != "" && !yield(sep)) || !yield(line) {
			return
		}
		first, heading = false, strings.HasSuffix(line, ":")
	}
}

// hasLineBreak reports whether msg holds a "\n" or "\r" (strings.ContainsAny, with the byte
// search that is fast on the short messages of every reconcile).
func hasLineBreak(msg string) bool {
	return strings.IndexByte(msg, '\n') >= 0 || strings.IndexByte(msg, '\r') >= 0
}

// PlainLine reports whether msg is ASCII without a line break: valid UTF-8 that OneLine returns
// as it is. It reads eight bytes at a time, for callers that print many short messages.
func PlainLine(msg string) bool {
	const (
		ones = 0x0101010101010101
		high = 0x8080808080808080
	)
	// hasByte reports whether a byte of w is b (the classic test for a zero byte of w^b*ones).
	hasByte := func(w uint64, b uint64) bool {
		x := w ^ b*ones
		return (x-ones)&^x&high != 0
	}
	i := 0
	for ; i+8 <= len(msg); i += 8 {
		if w := load8(msg[i:]); w&high != 0 || hasByte(w, '\n') || hasByte(w, '\r') {
			return false
		}
	}
	for ; i < len(msg); i++ {
		if c := msg[i]; c >= utf8RuneSelf || c == '\n' || c == '\r' {
			return false
		}
	}
	return true
}

// utf8RuneSelf is utf8.RuneSelf: bytes below it are ASCII characters.
const utf8RuneSelf = 0x80

// CollapseSpace returns s with every run of white space (unicode.IsSpace, line breaks included)
// made one space and none at either end, as strings.Join(strings.Fields(s), " ") does: the one
// rule for quoting free text on one line (lastOperation descriptions, event notes, printed
// columns). Unlike OneLine it reads no list structure. ASCII text that is already so is
// returned as it is, without allocating.
func CollapseSpace(s string) string {
	if singleSpaced(s) {
		return s
	}
	return strings.Join(strings.Fields(s), " ")
}

// singleSpaced reports whether s is ASCII whose only white space is single spaces between
// words, so that CollapseSpace returns s itself.
func singleSpaced(s string) bool {
	return PlainLine(s) && !strings.ContainsAny(s, "\t\v\f") && !strings.Contains(s, "  ") &&
		(s == "" || (s[0] != ' ' && s[len(s)-1] != ' '))
}
