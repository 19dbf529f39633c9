package main

import (
	"bytes"
	"runtime"
	"testing"

	"github.com/machinestatus/machinestatus/internal/version"
)

func TestPrintVersion(t *testing.T) {
	for _, tc := range []struct {
		args    []string
		printed bool
	}{
		{[]string{"version"}, true},
		{nil, false},
		{[]string{"--version"}, false},
		{[]string{"version", "--leader-elect"}, false},
		{[]string{"--leader-elect"}, false},
	} {
		var out bytes.Buffer
		if got := printVersion(tc.args, &out); got != tc.printed {
			t.Errorf("printVersion(%q) = %v, want %v", tc.args, got, tc.printed)
		}
		want := ""
		if tc.printed {
			want = "manager " + version.Version + " (revision " + version.Revision + ", " + runtime.Version() + ", " + runtime.GOOS + "/" + runtime.GOARCH + ")\n"
		}
		if out.String() != want {
			t.Errorf("printVersion(%q) printed %q, want %q", tc.args, out.String(), want)
		}
	}
}
