package describe

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/dynamic"

	"github.com/machinestatus/machinestatus/aggregate"
)

// listOptions are what get and describe share: the kubectl connection flags, the streams, the
// selection flags (-A, -l, --chunk-size), --output, --color, --pool-label and the clock.
type listOptions struct {
	config        *genericclioptions.ConfigFlags
	streams       genericiooptions.IOStreams
	allNamespaces bool
	selector      string
	chunkSize     int64
	output        string
	color         string
	poolLabel     string
	now           func() time.Time
}

// commandSpec is what tells get and describe apart in their cobra setup.
type commandSpec struct {
	// verb is the subcommand ("get", "describe"); Use is built from it.
	verb string
	// short, long and example are the help texts; "NAME" in example stands for the command's
	// display name.
	short, long, example string
	// allNamespacesHelp and selectorHelp describe -A and -l; outputDefault and outputHelp
	// describe -o (no -o flag when outputHelp is empty: the caller adds its own).
	allNamespacesHelp, selectorHelp, outputDefault, outputHelp string
}

// newListCommand returns the subcommand spec describes, named name in its examples, with o's
// flags. run runs it; *ran becomes true first, so that Main tells cobra's usage errors from
// the command's failures.
func newListCommand(name string, spec commandSpec, o *listOptions, ran *bool, run func(context.Context, []string) error) *cobra.Command {
	cmd := &cobra.Command{
		Use:     spec.verb + " [TYPE[.VERSION][.GROUP] [NAME...] | TYPE[.VERSION][.GROUP]/NAME...]",
		Short:   spec.short,
		Long:    spec.long,
		Example: strings.ReplaceAll(spec.example, "NAME", name),
		RunE: func(cmd *cobra.Command, args []string) error {
			*ran = true
			return run(cmd.Context(), args)
		},
		ValidArgsFunction: completeArgs(o.config, spec.verb),
	}
	fs := cmd.Flags()
	fs.BoolVarP(&o.allNamespaces, "all-namespaces", "A", false, spec.allNamespacesHelp)
	fs.StringVarP(&o.selector, "selector", "l", "", spec.selectorHelp)
	fs.Int64Var(&o.chunkSize, "chunk-size", DefaultChunkSize,
		"Where the API server does not stream lists, read Machines in pages of this many (0: one request), as kubectl get does.")
	fs.StringVar(&o.color, "color", ColorAuto,
		"Colour problems: auto (on a terminal, unless NO_COLOR is set), always or never.")
	fs.StringVar(&o.poolLabel, "pool-label", aggregate.DefaultPoolLabel,
		"The label naming a machinestatus Machine's pool (Cluster API Machines: their deployment, pool, control plane or set label).")
	if spec.outputHelp != "" {
		fs.StringVarP(&o.output, "output", "o", spec.outputDefault, spec.outputHelp)
	}
	registerFlagCompletions(cmd, o.config)
	return cmd
}

// checkColor returns a *UsageError for a wrong --color.
func (o *listOptions) checkColor() error {
	switch o.color {
	case ColorAuto, ColorAlways, ColorNever:
		return nil
	}
	return &UsageError{Msg: fmt.Sprintf("unknown --color %q: use auto, always or never", o.color)}
}

// noMachinesFound says on stderr, as kubectl does, that a list found nothing in namespace
// (empty: every namespace).
func (o *listOptions) noMachinesFound(namespace string) {
	fmt.Fprintln(o.streams.ErrOut, noMachinesFoundText(namespace))
}

// resolved says what resolve resolved.
type resolved struct {
	// namespace is the namespace read; empty for every namespace.
	namespace string
	// targets are the parsed arguments.
	targets []Target
}

// query returns the Query of r with o's flags.
func (o *listOptions) query(r resolved, raw bool) Query {
	return Query{Namespace: r.namespace, AllNamespaces: o.allNamespaces, Selector: o.selector, ChunkSize: o.chunkSize, Raw: raw}
}

// resolve parses args (ParseArgs) against the cluster o.config points at and returns them with
// the namespace to read (the flags' or kubeconfig's, or every namespace with -A). verb
// ("described", "listed") words the *UsageError of a name given with -A or --selector. It
// returns ParseArgs' or the configuration's error.
func (o *listOptions) resolve(args []string, verb string) (resolved, error) {
	var r resolved
	if err := o.checkColor(); err != nil {
		return r, err
	}
	if o.chunkSize < 0 {
		return r, &UsageError{Msg: "--chunk-size must be 0 or more"}
	}
	namespace, _, err := o.config.ToRawKubeConfigLoader().Namespace()
	if err != nil {
		return r, err
	}
	if o.allNamespaces {
		namespace = ""
	}
	r.namespace = namespace
	mapper, err := o.config.ToRESTMapper()
	if err != nil {
		return r, err
	}
	if r.targets, err = ParseArgs(args, mapper); err != nil {
		return r, err
	}
	for _, t := range r.targets {
		switch {
		case t.Name != "" && o.allNamespaces:
			return r, &UsageError{Msg: "a Machine cannot be " + verb + " by name across all namespaces: drop -A or the name"}
		case t.Name != "" && o.selector != "":
			return r, &UsageError{Msg: "a Machine cannot be " + verb + " both by name and by --selector"}
		}
	}
	return r, nil
}

// dynamicClient returns a dynamic client for o.config.
func (o *listOptions) dynamicClient() (dynamic.Interface, error) {
	restConfig, err := o.config.ToRESTConfig()
	if err != nil {
		return nil, err
	}
	return dynamic.NewForConfig(restConfig)
}
