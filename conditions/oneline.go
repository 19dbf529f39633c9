package conditions

import "strings"

// OneLine returns msg on a single line, so that it reads cleanly wherever it is printed as it
// is (kubectl describe prints a multi-line value's continuation lines at column 0). Each line is
// trimmed of surrounding white space and of a leading list marker ("* " or "- ", as Cluster API
// v1beta2 summaries start their lines); empty lines are dropped; the lines are joined with ", ",
// or with a space after a line that ends with ":" (a heading and its nested list). For example
// "* A: x\n* B:\n  * C: y" becomes "A: x, B: C: y".
func OneLine(msg string) string {
	if !strings.ContainsAny(msg, "\r\n") {
		return msg
	}
	var b strings.Builder
	for _, line := range strings.FieldsFunc(msg, func(r rune) bool { return r == '\n' || r == '\r' }) {
		line = strings.TrimSpace(line)
		line = strings.TrimSpace(strings.TrimPrefix(line, "* "))
		line = strings.TrimSpace(strings.TrimPrefix(line, "- "))
		switch {
		case line == "":
			continue
		case b.Len() == 0:
		case strings.HasSuffix(b.String(), ":"):
			b.WriteString(" ")
		default:
			b.WriteString(", ")
		}
		b.WriteString(line)
	}
	return b.String()
}

// CollapseSpace returns s with every run of white space (line breaks included) made one space
// and none at either end: the rule for quoting free text on one line (lastOperation
// descriptions, event notes, printed columns). Unlike OneLine it reads no list structure.
func CollapseSpace(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
