package describe

import (
	"bytes"
	"context"
	"runtime"
	"testing"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/machinestatus/machinestatus/internal/version"
)

// TestVersionCommand runs `version` as both binaries' names: it needs no kubeconfig, prints one
// line named after the program, and refuses arguments as a usage error.
func TestVersionCommand(t *testing.T) {
	t.Setenv("KUBECONFIG", "/nonexistent/kubeconfig")
	tail := " " + version.Version + " (revision " + version.Revision + ", " + runtime.Version() + ", " + runtime.GOOS + "/" + runtime.GOARCH + ")\n"
	for _, tc := range []struct {
		program, args0 string
		code           int
		out            string
	}{
		{"/usr/local/bin/machinestatus", "", ExitOK, "machinestatus" + tail},
		{"kubectl-machinestatus", "", ExitOK, "kubectl machinestatus" + tail},
		{"machinestatus", "extra", ExitUsage, ""},
	} {
		args := []string{"version"}
		if tc.args0 != "" {
			args = append(args, tc.args0)
		}
		var out, errOut bytes.Buffer
		code := Main(context.Background(), tc.program, args, genericiooptions.IOStreams{Out: &out, ErrOut: &errOut})
		if code != tc.code || out.String() != tc.out {
			t.Errorf("%s %q: exit %d, printed %q (stderr %q); want exit %d, %q", tc.program, args, code, out.String(), errOut.String(), tc.code, tc.out)
		}
	}
}
