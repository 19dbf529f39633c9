package describe

import (
	"fmt"
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
	api       schema.GroupVersionResource
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
	m, err := machineOf(obj)
	if err != nil {
		return err
	}
	d, err := Describe(m)
	if err != nil {
		return err
	}
	api := m.api()
	tb := t.byAPI[api]
	if tb == nil {
		tb = &getTable{api: api}
		t.byAPI[api] = tb
	}
	tb.rows = append(tb.rows, rowCells(m, d, t.o))
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
		tt := &textTable{headers: headers(api, o)}
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

// headers returns the column headers of api's table.
func headers(api schema.GroupVersionResource, o GetOptions) []string {
	capi := api == ClusterAPIMachines
	var h []string
	if o.AllNamespaces {
		h = append(h, "NAMESPACE")
	}
	h = append(h, "NAME")
	if capi {
		h = append(h, "CLUSTER")
	}
	h = append(h, "PHASE")
	if capi {
		h = append(h, "CAPI-PHASE")
	}
	h = append(h, "READY", "LAST-OP", "NODE", "AGE")
	if o.Wide {
		h = append(h, "IN-STEP", "POOL", "REASON")
		if capi {
			h = append(h, "UP-TO-DATE")
		}
		h = append(h, "PROVIDERID", "VERSION", "DESCRIPTION")
	}
	for _, l := range o.LabelColumns {
		h = append(h, strings.ToUpper(l[strings.LastIndex(l, "/")+1:]))
	}
	if o.ShowLabels {
		h = append(h, "LABELS")
	}
	return h
}

// rowCells returns the cells of Machine m (described as d), in headers' order, clean.
func rowCells(m Machine, d Description, o GetOptions) []cell {
	capi := m.ClusterAPI != nil
	obj := m.object()
	var cs []cell
	add := func(s string, st style) { cs = append(cs, cell{text: clean(s), style: st}) }
	if o.AllNamespaces {
		add(d.Machine.Namespace, plain)
	}
	add(d.Machine.Name, plain)
	if capi {
		add(d.Cluster, plain)
	}
	add(string(d.Phase), phaseStyle(d.Phase))
	if capi {
		capiPhase := ""
		if !strings.EqualFold(d.ClusterAPIPhase, string(d.Phase)) {
			capiPhase = d.ClusterAPIPhase
		}
		add(capiPhase, plain)
	}
	ready := condition(d, v1alpha1.MachineReadyCondition)
	readyStyle := plain
	if ready != nil && ready.Status != metav1.ConditionTrue {
		readyStyle = warn
	}
	readyStatus := ""
	if ready != nil {
		readyStatus = string(ready.Status)
	}
	add(readyStatus, readyStyle)
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
	add(op, opStyle)
	add(d.Node, plain)
	add(duration.HumanDuration(o.Now.Sub(d.CreationTimestamp.Time)), plain)
	if o.Wide {
		add(inStep, plain)
		pool := aggregate.Pool(obj.GetLabels(), "")
		if !capi {
			pool = aggregate.Pool(obj.GetLabels(), o.PoolLabel)
		}
		add(pool, plain)
		reason := ""
		if ready != nil {
			reason = ready.Reason
		}
		add(reason, plain)
		if capi {
			upToDate := ""
			if c := condition(d, "UpToDate"); c != nil {
				upToDate = string(c.Status)
			}
			add(upToDate, plain)
		}
		add(d.ProviderID, plain)
		add(d.Version, plain)
		add(description, plain)
	}
	ls := obj.GetLabels()
	for _, l := range o.LabelColumns {
		add(ls[l], plain)
	}
	if o.ShowLabels {
		add(labelsText(ls), plain)
	}
	return cs
}

// labelsText is --show-labels' cell: k=v pairs by key, or <none>.
func labelsText(ls map[string]string) string {
	if len(ls) == 0 {
		return "<none>"
	}
	return labels.FormatLabels(ls)
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

// noMachinesFoundText says, as kubectl does, that a list found nothing in namespace (empty:
// every namespace).
func noMachinesFoundText(namespace string) string {
	if namespace == "" {
		return "No Machines found in any namespace."
	}
	return fmt.Sprintf("No Machines found in namespace %s.", namespace)
}
