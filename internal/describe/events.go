package describe

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/duration"
	"k8s.io/client-go/dynamic"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
)

// eventRecord is an Event about a Machine, from events.k8s.io/v1 or core/v1.
type eventRecord struct {
	namespace                string
	apiVersion, name, uid    string // the Machine it regards
	relatedKind, relatedName string // events.k8s.io's related, "" without
	typ, reason, note, from  string
	count                    int64
	first, last              time.Time
}

var (
	eventsV1 = schema.GroupVersionResource{Group: "events.k8s.io", Version: "v1", Resource: "events"}
	eventsV0 = schema.GroupVersionResource{Version: "v1", Resource: "events"}
)

// listMachineEvents returns the Events about Machines (of any API) of namespace (every
// namespace when empty): events.k8s.io/v1, else core/v1. An Event API that cannot be read
// (forbidden) gives no Events and the error, for a warning.
func listMachineEvents(ctx context.Context, client dynamic.Interface, namespace string) ([]eventRecord, error) {
	list, err := listAll(ctx, client.Resource(eventsV1).Namespace(namespace), "regarding.kind=Machine")
	if apierrors.IsNotFound(err) {
		list, err = listAll(ctx, client.Resource(eventsV0).Namespace(namespace), "involvedObject.kind=Machine")
		if err != nil {
			return nil, err
		}
		return convertEvents(list, false), nil
	}
	if err != nil {
		return nil, err
	}
	return convertEvents(list, true), nil
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

// convertEvents reads Events (v1: events.k8s.io/v1, else core/v1), keeping those about a
// Machine.
func convertEvents(items []unstructured.Unstructured, v1 bool) []eventRecord {
	out := make([]eventRecord, 0, len(items))
	str := func(u map[string]any, path ...string) string {
		s, _, _ := unstructured.NestedString(u, path...)
		return s
	}
	tm := func(u map[string]any, path ...string) time.Time {
		t, _ := time.Parse(time.RFC3339Nano, str(u, path...))
		return t
	}
	for _, it := range items {
		u := it.Object
		e := eventRecord{namespace: it.GetNamespace(), typ: str(u, "type"), reason: str(u, "reason")}
		if v1 {
			if str(u, "regarding", "kind") != "Machine" {
				continue
			}
			e.apiVersion, e.name, e.uid = str(u, "regarding", "apiVersion"), str(u, "regarding", "name"), str(u, "regarding", "uid")
			e.relatedKind, e.relatedName = str(u, "related", "kind"), str(u, "related", "name")
			e.note = str(u, "note")
			e.from = str(u, "reportingController")
			if e.from == "" {
				e.from = str(u, "deprecatedSource", "component")
			}
			e.first, e.last = tm(u, "eventTime"), tm(u, "eventTime")
			if f := tm(u, "deprecatedFirstTimestamp"); !f.IsZero() {
				e.first = f
			}
			if l := tm(u, "deprecatedLastTimestamp"); !l.IsZero() {
				e.last = l
			}
			e.count = 1
			if n, ok, _ := unstructured.NestedInt64(u, "series", "count"); ok {
				e.count = n
				if l := tm(u, "series", "lastObservedTime"); !l.IsZero() {
					e.last = l
				}
			} else if n, ok, _ := unstructured.NestedInt64(u, "deprecatedCount"); ok && n > 1 {
				e.count = n
			}
		} else {
			if str(u, "involvedObject", "kind") != "Machine" {
				continue
			}
			e.apiVersion, e.name, e.uid = str(u, "involvedObject", "apiVersion"), str(u, "involvedObject", "name"), str(u, "involvedObject", "uid")
			e.note = str(u, "message")
			e.from = str(u, "source", "component")
			if e.from == "" {
				e.from = str(u, "reportingComponent")
			}
			e.first, e.last = tm(u, "firstTimestamp"), tm(u, "lastTimestamp")
			if e.first.IsZero() {
				e.first = tm(u, "eventTime")
			}
			if e.last.IsZero() {
				e.last = e.first
			}
			e.count, _, _ = unstructured.NestedInt64(u, "count")
			e.count = max(e.count, 1)
		}
		if e.first.IsZero() {
			e.first = it.GetCreationTimestamp().Time
		}
		if e.last.IsZero() {
			e.last = e.first
		}
		out = append(out, e)
	}
	slices.SortStableFunc(out, func(a, b eventRecord) int { return a.last.Compare(b.last) })
	return out
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
