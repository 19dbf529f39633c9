package describe

import (
	"io"
	"slices"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/duration"

	"github.com/machinestatus/machinestatus/aggregate"
	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/conditions"
)

// NoHistoryMarker ends the LAST-OP cell of a Cluster API Machine whose lastOperation get
// derived from its conditions alone, without the history a manager keeps in the
// machinestatus.io/last-operation annotation; NoHistoryFootnote explains it below the table.
const (
	NoHistoryMarker   = "*"
	NoHistoryFootnote = "* derived from the conditions alone: no machinestatus manager keeps this Machine's " +
		"lastOperation history (annotation machinestatus.io/last-operation), so a registered Node counts as created: " +
		"one still booting reads as a health check until it is Ready; run the manager with --machine-apis=cluster.x-k8s.io (docs/clusterapi.md)"
)

// GetOptions say how get's tables print.
type GetOptions struct {
	// AllNamespaces adds the NAMESPACE column; Wide the wide columns; NoHeaders drops the
	// header; ShowLabels adds a LABELS column; Color colours problems.
	AllNamespaces, Wide, NoHeaders, ShowLabels, Color bool
	// LabelColumns adds a column per label key (-L), headed by the key's last segment.
	LabelColumns []string
	// WithKind prefixes names with machine.GROUP/ (when several APIs are printed).
	WithKind bool
	// PoolLabel is the label naming a machinestatus Machine's pool (aggregate.Pool).
	PoolLabel string
	// SortBy is a kubectl --sort-by JSONPath, applied to each API's Machines as kubectl get
	// applies it to a table's objects; empty keeps the server's order.
	SortBy string
	// Now is the time AGE is computed at.
	Now time.Time
}

// getTable gathers the rows of one Machine API as the Machines arrive: only strings, so that
// a long list keeps no objects, except with --sort-by, which kubectl's sorter reads from the
// objects (objs, one per row).
type getTable struct {
	headers   []string
	rows      [][]cell
	objs      []runtime.Object
	noHistory bool
}

// tables gathers get's tables, one per Machine API, in machineAPIs order.
type tables struct {
	o     GetOptions
	byAPI map[schema.GroupVersionResource]*getTable
}

func newTables(o GetOptions) *tables {
	return &tables{o: o, byAPI: map[schema.GroupVersionResource]*getTable{}}
}

// add adds the row of the Machine obj (typed, or unstructured as the server sent it).
func (t *tables) add(obj runtime.Object) error {
	m, d, err := describeObject(obj)
	if err != nil {
		return err
	}
	api := m.api()
	headers, cells := row(m, d, t.o)
	tb := t.byAPI[api]
	if tb == nil {
		tb = &getTable{headers: headers}
		t.byAPI[api] = tb
	}
	tb.rows = append(tb.rows, cells)
	if t.o.SortBy != "" {
		tb.objs = append(tb.objs, obj)
	}
	if api == ClusterAPIMachines && d.LastOperationSource == LastOperationFromConditions {
		tb.noHistory = true
	}
	return nil
}

// len is the number of rows.
func (t *tables) len() int {
	n := 0
	for _, tb := range t.byAPI {
		n += len(tb.rows)
	}
	return n
}

// write prints the tables to w, separated by a blank line (names carry machine.GROUP/ when
// there are several, as kubectl get prints several types), and returns whether a lastOperation
// was derived without history (see NoHistoryFootnote).
func (t *tables) write(w io.Writer) (noHistory bool, err error) {
	n := 0
	for _, api := range machineAPIs {
		tb := t.byAPI[api]
		if tb == nil {
			continue
		}
		if t.o.SortBy != "" {
			if err := sortRows(tb.rows, tb.objs, t.o.SortBy); err != nil {
				return noHistory, err
			}
		}
		o := t.o
		o.WithKind = o.WithKind || len(t.byAPI) > 1
		tt := &textTable{headers: tb.headers}
		for _, cells := range tb.rows {
			if o.WithKind {
				cells = slices.Clone(cells)
				cells[nameColumn(o)].text = "machine." + api.Group + "/" + cells[nameColumn(o)].text
			}
			tt.rows = append(tt.rows, cells)
		}
		if n > 0 {
			if _, err := io.WriteString(w, "\n"); err != nil {
				return noHistory, err
			}
		}
		n++
		if err := tt.write(w, o.NoHeaders, o.Color); err != nil {
			return noHistory, err
		}
		noHistory = noHistory || tb.noHistory
	}
	return noHistory, nil
}

// nameColumn is the index of NAME.
func nameColumn(o GetOptions) int {
	if o.AllNamespaces {
		return 1
	}
	return 0
}

// row returns the column headers of Machine m's table and m's cells (described as d), clean.
func row(m Machine, d Description, o GetOptions) (headers []string, cells []cell) {
	capi := m.ClusterAPI != nil
	obj := m.object()
	add := func(header, s string, st style) {
		headers = append(headers, header)
		cells = append(cells, cell{text: clean(s), style: st})
	}
	if o.AllNamespaces {
		add("NAMESPACE", d.Machine.Namespace, plain)
	}
	add("NAME", d.Machine.Name, plain)
	if capi {
		add("CLUSTER", d.Cluster, plain)
	}
	add("PHASE", string(d.Phase), phaseStyle(d.Phase))
	if capi {
		capiPhase := ""
		if !strings.EqualFold(d.ClusterAPIPhase, string(d.Phase)) {
			capiPhase = d.ClusterAPIPhase
		}
		add("CAPI-PHASE", capiPhase, plain)
	}
	ready := condition(d, v1alpha1.MachineReadyCondition)
	readyStatus, readyStyle, reason := "", plain, ""
	if ready != nil {
		readyStatus, reason = string(ready.Status), ready.Reason
		if ready.Status != metav1.ConditionTrue {
			readyStyle = warn
		}
	}
	add("READY", readyStatus, readyStyle)
	op, opStyle, description, inStep := "", plain, "", ""
	if d.LastOperation != nil {
		op = string(d.LastOperation.Type) + " " + string(d.LastOperation.State)
		if d.LastOperation.State == v1alpha1.MachineOperationStateFailed {
			opStyle = bad
		}
		description = conditions.CollapseSpace(d.LastOperation.Description)
		if !d.LastOperation.LastUpdated.IsZero() {
			inStep = duration.HumanDuration(max(0, o.Now.Sub(d.LastOperation.LastUpdated.Time)))
		}
	}
	if capi && d.LastOperationSource == LastOperationFromConditions {
		op += NoHistoryMarker
	}
	add("LAST-OP", op, opStyle)
	add("NODE", d.Node, plain)
	add("AGE", duration.HumanDuration(o.Now.Sub(d.CreationTimestamp.Time)), plain)
	if o.Wide {
		add("IN-STEP", inStep, plain)
		pool := aggregate.Pool(obj.GetLabels(), "")
		if !capi {
			pool = aggregate.Pool(obj.GetLabels(), o.PoolLabel)
		}
		add("POOL", pool, plain)
		add("REASON", reason, plain)
		if capi {
			upToDate := ""
			if c := condition(d, "UpToDate"); c != nil {
				upToDate = string(c.Status)
			}
			add("UP-TO-DATE", upToDate, plain)
		}
		add("PROVIDERID", d.ProviderID, plain)
		add("VERSION", d.Version, plain)
		add("DESCRIPTION", description, plain)
	}
	ls := obj.GetLabels()
	for _, l := range o.LabelColumns {
		add(strings.ToUpper(l[strings.LastIndex(l, "/")+1:]), ls[l], plain)
	}
	if o.ShowLabels {
		add("LABELS", labels.FormatLabels(ls), plain) // k=v by key, or <none>
	}
	return headers, cells
}

// phaseStyle colours a phase: Failed red; Unknown, Deleting, Pending yellow.
func phaseStyle(p v1alpha1.MachinePhase) style {
	switch p {
	case v1alpha1.MachinePhaseFailed:
		return bad
	case v1alpha1.MachinePhaseUnknown, v1alpha1.MachinePhaseDeleting:
		return warn
	}
	return plain
}

// condition returns d's condition of type t, or nil.
func condition(d Description, t string) *Condition {
	for i := range d.Conditions {
		if d.Conditions[i].Type == t {
			return &d.Conditions[i]
		}
	}
	return nil
}
