package describe

import (
	"fmt"
	"os"
	"reflect"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/util/jsonpath"
)

// customColumns is -o custom-columns=HEADER:JSONPATH,... (or custom-columns-file=FILE, a
// header line and a JSONPath line, as kubectl reads it): one column per spec, each evaluated on
// the Machine as the server returned it; a missing value prints <none>. Cells are cleaned like
// every table's.
type customColumns struct {
	headers []string
	paths   []*jsonpath.JSONPath
	table   textTable
}

// newCustomColumns parses the output format, or returns nil when it is no custom-columns one.
func newCustomColumns(output string) (*customColumns, error) {
	format, spec, _ := strings.Cut(output, "=")
	var pairs []string
	switch format {
	case "custom-columns":
		if spec == "" {
			return nil, &UsageError{Msg: "custom-columns needs a spec: -o custom-columns=NAME:.metadata.name,PHASE:.status.phase"}
		}
		pairs = strings.Split(spec, ",")
	case "custom-columns-file":
		b, err := os.ReadFile(spec)
		if err != nil {
			return nil, &UsageError{Msg: fmt.Sprintf("cannot read the custom-columns file: %v", err)}
		}
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		if len(lines) != 2 {
			return nil, &UsageError{Msg: "a custom-columns file has two lines: the headers and their JSONPaths"}
		}
		hs, ps := strings.Fields(lines[0]), strings.Fields(lines[1])
		if len(hs) != len(ps) {
			return nil, &UsageError{Msg: fmt.Sprintf("the custom-columns file has %d headers and %d paths", len(hs), len(ps))}
		}
		for i := range hs {
			pairs = append(pairs, hs[i]+":"+ps[i])
		}
	default:
		return nil, nil
	}
	c := &customColumns{}
	for _, p := range pairs {
		header, path, ok := strings.Cut(p, ":")
		if !ok || header == "" || path == "" {
			return nil, &UsageError{Msg: fmt.Sprintf("custom-columns: %q is not HEADER:JSONPATH", p)}
		}
		jp := jsonpath.New(header).AllowMissingKeys(true)
		if err := jp.Parse(relaxedJSONPath(path)); err != nil {
			return nil, &UsageError{Msg: fmt.Sprintf("custom-columns: invalid JSONPath %q: %v", path, err)}
		}
		c.headers = append(c.headers, header)
		c.paths = append(c.paths, jp)
	}
	c.table.headers = c.headers
	return c, nil
}

// add adds u's row.
func (c *customColumns) add(u *unstructured.Unstructured) error {
	row := make([]cell, len(c.paths))
	for i, p := range c.paths {
		results, err := p.FindResults(u.Object)
		if err != nil {
			return err
		}
		var vals []string
		for _, rs := range results {
			for _, v := range rs {
				for v.Kind() == reflect.Interface && !v.IsNil() {
					v = v.Elem()
				}
				if v.IsValid() && (v.Kind() != reflect.Interface || !v.IsNil()) {
					vals = append(vals, fmt.Sprint(v.Interface()))
				}
			}
		}
		text := "<none>"
		if len(vals) > 0 {
			text = strings.Join(vals, ",")
		}
		row[i] = cell{text: clean(text)}
	}
	c.table.rows = append(c.table.rows, row)
	return nil
}
