package describe

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/cli-runtime/pkg/printers"
	toolscache "k8s.io/client-go/tools/cache"
	watchtools "k8s.io/client-go/tools/watch"
)

// runWatch is get --watch and --watch-only, as kubectl get has them: list the Machines args
// name (not with --watch-only), then print one line (one object with -o json|yaml|name) per
// change of one of them (added, modified, deleted) until ctx ends (Ctrl-C), which is no error.
// The watch resumes from the last change it printed when the API server closes it (client-go's
// RetryWatcher).
//
// Like kubectl, it watches one resource only: one Machine API (a TYPE that names both, such as
// machine when both are served, is a *UsageError naming the two) and at most one name. It
// returns resolveArgs' errors, a *NotInstalledError or *NotFoundError as get does (a named
// Machine must exist unless --watch-only), an error the watch reports (e.g. a resourceVersion
// too old to resume from), or the printer's.
func (o *getOptions) runWatch(ctx context.Context, args []string, printer printers.ResourcePrinter) error {
	f, err := o.resolve(args, "watched")
	if err != nil {
		return err
	}
	client, err := o.dynamicClient()
	if err != nil {
		return err
	}
	var apis []schema.GroupVersionResource
	for _, t := range f.targets {
		for _, api := range t.APIs {
			if !slices.Contains(apis, api) {
				apis = append(apis, api)
			}
		}
	}
	switch {
	case len(apis) > 1:
		return &UsageError{Msg: fmt.Sprintf("--watch watches one Machine API at a time, and this names %s: name one (machines.cluster.x-k8s.io or ma, machines.machinestatus.io or msm)",
			strings.Join(apiNames(apis), " and "))}
	case len(f.targets) > 1:
		return &UsageError{Msg: "--watch watches one Machine by name, or every Machine: give at most one name"}
	}
	api, name := apis[0], f.targets[0].Name
	opts := metav1.ListOptions{LabelSelector: o.selector}
	if name != "" {
		opts.FieldSelector = fields.OneTermEqualSelector("metadata.name", name).String()
	}
	resource := client.Resource(api).Namespace(f.namespace)
	list, err := resource.List(ctx, opts)
	switch {
	case apierrors.IsNotFound(err):
		return notInstalled(apis)
	case err != nil:
		return err
	case name != "" && len(list.Items) == 0 && !o.watchOnly:
		return &NotFoundError{Name: name, Namespace: f.namespace, Resources: apiNames(apis)}
	}

	p := &watchPrinter{o: o, printer: printer}
	if !o.watchOnly {
		for i := range list.Items {
			if err := p.print(&list.Items[i], api); err != nil {
				return err
			}
		}
	}
	w, err := watchtools.NewRetryWatcherWithContext(ctx, list.GetResourceVersion(), &toolscache.ListWatch{
		WatchFuncWithContext: func(ctx context.Context, lo metav1.ListOptions) (watch.Interface, error) {
			lo.LabelSelector, lo.FieldSelector = opts.LabelSelector, opts.FieldSelector
			return resource.Watch(ctx, lo)
		},
	})
	if err != nil {
		return err
	}
	defer w.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-w.ResultChan():
			if !ok {
				if ctx.Err() != nil {
					return nil
				}
				return errors.New("the watch ended")
			}
			switch ev.Type {
			case watch.Added, watch.Modified, watch.Deleted:
				u, isUnstructured := ev.Object.(*unstructured.Unstructured)
				if !isUnstructured {
					return fmt.Errorf("the watch sent a %T, not a Machine", ev.Object)
				}
				if err := p.print(u, api); err != nil {
					return err
				}
			case watch.Error:
				return fmt.Errorf("the watch failed: %w", apierrors.FromObject(ev.Object))
			}
		}
	}
}

// watchPrinter prints the Machines of a watch one by one: table rows with the header before
// the first (unless --no-headers) and the no-history footnote once, or each object as -o
// json|yaml|name print it.
type watchPrinter struct {
	o *getOptions
	// printer prints -o json|yaml|name|jsonpath|go-template; nil for the table.
	printer                 printers.ResourcePrinter
	printedRow, printedNote bool
}

// print prints the Machine u, read from api.
func (p *watchPrinter) print(u *unstructured.Unstructured, api schema.GroupVersionResource) error {
	o := p.o
	if p.printer != nil {
		return p.printer.PrintObj(u, o.streams.Out)
	}
	m, err := convert(u, api)
	if err != nil {
		return err
	}
	opts := o.tableOptions(*o.printFlags.OutputFormat == OutputWide)
	opts.NoHeaders = opts.NoHeaders || p.printedRow
	t := newTables(opts)
	var obj runtime.Object = m.Machinestatus
	if m.ClusterAPI != nil {
		obj = m.ClusterAPI
	}
	if err := t.add(obj); err != nil {
		return err
	}
	noHistory, err := t.write(o.streams.Out)
	p.printedRow = true
	if noHistory && !p.printedNote {
		p.printedNote = true
		fmt.Fprintln(o.streams.ErrOut, NoHistoryFootnote)
	}
	return err
}
