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
)

// Output formats of get's --output besides the printers of genericclioptions.PrintFlags.
const (
	OutputWide = "wide"
	OutputName = "name"
)

// getOptions are get's flags and what it runs with.
type getOptions struct {
	listOptions
	printFlags   *genericclioptions.PrintFlags
	noHeaders    bool
	showLabels   bool
	labelColumns []string
	sortBy       string
	watch        bool
	watchOnly    bool
	group        groupFlags
}

// newGetCommand returns `get`, named name in its examples.
func newGetCommand(name string, config *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams, ran *bool) *cobra.Command {
	o := &getOptions{listOptions: listOptions{config: config, streams: streams, now: time.Now},
		printFlags: genericclioptions.NewPrintFlags("").WithTypeSetter(scheme)}
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
Machine of the namespace. Lists are read in pages of --chunk-size and printed without keeping
the objects; --sort-by and --group-by need every row before printing the first (the rows are
kept, not the objects).

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
	fs.Lookup("output").Usage = "Output format: wide, json, yaml, name, jsonpath=..., go-template=..., custom-columns=... " +
		"(and their -file forms; default: a table)."
	fs.BoolVar(&o.noHeaders, "no-headers", false, "Print the table without its header.")
	fs.BoolVar(&o.showLabels, "show-labels", false, "Add the Machines' labels as the last column.")
	fs.StringSliceVarP(&o.labelColumns, "label-columns", "L", nil, "Label keys to show as columns (comma-separated or repeated), as kubectl get -L.")
	fs.StringVar(&o.sortBy, "sort-by", "", "Sort the rows by this JSONPath of the Machines, e.g. .metadata.name (reads every page first).")
	fs.BoolVarP(&o.watch, "watch", "w", false, "After listing the Machines, print a line for each change of one of them (one Machine API, at most one name), until interrupted.")
	fs.BoolVar(&o.watchOnly, "watch-only", false, "Print a line for each change, without listing the Machines first.")
	o.group.addFlags(fs)
	registerOutputCompletion(cmd)
	return cmd
}

// run lists the Machines args name.
func (o *getOptions) run(ctx context.Context, args []string) error {
	output := ""
	if o.printFlags.OutputFormat != nil {
		output = *o.printFlags.OutputFormat
	}
	var printer printers.ResourcePrinter
	columns, err := newCustomColumns(output)
	if err != nil {
		return err
	}
	switch {
	case columns != nil, output == "", output == OutputWide:
	default:
		if printer, err = o.printFlags.ToPrinter(); err != nil {
			return &UsageError{Msg: fmt.Sprintf("unknown output format %q: use wide, json, yaml, name, jsonpath=..., go-template=..., custom-columns=...: %v", output, err)}
		}
	}
	if o.group.by != "" && (printer != nil || columns != nil) {
		return &UsageError{Msg: "--group-by prints a tree: not with -o " + output}
	}
	if o.watch || o.watchOnly {
		if o.group.by != "" || o.sortBy != "" {
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
		return o.printObjects(r, printer)
	case columns != nil:
		return o.printCustomColumns(r, columns)
	}
	return o.printTables(r, output == OutputWide)
}

// tableOptions returns the GetOptions of o's flags.
func (o *getOptions) tableOptions(wide bool) GetOptions {
	return GetOptions{
		AllNamespaces: o.allNamespaces, Wide: wide, NoHeaders: o.noHeaders, ShowLabels: o.showLabels,
		LabelColumns: o.labelColumns, PoolLabel: o.poolLabel, SortBy: o.sortBy, Now: o.now(),
		Color: useColor(o.color, o.streams.Out),
	}
}

// printTables prints get's tables: the Machines are read page by page, each turned into its
// row at once.
func (o *getOptions) printTables(r resolved, wide bool) error {
	t, err := newTables(o.tableOptions(wide))
	if err != nil {
		return err
	}
	if err := Visit(o.config, r.targets, o.query(r, false), t.add); err != nil {
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

// printObjects prints the Machines as the server returned them with printer: the one Machine
// when exactly one was named, else a v1 List of them all (sorted by --sort-by), as kubectl get
// does.
func (o *getOptions) printObjects(r resolved, printer printers.ResourcePrinter) error {
	var items []unstructured.Unstructured
	var keys []sortKey
	var s *sorter
	if o.sortBy != "" {
		var err error
		if s, err = newSorter(o.sortBy); err != nil {
			return err
		}
	}
	err := Visit(o.config, r.targets, o.query(r, true), func(obj runtime.Object) error {
		u, ok := obj.(*unstructured.Unstructured)
		if !ok {
			return fmt.Errorf("read a %T, not an object", obj)
		}
		if s != nil {
			k, err := s.key(u)
			if err != nil {
				return err
			}
			keys = append(keys, k)
		}
		items = append(items, *u)
		return nil
	})
	if err != nil {
		return err
	}
	if s != nil {
		sortItems(items, keys)
	}
	named := len(r.targets) == 1 && r.targets[0].Name != ""
	if named && len(items) == 1 {
		return printer.PrintObj(&items[0], o.streams.Out)
	}
	if *o.printFlags.OutputFormat == OutputName {
		for i := range items {
			if err := printer.PrintObj(&items[i], o.streams.Out); err != nil {
				return err
			}
		}
		return nil
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

// sortItems sorts items by keys (stable), in place.
func sortItems(items []unstructured.Unstructured, keys []sortKey) {
	idx := make([]int, len(items))
	for i := range idx {
		idx[i] = i
	}
	sortStable(idx, func(a, b int) bool { return keys[a].less(keys[b]) })
	sorted := make([]unstructured.Unstructured, len(items))
	for i, j := range idx {
		sorted[i] = items[j]
	}
	copy(items, sorted)
}

// printCustomColumns prints -o custom-columns.
func (o *getOptions) printCustomColumns(r resolved, c *customColumns) error {
	var s *sorter
	var keys []sortKey
	if o.sortBy != "" {
		var err error
		if s, err = newSorter(o.sortBy); err != nil {
			return err
		}
	}
	err := Visit(o.config, r.targets, o.query(r, true), func(obj runtime.Object) error {
		u, ok := obj.(*unstructured.Unstructured)
		if !ok {
			return fmt.Errorf("read a %T, not an object", obj)
		}
		if s != nil {
			k, err := s.key(u)
			if err != nil {
				return err
			}
			keys = append(keys, k)
		}
		return c.add(u)
	})
	if err != nil {
		return err
	}
	if s != nil {
		idx := make([]int, len(keys))
		for i := range idx {
			idx[i] = i
		}
		sortStable(idx, func(a, b int) bool { return keys[a].less(keys[b]) })
		rows := make([][]cell, len(idx))
		for i, j := range idx {
			rows[i] = c.table.rows[j]
		}
		c.table.rows = rows
	}
	if len(c.table.rows) == 0 {
		o.noMachinesFound(r.namespace)
		return nil
	}
	return c.table.write(o.streams.Out, o.noHeaders, false)
}
