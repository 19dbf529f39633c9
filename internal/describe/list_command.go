package describe

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
)

// listOptions are what get and describe share: the kubectl connection flags, the streams, the
// selection flags (-A, -l), --output and the clock.
type listOptions struct {
	config        *genericclioptions.ConfigFlags
	streams       genericiooptions.IOStreams
	allNamespaces bool
	selector      string
	output        string
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
	// describe -o.
	allNamespacesHelp, selectorHelp, outputDefault, outputHelp string
}

// newListCommand returns the subcommand spec describes, named name in its examples, with o's
// flags (-A, -l, -o). run runs it; *ran becomes true first, so that Main tells cobra's usage
// errors from the command's failures.
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
	}
	fs := cmd.Flags()
	fs.BoolVarP(&o.allNamespaces, "all-namespaces", "A", false, spec.allNamespacesHelp)
	fs.StringVarP(&o.selector, "selector", "l", "", spec.selectorHelp)
	fs.StringVarP(&o.output, "output", "o", spec.outputDefault, spec.outputHelp)
	return cmd
}

// noMachinesFound says on stderr, as kubectl does, that a list found nothing in namespace
// (empty: every namespace).
func (o *listOptions) noMachinesFound(namespace string) {
	where := fmt.Sprintf("in namespace %s", namespace)
	if namespace == "" {
		where = "in any namespace"
	}
	fmt.Fprintf(o.streams.ErrOut, "No Machines found %s.\n", where)
}
