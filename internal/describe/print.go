package describe

import (
	"io"
	"os"
	"strings"
	"unicode/utf8"

	"golang.org/x/term"

	"github.com/machinestatus/machinestatus/conditions"
)

// Everything the CLI prints for people (tables, trees, describe's text) goes through this
// file: each string it did not write itself (names, reasons, messages, labels, annotations) is
// passed through clean, so that another writer's text cannot act on the terminal; colour is
// added here too, and only here. -o json, yaml, jsonpath and go-template print the objects as
// the server returned them, exactly.

// clean returns s safe to print: conditions.Sanitize, the one rule the manager applies too.
func clean(s string) string { return conditions.Sanitize(s) }

// style is how a cell is coloured.
type style uint8

const (
	plain style = iota
	// bad is a failure (phase Failed, an operation Failed): red.
	bad
	// warn is a problem that may pass (phase Unknown, Ready not True, Deleting): yellow.
	warn
	// good is a healthy summary (all Running): green.
	good
)

// ANSI SGR sequences of the styles.
var styleCodes = [...]string{plain: "", bad: "\x1b[31m", warn: "\x1b[33m", good: "\x1b[32m"}

const resetCode = "\x1b[0m"

// Colour modes of --color.
const (
	ColorAuto   = "auto"
	ColorAlways = "always"
	ColorNever  = "never"
)

// useColor says whether to colour what is written to w in mode (ColorAuto, ColorAlways or
// ColorNever): auto colours only a terminal, and never when NO_COLOR is set to a non-empty value
// (no-color.org) or TERM is dumb.
func useColor(mode string, w io.Writer) bool {
	switch mode {
	case ColorAlways:
		return true
	case ColorNever:
		return false
	}
	if os.Getenv("NO_COLOR") != "" || os.Getenv("TERM") == "dumb" {
		return false
	}
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// cell is one printed value: text (already clean) and its style.
type cell struct {
	text  string
	style style
}

// paint returns c's text in its style when colour is on.
func (c cell) paint(color bool) string {
	if !color || c.style == plain || c.text == "" {
		return c.text
	}
	return styleCodes[c.style] + c.text + resetCode
}

// textTable is a table printed as kubectl prints them: upper-case headers, columns three spaces
// apart (at least six wide), the last column unpadded.
type textTable struct {
	headers []string
	rows    [][]cell
}

// write prints t to w, header first unless noHeaders, colour when color.
func (t *textTable) write(w io.Writer, noHeaders, color bool) error {
	widths := make([]int, len(t.headers))
	if !noHeaders {
		for i, h := range t.headers {
			widths[i] = utf8.RuneCountInString(h)
		}
	}
	for _, r := range t.rows {
		for i, c := range r {
			widths[i] = max(widths[i], utf8.RuneCountInString(c.text))
		}
	}
	var b strings.Builder
	line := func(cells []cell) {
		// Trailing empty cells print nothing, not even their padding.
		last := len(cells) - 1
		for last > 0 && cells[last].text == "" {
			last--
		}
		for i, c := range cells[:last+1] {
			b.WriteString(c.paint(color))
			if i == last {
				break
			}
			pad := max(widths[i]+3, 6) - utf8.RuneCountInString(c.text)
			b.WriteString(strings.Repeat(" ", pad))
		}
		b.WriteString("\n")
	}
	if !noHeaders {
		hs := make([]cell, len(t.headers))
		for i, h := range t.headers {
			hs[i] = cell{text: h}
		}
		line(hs)
	}
	for i, r := range t.rows {
		line(r)
		// Flush every few hundred rows, so that a long table streams out.
		if i%256 == 255 {
			if _, err := io.WriteString(w, b.String()); err != nil {
				return err
			}
			b.Reset()
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
