package describe

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/cli-runtime/pkg/printers"
)

// Output formats of get's --output besides the table (OutputJSON, OutputYAML).
const (
	OutputWide = "wide"
	OutputName = "name"
)

// getOptions are get's flags and what it runs with.
type getOptions struct {
	listOptions
	noHeaders  bool
	showLabels bool
	watch      bool
	watchOnly  bool
}

// newGetCommand returns `get`, named name in its examples.
func newGetCommand(name string, config *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams, ran *bool) *cobra.Command {
	o := &getOptions{listOptions: listOptions{config: config, streams: streams, now: time.Now}}
	cmd := newListCommand(name, commandSpec{
		verb:  "get",
		short: "List Machines with their phase and lastOperation, as kubectl get does",
		long: `List Machines, one line each, as kubectl get does: machinestatus.io/v1alpha1 Machines as their
controller wrote them, and Cluster API cluster.x-k8s.io/v1beta2 Machines with the phase and
lastOperation machinestatus derives from their conditions (docs/clusterapi.md), next to Cluster
API's own phase where it differs (CAPI-PHASE).

A Cluster API Machine's lastOperation uses the history a machinestatus manager keeps in its
machinestatus.io/last-operation annotation (manager --machine-apis=cluster.x-k8s.io); without
one, LAST-OP ends in * and a note says it was derived from the conditions alone.

TYPE is as for describe: machine or machines (every Machine API the server serves),
machines.cluster.x-k8s.io or ma (Cluster API), machines.machinestatus.io or msm (machinestatus).
Without arguments, every Machine of the namespace. -o json, yaml and name print the Machines
as the API server returned them; describe -o json prints the derived values.

Exit status: 0 when every Machine asked for was listed, 1 when a Machine is not found, the
Machine CRD is not installed or the API server refuses, 2 for a wrong command line.
With --watch (-w), after the list, a line for each change of a Machine until interrupted (exit
status 0); --watch-only without the list. Like kubectl get --watch it watches one resource:
one Machine API (ma or msm when the server serves both) and at most one name.`,
		example: `  # Every Machine of the current namespace, of both APIs
  NAME get

  # Cluster API Machines of every namespace, with provider IDs and descriptions
  NAME get machines.cluster.x-k8s.io -A -o wide

  # One Machine as YAML
  NAME get machine/worker-0 -o yaml

  # Cluster API Machines, then a line for each change
  NAME get ma --watch`,
		allNamespacesHelp: "List the Machines of every namespace (not with names).",
		selectorHelp:      "Label selector of the Machines to list, e.g. pool=a (not with names).",
		outputHelp:        "Output format: wide, json, yaml or name (default: a table).",
	}, &o.listOptions, ran, o.run)
	fs := cmd.Flags()
	fs.BoolVar(&o.noHeaders, "no-headers", false, "Print the table without its header.")
	fs.BoolVar(&o.showLabels, "show-labels", false, "Add the Machines' labels as the last column.")
	fs.BoolVarP(&o.watch, "watch", "w", false, "After listing the Machines, print a line for each change of one of them (one Machine API, at most one name), until interrupted.")
	fs.BoolVar(&o.watchOnly, "watch-only", false, "Print a line for each change, without listing the Machines first.")
	return cmd
}

// run lists the Machines args name.
func (o *getOptions) run(ctx context.Context, args []string) error {
	o.output = strings.ToLower(o.output)
	switch o.output {
	case "", OutputWide, OutputJSON, OutputYAML, OutputName:
	default:
		return &UsageError{Msg: fmt.Sprintf("unknown output format %q: use wide, json, yaml or name", o.output)}
	}
	if o.watch || o.watchOnly {
		return o.runWatch(ctx, args)
	}
	machines, f, err := fetchArgs(ctx, o.config, args, o.allNamespaces, o.selector, "listed")
	if err != nil {
		return err
	}
	namespace := f.namespace
	named := slices.ContainsFunc(f.targets, func(t Target) bool { return t.Name != "" })
	targets := f.targets

	switch o.output {
	case OutputJSON, OutputYAML, OutputName:
		obj, err := Objects(machines, named && len(targets) == 1)
		if err != nil {
			return err
		}
		return objectPrinter(o.output).PrintObj(obj, o.streams.Out)
	}
	if len(machines) == 0 {
		o.noMachinesFound(namespace)
		return nil
	}
	ds := make([]Description, 0, len(machines))
	for _, m := range machines {
		d, err := Describe(m)
		if err != nil {
			return err
		}
		ds = append(ds, d)
	}
	noHistory, err := WriteTables(o.streams.Out, machines, ds, GetOptions{
		AllNamespaces: o.allNamespaces, Wide: o.output == OutputWide, NoHeaders: o.noHeaders,
		ShowLabels: o.showLabels, Now: o.now(),
	})
	if err != nil {
		return err
	}
	if noHistory {
		fmt.Fprintln(o.streams.ErrOut, NoHistoryFootnote)
	}
	return nil
}

// objectPrinter returns the printer of output OutputJSON (the default), OutputYAML or
// OutputName, for Machines as the API server returned them.
func objectPrinter(output string) printers.ResourcePrinter {
	switch output {
	case OutputYAML:
		return &printers.YAMLPrinter{}
	case OutputName:
		return &printers.NamePrinter{}
	}
	return &printers.JSONPrinter{}
}
