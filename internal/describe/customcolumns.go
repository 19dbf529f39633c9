package describe

import (
	"fmt"
	"io"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/cli-runtime/pkg/printers"
	kget "k8s.io/kubectl/pkg/cmd/get"
)

// -o custom-columns (and custom-columns-file) is kubectl's printer. It prints values as they
// are, only ESC and CR escaped: so each Machine reaches it with every string, map keys too,
// passed through clean, as every table's cells are.

// cleaningPrinter prints through delegate a copy of each unstructured object (or list of them)
// with every string cleaned.
type cleaningPrinter struct {
	delegate printers.ResourcePrinter
}

// cleanColumns wraps p when it is kubectl's custom-columns printer; other printers (json,
// yaml, name, templates) print the Machines exactly and are returned as they are.
func cleanColumns(p printers.ResourcePrinter) printers.ResourcePrinter {
	if _, ok := p.(*kget.CustomColumnsPrinter); ok {
		return cleaningPrinter{delegate: p}
	}
	return p
}

// PrintObj implements printers.ResourcePrinter.
func (p cleaningPrinter) PrintObj(obj runtime.Object, w io.Writer) error {
	switch o := obj.(type) {
	case *unstructured.Unstructured:
		return p.delegate.PrintObj(&unstructured.Unstructured{Object: cleanValue(o.Object).(map[string]any)}, w)
	case *unstructured.UnstructuredList:
		list := &unstructured.UnstructuredList{Object: o.Object, Items: make([]unstructured.Unstructured, len(o.Items))}
		for i := range o.Items {
			list.Items[i].Object = cleanValue(o.Items[i].Object).(map[string]any)
		}
		return p.delegate.PrintObj(list, w)
	}
	return fmt.Errorf("cannot print a %T as custom columns", obj)
}

// cleanValue returns a copy of v, a JSON value as unstructured objects hold them, with every
// string and map key cleaned.
func cleanValue(v any) any {
	switch x := v.(type) {
	case string:
		return clean(x)
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[clean(k)] = cleanValue(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = cleanValue(e)
		}
		return out
	}
	return v
}
