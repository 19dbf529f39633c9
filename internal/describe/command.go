package describe

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
)

// Exit codes of Main.
const (
	// ExitOK: every Machine asked for was described (also when a list found none).
	ExitOK = 0
	// ExitError: the command ran and failed: a Machine not found, the Machine CRD not
	// installed, the API server refused (forbidden, unauthorized) or could not be reached.
	ExitError = 1
	// ExitUsage: the command line is wrong (unknown flag, resource type or output format).
	ExitUsage = 2
)

// Output formats of --output.
const (
	OutputText = "text"
	OutputJSON = "json"
	OutputYAML = "yaml"
)

// PluginPrefix starts the name of a kubectl plugin's binary: kubectl runs
// `kubectl-machinestatus` for `kubectl machinestatus`. CompletionPrefix starts the name of the
// plugin's completion binary: for `kubectl machinestatus <TAB>`, kubectl runs
// `kubectl_complete-machinestatus ARGS... PARTIAL`, which is this program under that name
// (make build links it): it answers as `machinestatus __complete ARGS... PARTIAL` does.
const (
	PluginPrefix     = "kubectl-"
	CompletionPrefix = "kubectl_complete-"
)

// Main runs the command line args (without the program name) and returns the exit code
// (ExitOK, ExitError or ExitUsage), having printed any error to streams.ErrOut as kubectl does
// ("error: ..."). program is the name the binary was run as (e.g. os.Args[0]); when its base
// name starts with PluginPrefix, help and messages say "kubectl machinestatus". ctx cancels the
// requests to the API server.
func Main(ctx context.Context, program string, args []string, streams genericiooptions.IOStreams) int {
	if strings.HasPrefix(baseName(program), CompletionPrefix) {
		args = append([]string{cobra.ShellCompRequestCmd}, args...)
	}
	root, ran := newRootCommand(displayName(program), streams)
	root.SetArgs(args)
	cmd, err := root.ExecuteContextC(ctx)
	if err == nil {
		return ExitOK
	}
	fmt.Fprintf(streams.ErrOut, "error: %v\n", err)
	var usage *UsageError
	if errors.As(err, &usage) || !*ran {
		fmt.Fprintf(streams.ErrOut, "See '%s --help' for usage.\n", cmd.CommandPath())
		return ExitUsage
	}
	return ExitError
}

// displayName returns the command's name for a program path: "kubectl machinestatus" for the
// kubectl plugin, else "machinestatus".
func displayName(program string) string {
	base := strings.TrimSuffix(baseName(program), ".exe")
	for _, prefix := range []string{PluginPrefix, CompletionPrefix} {
		if strings.HasPrefix(base, prefix) {
			return "kubectl " + strings.TrimPrefix(base, prefix)
		}
	}
	return "machinestatus"
}

// baseName is the last element of a program path.
func baseName(program string) string {
	return program[strings.LastIndexAny(program, `/\`)+1:]
}

// newRootCommand returns the root command, named name in help, with the kubectl connection
// flags (genericclioptions.ConfigFlags: --kubeconfig, --context, -n/--namespace, …) and the
// describe and get subcommands. *ran becomes true once a subcommand's own code starts, so that Main
// tells cobra's usage errors from the command's failures.
func newRootCommand(name string, streams genericiooptions.IOStreams) (*cobra.Command, *bool) {
	ran := new(bool)
	config := genericclioptions.NewConfigFlags(true).WithWarningPrinter(streams)
	root := &cobra.Command{
		Use:   "machinestatus",
		Short: "Read the phase, lastOperation and conditions of Machines (machinestatus and Cluster API)",
		Annotations: map[string]string{
			cobra.CommandDisplayNameAnnotation: name,
		},
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	// `completion bash|zsh|fish|powershell` prints a completion script; the hidden
	// `__complete` answers the shells (and kubectl, for the plugin).
	root.SetOut(streams.Out)
	root.SetErr(streams.ErrOut)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &UsageError{Msg: err.Error()} })
	config.AddFlags(root.PersistentFlags())
	root.AddCommand(newDescribeCommand(name, config, streams, ran), newGetCommand(name, config, streams, ran), newVersionCommand(name))
	return root, ran
}

// describeOptions are describe's flags and what it runs with.
type describeOptions struct {
	listOptions
	group groupFlags
	// showEvents prints each Machine's Events.
	showEvents bool
}

// newDescribeCommand returns `describe`, named name in its examples.
func newDescribeCommand(name string, config *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams, ran *bool) *cobra.Command {
	o := &describeOptions{listOptions: listOptions{config: config, streams: streams, now: time.Now}}
	cmd := newListCommand(name, commandSpec{
		verb:  "describe",
		short: "Show Machines' phase, lastOperation, what they wait for and their conditions, problems first; or a Cluster API cluster's tree",
		long: `Show the phase, the lastOperation and the conditions (problems first) of Machines:
machinestatus.io/v1alpha1 Machines as their controller wrote them, and Cluster API
cluster.x-k8s.io/v1beta2 Machines with the phase and lastOperation machinestatus derives from
their conditions (docs/clusterapi.md). For a Machine in the middle of an operation it says what
it waits for, the deadline that applies and where it comes from, and a hint; then its Events,
as kubectl describe prints them.

TYPE is machine or machines (every Machine API the server serves), machines.cluster.x-k8s.io
or its short name ma (Cluster API), machines.machinestatus.io or msm (machinestatus). Without
arguments, every Machine of the namespace.

describe cluster/NAME (a Cluster API Cluster) prints the cluster as a tree: its control plane,
MachineDeployments, MachineSets and MachinePools, each with a line summarizing its Machines,
then the Machines (like ones on one line unless --expand).

Exit status: 0 when every Machine asked for was described, 1 when a Machine is not found, the
Machine CRD is not installed or the API server refuses, 2 for a wrong command line.`,
		example: `  # Every Machine of the current namespace, of both APIs
  NAME describe

  # One Machine by name, whichever API it belongs to
  NAME describe machine/worker-0

  # A Cluster API cluster as a tree: which pool is in trouble, and why
  NAME describe cluster/prod-eu -n fleet

  # Cluster API Machines only, in every namespace, as JSON
  NAME describe machines.cluster.x-k8s.io -A -o json`,
		allNamespacesHelp: "Describe the Machines of every namespace (not with names).",
		selectorHelp:      "Label selector of the Machines to describe, e.g. pool=a (not with names).",
		outputDefault:     OutputText,
		outputHelp:        "Output format: text, json or yaml.",
	}, &o.listOptions, ran, o.run)
	cmd.Flags().BoolVar(&o.showEvents, "show-events", true, "Print each Machine's Events (text output).")
	o.group.addTreeFlags(cmd.Flags())
	return cmd
}

// run describes the Machines args name, or the cluster of describe cluster/NAME.
func (o *describeOptions) run(ctx context.Context, args []string) error {
	o.output = strings.ToLower(o.output)
	switch o.output {
	case "":
		o.output = OutputText
	case OutputText, OutputJSON, OutputYAML:
	default:
		return &UsageError{Msg: fmt.Sprintf("unknown output format %q: use text, json or yaml", o.output)}
	}
	if cluster, ok := clusterArg(args); ok {
		return o.describeCluster(ctx, cluster)
	}
	r, err := o.resolve(args, "described")
	if err != nil {
		return err
	}
	var ds []Description
	var ms []Machine
	err = Visit(ctx, o.config, r.targets, o.query(r, false), func(obj runtime.Object) error {
		m, err := machineOf(obj)
		if err != nil {
			return err
		}
		d, err := Describe(m)
		if err != nil {
			return err
		}
		ds = append(ds, d)
		ms = append(ms, m)
		return nil
	})
	if err != nil {
		return err
	}
	if len(ds) == 0 && o.output == OutputText {
		o.noMachinesFound(r.namespace)
		return nil
	}
	switch o.output {
	case OutputJSON:
		return WriteJSON(o.streams.Out, ds)
	case OutputYAML:
		return WriteYAML(o.streams.Out, ds)
	}
	now := o.now()
	ctxs := o.machineContexts(ctx, ms, r.namespace)
	var b strings.Builder
	for i, d := range ds {
		if i > 0 {
			b.WriteString("\n")
		}
		writeDescription(&b, d, now)
		writeWaiting(&b, stuckOf(ms[i], d, ctxs), now)
		if o.showEvents {
			writeEvents(&b, ctxs.eventsOf(ms[i]), now)
		}
	}
	_, err = io.WriteString(o.streams.Out, b.String())
	return err
}
