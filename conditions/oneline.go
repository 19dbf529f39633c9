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
