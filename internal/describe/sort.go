package describe

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/util/jsonpath"
	kget "k8s.io/kubectl/pkg/cmd/get"
)

// --sort-by is kubectl get's, through its own sorter: kubectl sorts the rows of a table by a
// JSONPath of the object each row carries; a table here is one Machine API's rows, each with
// the Machine it was computed from.

// checkSortBy returns a *UsageError when expr, kubectl's relaxed JSONPath (the braces and the
// leading dot optional), cannot be parsed.
func checkSortBy(expr string) error {
	if expr == "" {
		return nil
	}
	field, err := kget.RelaxedJSONPathExpression(expr)
	if err == nil {
		err = jsonpath.New("sort-by").Parse(field)
	}
	if err != nil {
		return &UsageError{Msg: fmt.Sprintf("invalid --sort-by %q: %v", expr, err)}
	}
	return nil
}

// sortRows orders rows, computed from objs (one each, in the same order), by the JSONPath expr
// evaluated on the objects, as kubectl get sorts a table (kubectl's RuntimeSorter).
func sortRows(rows [][]cell, objs []runtime.Object, expr string) error {
	table := &metav1.Table{Rows: make([]metav1.TableRow, len(rows))}
	for i := range rows {
		table.Rows[i] = metav1.TableRow{Cells: []any{rows[i]}, Object: runtime.RawExtension{Object: objs[i]}}
	}
	if err := kget.NewRuntimeSorter([]runtime.Object{table}, expr).Sort(); err != nil {
		return err
	}
	for i, r := range table.Rows {
		rows[i] = r.Cells[0].([]cell)
	}
	return nil
}
