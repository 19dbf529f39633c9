package describe

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/machinestatus/machinestatus/internal/version"
)

// newVersionCommand returns `version`, which prints the version line of the binary (name is
// "machinestatus" or "kubectl machinestatus") and needs no cluster.
func newVersionCommand(name string) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version, git revision, Go version and platform of this binary",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprintln(cmd.OutOrStdout(), version.Get().String(name))
			return err
		},
	}
}
