package describe

import (
	"fmt"
	"reflect"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/util/jsonpath"
)

// sorter evaluates a kubectl --sort-by JSONPath (e.g. .metadata.name, '{.status.phase}') on
// each Machine, as the object the server returned, and keeps only the value: rows are sorted as
// kubectl get sorts them (a missing value first, numbers by value, strings in natural order,
// false before true).
type sorter struct {
	path *jsonpath.JSONPath
}

// newSorter parses expr, kubectl's relaxed JSONPath: the braces and the leading dot optional.
func newSorter(expr string) (*sorter, error) {
	p := jsonpath.New("sort-by").AllowMissingKeys(true)
	if err := p.Parse(relaxedJSONPath(expr)); err != nil {
		return nil, &UsageError{Msg: fmt.Sprintf("invalid --sort-by %q: %v", expr, err)}
	}
	return &sorter{path: p}, nil
}

// relaxedJSONPath turns kubectl's relaxed forms (metadata.name, .metadata.name) into a
// template ({.metadata.name}).
func relaxedJSONPath(expr string) string {
	expr = strings.TrimSpace(expr)
	if strings.HasPrefix(expr, "{") && strings.HasSuffix(expr, "}") {
		return expr
	}
	if !strings.HasPrefix(expr, ".") {
		expr = "." + expr
	}
	return "{" + expr + "}"
}

// sortKey is one object's --sort-by value.
type sortKey struct {
	present bool
	kind    reflect.Kind // Float64 for every number, String, Bool, or Interface for anything else
	f       float64
	s       string
	b       bool
}

// key evaluates the path on obj.
func (s *sorter) key(obj runtime.Object) (sortKey, error) {
	var content map[string]any
	if u, ok := obj.(*unstructured.Unstructured); ok {
		content = u.Object
	} else {
		var err error
		if content, err = runtime.DefaultUnstructuredConverter.ToUnstructured(obj); err != nil {
			return sortKey{}, err
		}
	}
	results, err := s.path.FindResults(content)
	if err != nil || len(results) == 0 || len(results[0]) == 0 {
		return sortKey{}, nil //nolint:nilerr // a value missing from one object sorts first, as in kubectl
	}
	v := results[0][0]
	for v.Kind() == reflect.Interface || v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return sortKey{}, nil
		}
		v = v.Elem()
	}
	k := sortKey{present: true}
	switch v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		k.kind, k.f = reflect.Float64, float64(v.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		k.kind, k.f = reflect.Float64, float64(v.Uint())
	case reflect.Float32, reflect.Float64:
		k.kind, k.f = reflect.Float64, v.Float()
	case reflect.String:
		k.kind, k.s = reflect.String, v.String()
	case reflect.Bool:
		k.kind, k.b = reflect.Bool, v.Bool()
	default:
		k.kind, k.s = reflect.Interface, fmt.Sprint(v.Interface())
	}
	return k, nil
}

// less orders two keys.
func (k sortKey) less(o sortKey) bool {
	switch {
	case !k.present || !o.present:
		return !k.present && o.present
	case k.kind != o.kind:
		return naturalLess(fmt.Sprint(k.value()), fmt.Sprint(o.value()))
	case k.kind == reflect.Float64:
		return k.f < o.f
	case k.kind == reflect.Bool:
		return !k.b && o.b
	}
	return naturalLess(k.s, o.s)
}

func (k sortKey) value() any {
	switch k.kind {
	case reflect.Float64:
		return k.f
	case reflect.Bool:
		return k.b
	}
	return k.s
}

// naturalLess compares strings with runs of digits compared by value ("m-2" before "m-10"), as
// kubectl's sorter does.
func naturalLess(a, b string) bool {
	for a != "" && b != "" {
		da, db := digits(a), digits(b)
		if da > 0 && db > 0 {
			na, nb := strings.TrimLeft(a[:da], "0"), strings.TrimLeft(b[:db], "0")
			if len(na) != len(nb) {
				return len(na) < len(nb)
			}
			if na != nb {
				return na < nb
			}
			a, b = a[da:], b[db:]
			continue
		}
		if a[0] != b[0] {
			return a[0] < b[0]
		}
		a, b = a[1:], b[1:]
	}
	return len(a) < len(b)
}

// digits returns the length of the run of ASCII digits s starts with.
func digits(s string) int {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i
}

// sortStable sorts idx, indexes of rows, stably by less on the rows.
func sortStable(idx []int, less func(a, b int) bool) {
	sort.SliceStable(idx, func(i, j int) bool { return less(idx[i], idx[j]) })
}
