package describe

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/dynamic"
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
// `kubectl-machinestatus` for `kubectl machinestatus`.
const PluginPrefix = "kubectl-"

// Main runs the command line args (without the program name) and returns the exit code
// (ExitOK, ExitError or ExitUsage), having printed any error to streams.ErrOut as kubectl does
// ("error: ..."). program is the name the binary was run as (e.g. os.Args[0]); when its base
// name starts with PluginPrefix, help and messages say "kubectl machinestatus". ctx cancels the
// requests to the API server.
func Main(ctx context.Context, program string, args []string, streams genericiooptions.IOStreams) int {
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
	base := program[strings.LastIndexAny(program, `/\`)+1:]
	if strings.HasPrefix(base, PluginPrefix) {
		return "kubectl " + strings.TrimPrefix(strings.TrimSuffix(base, ".exe"), PluginPrefix)
	}
	return "machinestatus"
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
	root.CompletionOptions.DisableDefaultCmd = true
	root.SetOut(streams.Out)
	root.SetErr(streams.ErrOut)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &UsageError{Msg: err.Error()} })
	config.AddFlags(root.PersistentFlags())
	root.AddCommand(newDescribeCommand(name, config, streams, ran), newGetCommand(name, config, streams, ran), newVersionCommand(name))
	return root, ran
}

// describeOptions are describe's flags and what it runs with.
type describeOptions struct{ listOptions }

// newDescribeCommand returns `describe`, named name in its examples.
func newDescribeCommand(name string, config *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams, ran *bool) *cobra.Command {
	o := &describeOptions{listOptions{config: config, streams: streams, now: time.Now}}
	return newListCommand(name, commandSpec{
		verb:  "describe",
		short: "Show Machines' phase, lastOperation and conditions, problems first",
		long: `Show the phase, the lastOperation and the conditions (problems first) of Machines:
machinestatus.io/v1alpha1 Machines as their controller wrote them, and Cluster API
cluster.x-k8s.io/v1beta2 Machines with the phase and lastOperation machinestatus derives from
their conditions (docs/clusterapi.md).

TYPE is machine or machines (every Machine API the server serves), machines.cluster.x-k8s.io
or its short name ma (Cluster API), machines.machinestatus.io or msm (machinestatus). Without
arguments, every Machine of the namespace.

Exit status: 0 when every Machine asked for was described, 1 when a Machine is not found, the
Machine CRD is not installed or the API server refuses, 2 for a wrong command line.`,
		example: `  # Every Machine of the current namespace, of both APIs
  NAME describe

  # One Machine by name, whichever API it belongs to
  NAME describe machine/worker-0

  # Cluster API Machines only, in every namespace, as JSON
  NAME describe machines.cluster.x-k8s.io -A -o json

  # machinestatus Machines with a label, in namespace fleet
  NAME describe machines.machinestatus.io -n fleet -l pool=a`,
		allNamespacesHelp: "Describe the Machines of every namespace (not with names).",
		selectorHelp:      "Label selector of the Machines to describe, e.g. pool=a (not with names).",
		outputDefault:     OutputText,
		outputHelp:        "Output format: text, json or yaml.",
	}, &o.listOptions, ran, o.run)
}

// run describes the Machines args name.
func (o *describeOptions) run(ctx context.Context, args []string) error {
	write, err := o.writer()
	if err != nil {
		return err
	}
	machines, fetched, err := fetchArgs(ctx, o.config, args, o.allNamespaces, o.selector, "described")
	if err != nil {
		return err
	}
	namespace := fetched.namespace
	ds := make([]Description, 0, len(machines))
	for _, m := range machines {
		d, err := Describe(m)
		if err != nil {
			return err
		}
		ds = append(ds, d)
	}
	if len(ds) == 0 && o.output == OutputText {
		o.noMachinesFound(namespace)
		return nil
	}
	return write(o.streams.Out, ds)
}

// writer returns the printer --output names, or a *UsageError.
func (o *describeOptions) writer() (func(io.Writer, []Description) error, error) {
	o.output = strings.ToLower(o.output)
	switch o.output {
	case "":
		o.output = OutputText
		fallthrough
	case OutputText:
		return func(w io.Writer, ds []Description) error { return WriteText(w, ds, o.now()) }, nil
	case OutputJSON:
		return WriteJSON, nil
	case OutputYAML:
		return WriteYAML, nil
	}
	return nil, &UsageError{Msg: fmt.Sprintf("unknown output format %q: use text, json or yaml", o.output)}
}

// fetched says what resolveArgs resolved.
type fetched struct {
	// namespace is the namespace read; empty for every namespace.
	namespace string
	// targets are the parsed arguments.
	targets []Target
	// client reads them.
	client dynamic.Interface
}

// fetchArgs reads the Machines args name (as ParseArgs reads them) from the cluster config
// points at (see resolveArgs), matching selector. It returns resolveArgs' or Fetch's error.
func fetchArgs(ctx context.Context, config *genericclioptions.ConfigFlags, args []string, allNamespaces bool, selector, verb string) ([]Machine, fetched, error) {
	f, err := resolveArgs(config, args, allNamespaces, selector, verb)
	if err != nil {
		return nil, f, err
	}
	machines, err := Fetch(ctx, f.client, f.targets, Query{Namespace: f.namespace, Selector: selector})
	return machines, f, err
}

// resolveArgs parses args (ParseArgs) against the cluster config points at and returns them
// with the namespace to read (the flags' or kubeconfig's, or every namespace with
// allNamespaces) and a client. verb ("described", "listed") words the *UsageError of a name
// given with -A or --selector. It returns ParseArgs' or the configuration's error.
func resolveArgs(config *genericclioptions.ConfigFlags, args []string, allNamespaces bool, selector, verb string) (fetched, error) {
	var f fetched
	namespace, _, err := config.ToRawKubeConfigLoader().Namespace()
	if err != nil {
		return f, err
	}
	if allNamespaces {
		namespace = ""
	}
	f.namespace = namespace
	mapper, err := config.ToRESTMapper()
	if err != nil {
		return f, err
	}
	if f.targets, err = ParseArgs(args, mapper); err != nil {
		return f, err
	}
	for _, t := range f.targets {
		switch {
		case t.Name != "" && allNamespaces:
			return f, &UsageError{Msg: "a Machine cannot be " + verb + " by name across all namespaces: drop -A or the name"}
		case t.Name != "" && selector != "":
			return f, &UsageError{Msg: "a Machine cannot be " + verb + " both by name and by --selector"}
		}
	}
	restConfig, err := config.ToRESTConfig()
	if err != nil {
		return f, err
	}
	f.client, err = dynamic.NewForConfig(restConfig)
	return f, err
}
