package describe

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/duration"
	"k8s.io/client-go/dynamic"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
)

// eventRecord is an Event about a Machine.
type eventRecord struct {
	namespace                string
	apiVersion, name, uid    string // the Machine it regards
	relatedKind, relatedName string // the object it names as related, "" without
	typ, reason, note, from  string
	count                    int64
	first, last              time.Time
}

var eventsV1 = eventsv1.SchemeGroupVersion.WithResource("events")

// listMachineEvents returns the Events about Machines (of any API) of namespace (every
// namespace when empty), oldest first, read through events.k8s.io/v1 (which the manager
// records with, and which serves core/v1 Events too). Events that cannot be read (forbidden)
// give no Events and the error, for a warning.
func listMachineEvents(ctx context.Context, client dynamic.Interface, namespace string) ([]eventRecord, error) {
	items, err := listAll(ctx, client.Resource(eventsV1).Namespace(namespace), "regarding.kind=Machine")
	if err != nil {
		return nil, err
	}
	out := make([]eventRecord, 0, len(items))
	for _, it := range items {
		var ev eventsv1.Event
		if runtime.DefaultUnstructuredConverter.FromUnstructured(it.Object, &ev) != nil || ev.Regarding.Kind != "Machine" {
			continue
		}
		e := eventRecord{namespace: ev.Namespace, typ: ev.Type, reason: ev.Reason, note: ev.Note,
			apiVersion: ev.Regarding.APIVersion, name: ev.Regarding.Name, uid: string(ev.Regarding.UID),
			from:  cmp.Or(ev.ReportingController, ev.DeprecatedSource.Component),
			first: cmp.Or(ev.DeprecatedFirstTimestamp.Time, ev.EventTime.Time, ev.CreationTimestamp.Time),
			last:  cmp.Or(ev.DeprecatedLastTimestamp.Time, ev.EventTime.Time),
			count: max(1, int64(ev.DeprecatedCount)),
		}
		if ev.Related != nil {
			e.relatedKind, e.relatedName = ev.Related.Kind, ev.Related.Name
		}
		if ev.Series != nil {
			e.count = int64(ev.Series.Count)
			e.last = cmp.Or(ev.Series.LastObservedTime.Time, e.last)
		}
		e.last = cmp.Or(e.last, e.first)
		out = append(out, e)
	}
	slices.SortStableFunc(out, func(a, b eventRecord) int { return a.last.Compare(b.last) })
	return out, nil
}

// listAll lists r with fieldSelector, again without it when the server does not support it
// (the kind is then checked here).
func listAll(ctx context.Context, r dynamic.ResourceInterface, fieldSelector string) ([]unstructured.Unstructured, error) {
	var items []unstructured.Unstructured
	opts := metav1.ListOptions{FieldSelector: fieldSelector, Limit: DefaultChunkSize}
	for {
		list, err := r.List(ctx, opts)
		if apierrors.IsBadRequest(err) && opts.FieldSelector != "" {
			opts = metav1.ListOptions{Limit: DefaultChunkSize}
			items = nil
			continue
		}
		if err != nil {
			return nil, err
		}
		items = append(items, list.Items...)
		if opts.Continue = list.GetContinue(); opts.Continue == "" {
			return items, nil
		}
	}
}

// group returns the API group of the Machine the Event regards.
func (e eventRecord) group() string {
	g, _, _ := strings.Cut(e.apiVersion, "/")
	if !strings.Contains(e.apiVersion, "/") {
		return ""
	}
	return g
}

// regards reports whether e is about Machine m.
func (e eventRecord) regards(m Machine) bool {
	obj := m.object()
	if e.namespace != obj.GetNamespace() || e.name != obj.GetName() || e.group() != m.api().Group {
		return false
	}
	return e.uid == "" || e.uid == string(obj.GetUID())
}

// failedOperation returns the operation of a failure Event of the machinestatus manager
// (reason <Type>Failed: CreateFailed, UpdateFailed, DrainNodeFailed, HealthCheckFailed,
// DeleteFailed), else "".
func (e eventRecord) failedOperation() v1alpha1.MachineOperationType {
	op, ok := strings.CutSuffix(e.reason, "Failed")
	if !ok || e.typ != "Warning" || !slices.Contains(v1alpha1.MachineOperationTypes(), v1alpha1.MachineOperationType(op)) {
		return ""
	}
	return v1alpha1.MachineOperationType(op)
}

// writeEvents prints evs as kubectl describe's Events section.
func writeEvents(b *strings.Builder, evs []eventRecord, now time.Time) {
	if len(evs) == 0 {
		b.WriteString("Events:         <none>\n")
		return
	}
	b.WriteString("Events:\n")
	t := &textTable{headers: []string{"  Type", "Reason", "Age", "From", "Message"}}
	t.rows = append(t.rows, []cell{{text: "  ----"}, {text: "------"}, {text: "----"}, {text: "----"}, {text: "-------"}})
	for _, e := range evs {
		age := duration.HumanDuration(max(0, now.Sub(e.last)))
		if e.count > 1 {
			age = fmt.Sprintf("%s (x%d over %s)", age, e.count, duration.HumanDuration(max(0, now.Sub(e.first))))
		}
		st := plain
		if e.typ == "Warning" {
			st = warn
		}
		t.rows = append(t.rows, []cell{{text: "  " + clean(e.typ), style: st}, {text: clean(e.reason)}, {text: age},
			{text: clean(e.from)}, {text: clean(strings.TrimSpace(e.note))}})
	}
	var sb strings.Builder
	_ = t.write(&sb, false, false)
	b.WriteString(sb.String())
}
