package describe

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/duration"
	"k8s.io/cli-runtime/pkg/printers"

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

// Table returns the kubectl table of descriptions ds of Machines of one API (api), as `get`
// prints it with the cli-runtime table printer: NAME, CLUSTER (Cluster API only), PHASE,
// CAPI-PHASE (Cluster API only: its own status.phase where it differs from PHASE), READY (the
// Ready condition's status), LAST-OP (type and state; NoHistoryMarker when derived without
// history), NODE and AGE (at now, as kubectl prints it); with -o wide (priority 1) also
// PROVIDERID, VERSION and DESCRIPTION (the lastOperation's). Each row's object carries the
// Machine's namespace and name, for the NAMESPACE column of -A.
func Table(api schema.GroupVersionResource, ds []Description, now time.Time) *metav1.Table {
	capi := api == ClusterAPIMachines
	col := func(name, typ, format, desc string, priority int32) metav1.TableColumnDefinition {
		return metav1.TableColumnDefinition{Name: name, Type: typ, Format: format, Description: desc, Priority: priority}
	}
	cols := []metav1.TableColumnDefinition{col("Name", "string", "name", "The Machine's name.", 0)}
	if capi {
		cols = append(cols, col("Cluster", "string", "", "spec.clusterName.", 0))
	}
	cols = append(cols, col("Phase", "string", "", "The machinestatus phase.", 0))
	if capi {
		cols = append(cols, col("CAPI-Phase", "string", "", "Cluster API's own status.phase, where it differs from Phase.", 0))
	}
	cols = append(cols,
		col("Ready", "string", "", "The Ready condition's status.", 0),
		col("Last-Op", "string", "", "The lastOperation's type and state.", 0),
		col("Node", "string", "", "status.nodeRef.name.", 0),
		col("Age", "string", "", "Since metadata.creationTimestamp.", 0),
		col("ProviderID", "string", "", "spec.providerID.", 1),
		col("Version", "string", "", "spec.version.", 1),
		col("Description", "string", "", "The lastOperation's description.", 1),
	)
	t := &metav1.Table{ColumnDefinitions: cols}
	for _, d := range ds {
		cells := []any{d.Machine.Name}
		if capi {
			cells = append(cells, d.Cluster)
		}
		cells = append(cells, string(d.Phase))
		if capi {
			capiPhase := ""
			if !strings.EqualFold(d.ClusterAPIPhase, string(d.Phase)) {
				capiPhase = d.ClusterAPIPhase
			}
			cells = append(cells, capiPhase)
		}
		op, description := "", ""
		if d.LastOperation != nil {
			op = string(d.LastOperation.Type) + " " + string(d.LastOperation.State)
			description = conditions.CollapseSpace(d.LastOperation.Description)
		}
		if capi && d.LastOperationSource == LastOperationFromConditions {
			op += NoHistoryMarker
		}
		cells = append(cells, readyStatus(d), op, d.Node,
			duration.HumanDuration(now.Sub(d.CreationTimestamp.Time)), d.ProviderID, d.Version, description)
		obj := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: d.Machine.Namespace, Name: d.Machine.Name}}
		t.Rows = append(t.Rows, metav1.TableRow{Cells: cells, Object: runtime.RawExtension{Object: obj}})
	}
	return t
}

// readyStatus is the status of d's Ready condition, "" when it has none.
func readyStatus(d Description) string {
	i := slices.IndexFunc(d.Conditions, func(c Condition) bool { return c.Type == v1alpha1.MachineReadyCondition })
	if i < 0 {
		return ""
	}
	return string(d.Conditions[i].Status)
}

// GetOptions say how WriteTables prints.
type GetOptions struct {
	// AllNamespaces adds the NAMESPACE column; Wide the priority-1 columns; NoHeaders drops the
	// header; ShowLabels adds a LABELS column.
	AllNamespaces, Wide, NoHeaders, ShowLabels bool
	// Now is the time AGE is computed at.
	Now time.Time
}

// WriteTables prints, for each API of apis that has Machines in ms (with their descriptions
// ds, in the same order), one kubectl table to w, separated by a blank line; names carry the
// resource (machine.cluster.x-k8s.io/NAME) when more than one API is printed, as kubectl get
// does for several types. It returns whether some Machine's lastOperation was derived without
// history (see NoHistoryFootnote), or the printer's error.
func WriteTables(w io.Writer, ms []Machine, ds []Description, o GetOptions) (noHistory bool, err error) {
	byAPI := map[schema.GroupVersionResource][]int{}
	var apis []schema.GroupVersionResource
	for i, m := range ms {
		api := MachinestatusMachines
		if m.ClusterAPI != nil {
			api = ClusterAPIMachines
		}
		if _, ok := byAPI[api]; !ok {
			apis = append(apis, api)
		}
		byAPI[api] = append(byAPI[api], i)
	}
	slices.SortFunc(apis, func(a, b schema.GroupVersionResource) int {
		return slices.Index(machineAPIs, a) - slices.Index(machineAPIs, b)
	})
	for n, api := range apis {
		var sel []Description
		for _, i := range byAPI[api] {
			sel = append(sel, ds[i])
			if ds[i].LastOperationSource == LastOperationFromConditions && ms[i].ClusterAPI != nil {
				noHistory = true
			}
		}
		t := Table(api, sel, o.Now)
		setLabels(t, ms, byAPI[api])
		if n > 0 {
			fmt.Fprintln(w)
		}
		p := printers.NewTablePrinter(printers.PrintOptions{
			NoHeaders: o.NoHeaders, WithNamespace: o.AllNamespaces, Wide: o.Wide, ShowLabels: o.ShowLabels,
			WithKind: len(apis) > 1, Kind: schema.GroupKind{Group: api.Group, Kind: "Machine"},
		})
		if err := p.PrintObj(t, w); err != nil {
			return noHistory, err
		}
	}
	return noHistory, nil
}

// setLabels gives the rows of t, the Machines ms[idx...], their labels, for --show-labels.
func setLabels(t *metav1.Table, ms []Machine, idx []int) {
	for r, i := range idx {
		if obj, ok := t.Rows[r].Object.Object.(*metav1.PartialObjectMetadata); ok {
			obj.Labels = ms[i].object().GetLabels()
		}
	}
}

// object returns the Machine as a metav1.Object.
func (m Machine) object() metav1.Object {
	if m.ClusterAPI != nil {
		return m.ClusterAPI
	}
	return m.Machinestatus
}

// Objects returns the Machines as the API server returned them, for -o json, yaml and name: the
// one Machine when single is true and there is exactly one, else a v1 List of them all.
func Objects(ms []Machine, single bool) (runtime.Object, error) {
	items := make([]unstructured.Unstructured, 0, len(ms))
	for _, m := range ms {
		var obj runtime.Object = m.Machinestatus
		gvk := v1alpha1.GroupVersion.WithKind("Machine")
		if m.ClusterAPI != nil {
			obj, gvk = m.ClusterAPI, ClusterAPIMachines.GroupVersion().WithKind("Machine")
		}
		u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
		if err != nil {
			return nil, fmt.Errorf("cannot convert Machine %s/%s: %w", m.object().GetNamespace(), m.object().GetName(), err)
		}
		item := unstructured.Unstructured{Object: u}
		item.SetGroupVersionKind(gvk)
		items = append(items, item)
	}
	if single && len(items) == 1 {
		return &items[0], nil
	}
	list := &unstructured.UnstructuredList{Items: items}
	list.SetAPIVersion("v1")
	list.SetKind("List")
	list.SetResourceVersion("")
	return list, nil
}
