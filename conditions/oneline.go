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
	if !strings.ContainsAny(msg, "\n\r") {
		return msg
	}
	var b strings.Builder
	b.Grow(len(msg))
	heading := false
	for line := range strings.FieldsFuncSeq(msg, func(r rune) bool { return r == '\n' || r == '\r' }) {
		line = strings.TrimSpace(line)
		line = strings.TrimSpace(strings.TrimPrefix(line, "* "))
		line = strings.TrimSpace(strings.TrimPrefix(line, "- "))
		if line == "" {
			continue
		}
		switch {
		case b.Len() == 0:
		case heading:
			b.WriteByte(' ')
		default:
			b.WriteString(", ")
		}
		b.WriteString(line)
		heading = strings.HasSuffix(line, ":")
	}
	return b.String()
}
