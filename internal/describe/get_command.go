package describe

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/cli-runtime/pkg/printers"
	kget "k8s.io/kubectl/pkg/cmd/get"
)

// OutputWide is get's -o wide: our table with more columns.
const OutputWide = "wide"

// getOptions are get's flags and what it runs with.
// printFlags are kubectl get's own (-o, --no-headers, --show-labels, --sort-by, -L,
// --show-kind, --template, …): the default and wide tables are ours, every other format
// kubectl's printer.
type getOptions struct {
	listOptions
	printFlags *kget.PrintFlags
	watch      bool
	watchOnly  bool
	group      groupFlags
}

// newGetCommand returns `get`, named name in its examples.
func newGetCommand(name string, config *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams, ran *bool) *cobra.Command {
	o := &getOptions{listOptions: listOptions{config: config, streams: streams, now: time.Now},
		printFlags: kget.NewGetPrintFlags()}
	cmd := newListCommand(name, commandSpec{
		verb:  "get",
		short: "List Machines with their phase and lastOperation, as kubectl get does; group them by pool or cluster",
		long: `List Machines, one line each, as kubectl get does: machinestatus.io/v1alpha1 Machines as their
controller wrote them, and Cluster API cluster.x-k8s.io/v1beta2 Machines with the phase and
lastOperation machinestatus derives from their conditions (docs/clusterapi.md), next to Cluster
API's own phase where it differs (CAPI-PHASE).

A Cluster API Machine's lastOperation uses the history a machinestatus manager keeps in its
machinestatus.io/last-operation annotation (manager --machine-apis=cluster.x-k8s.io); without
one, LAST-OP ends in * and a note says it was derived from the conditions alone.

TYPE is machine or machines (every Machine API the server serves), machines.cluster.x-k8s.io
or ma (Cluster API), machines.machinestatus.io or msm (machinestatus). Without arguments, every
Machine of the namespace. Lists are streamed from the API server's cache (where it does not
stream, read in pages of --chunk-size) and printed without keeping the objects; --group-by
keeps every row before printing the first, --sort-by every Machine, as kubectl get does.

-o json, yaml, name, jsonpath, go-template and custom-columns print the Machines as the API
server returned them (json, yaml, jsonpath and go-template exactly; tables cleaned of terminal
control characters); describe -o json prints the derived values.

--group-by=pool|cluster|owner|label=KEY prints a tree: per group a line summarizing its
Machines (how many are Running, Cluster API's rollout, Deleting, failures in the last
--recent from Events), then its Machines, like ones on one line unless --expand.

Exit status: 0 when every Machine asked for was listed, 1 when a Machine is not found, the
Machine CRD is not installed or the API server refuses, 2 for a wrong command line.
With --watch (-w), after the list, a line for each change of a Machine until interrupted (exit
status 0); --watch-only without the list. Like kubectl get --watch it watches one resource:
one Machine API (ma or msm when the server serves both) and at most one name.`,
		example: `  # Every Machine of the current namespace, of both APIs
  NAME get

  # Cluster API Machines of every namespace, with pools, reasons and descriptions
  NAME get machines.cluster.x-k8s.io -A -o wide

  # Which pool is in trouble: every Machine grouped by pool
  NAME get -A --group-by=pool

  # Phases only, sorted by creation, with the pool label as a column
  NAME get msm -L machinestatus.io/pool --sort-by=.metadata.creationTimestamp

  # One Machine as YAML; names and phases as custom columns
  NAME get machine/worker-0 -o yaml
  NAME get ma -o custom-columns=NAME:.metadata.name,PHASE:.status.phase

  # Cluster API Machines, then a line for each change
  NAME get ma --watch`,
		allNamespacesHelp: "List the Machines of every namespace (not with names).",
		selectorHelp:      "Label selector of the Machines to list, e.g. pool=a (not with names).",
	}, &o.listOptions, ran, o.run)
	o.printFlags.AddFlags(cmd)
	fs := cmd.Flags()
	fs.BoolVarP(&o.watch, "watch", "w", false, "After listing the Machines, print a line for each change of one of them (one Machine API, at most one name), until interrupted.")
	fs.BoolVar(&o.watchOnly, "watch-only", false, "Print a line for each change, without listing the Machines first.")
	o.group.addFlags(fs)
	registerGroupByCompletion(cmd)
	return cmd
}

// sortBy is --sort-by.
func (o *getOptions) sortBy() string { return *o.printFlags.HumanReadableFlags.SortBy }

// printer returns kubectl's printer of the output format, or nil for our tables (the default
// and -o wide).
func (o *getOptions) printer() (printers.ResourcePrinter, error) {
	output := *o.printFlags.OutputFormat
	template := o.printFlags.TemplateFlags.TemplateArgument
	if output == OutputWide || (output == "" && (template == nil || *template == "")) {
		return nil, nil
	}
	p, err := o.printFlags.ToPrinter()
	if err != nil {
		return nil, &UsageError{Msg: fmt.Sprintf("unknown output format %q: use wide, json, yaml, name, jsonpath=..., go-template=..., custom-columns=...: %v", output, err)}
	}
	return cleanColumns(p), nil
}

// run lists the Machines args name.
func (o *getOptions) run(ctx context.Context, args []string) error {
	printer, err := o.printer()
	if err != nil {
		return err
	}
	if err := checkSortBy(o.sortBy()); err != nil {
		return err
	}
	if o.group.by != "" && printer != nil {
		return &UsageError{Msg: "--group-by prints a tree: not with -o " + *o.printFlags.OutputFormat}
	}
	if o.watch || o.watchOnly {
		if o.group.by != "" || o.sortBy() != "" {
			return &UsageError{Msg: "--watch prints changes as they come: not with --group-by or --sort-by"}
		}
		return o.runWatch(ctx, args, printer)
	}
	r, err := o.resolve(args, "listed")
	if err != nil {
		return err
	}
	switch {
	case o.group.by != "":
		return o.runGrouped(ctx, r)
	case printer != nil:
		return o.printObjects(ctx, r, printer)
	}
	return o.printTables(ctx, r, *o.printFlags.OutputFormat == OutputWide)
}

// tableOptions returns the GetOptions of o's flags.
func (o *getOptions) tableOptions(wide bool) GetOptions {
	h := o.printFlags.HumanReadableFlags
	return GetOptions{
		AllNamespaces: o.allNamespaces, Wide: wide, NoHeaders: *o.printFlags.NoHeaders, ShowLabels: *h.ShowLabels,
		LabelColumns: *h.ColumnLabels, WithKind: *h.ShowKind, PoolLabel: o.poolLabel, SortBy: o.sortBy(), Now: o.now(),
		Color: useColor(o.color, o.streams.Out),
	}
}

// printTables prints get's tables: the Machines are read one by one, each turned into its row
// at once (with --sort-by, read as the server sent them and kept for kubectl's sorter).
func (o *getOptions) printTables(ctx context.Context, r resolved, wide bool) error {
	t := newTables(o.tableOptions(wide))
	if err := Visit(ctx, o.config, r.targets, o.query(r, o.sortBy() != ""), t.add); err != nil {
		return err
	}
	if t.len() == 0 {
		o.noMachinesFound(r.namespace)
		return nil
	}
	noHistory, err := t.write(o.streams.Out)
	if err != nil {
		return err
	}
	if noHistory {
		fmt.Fprintln(o.streams.ErrOut, NoHistoryFootnote)
	}
	return nil
}

// printObjects prints the Machines as the server returned them with kubectl's printer, as
// kubectl get does: the one Machine when exactly one was named, else a v1 List of them all,
// sorted by --sort-by with kubectl's SortingPrinter. Custom columns without --sort-by print
// each Machine as it arrives.
func (o *getOptions) printObjects(ctx context.Context, r resolved, printer printers.ResourcePrinter) error {
	_, columns := printer.(cleaningPrinter)
	if columns && o.sortBy() == "" {
		return o.streamColumns(ctx, r, printer)
	}
	var items []unstructured.Unstructured
	err := Visit(ctx, o.config, r.targets, o.query(r, true), func(obj runtime.Object) error {
		u, ok := obj.(*unstructured.Unstructured)
		if !ok {
			return fmt.Errorf("read a %T, not an object", obj)
		}
		items = append(items, *u)
		return nil
	})
	if err != nil {
		return err
	}
	named := len(r.targets) == 1 && r.targets[0].Name != ""
	if named && len(items) == 1 {
		return printer.PrintObj(&items[0], o.streams.Out)
	}
	if len(items) == 0 && columns {
		o.noMachinesFound(r.namespace)
		return nil
	}
	if o.sortBy() != "" {
		printer = &kget.SortingPrinter{Delegate: printer, SortField: o.sortBy()}
	}
	list := &unstructured.UnstructuredList{Items: items}
	list.SetAPIVersion("v1")
	list.SetKind("List")
	list.SetResourceVersion("")
	if list.Items == nil {
		list.Items = []unstructured.Unstructured{}
	}
	return printer.PrintObj(list, o.streams.Out)
}

// streamColumns prints -o custom-columns a row per Machine as it arrives, aligned as kubectl
// aligns them (one tab writer for the whole output).
func (o *getOptions) streamColumns(ctx context.Context, r resolved, printer printers.ResourcePrinter) error {
	w := printers.GetNewTabWriter(o.streams.Out)
	n := 0
	err := Visit(ctx, o.config, r.targets, o.query(r, true), func(obj runtime.Object) error {
		n++
		return printer.PrintObj(obj, w)
	})
	if err != nil {
		return err
	}
	if n == 0 {
		o.noMachinesFound(r.namespace)
		return nil
	}
	return w.Flush()
}
