package version

import (
	"runtime"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

func TestString(t *testing.T) {
	i := Info{Version: "v0.1.0-3-gabc1234", Revision: "abc1234", GoVersion: "go1.26.8", Platform: "linux/arm64"}
	if got, want := i.String("manager"), "manager v0.1.0-3-gabc1234 (revision abc1234, go1.26.8, linux/arm64)"; got != want {
		t.Errorf("String = %q, want %q", got, want)
	}
}

// TestBuildInfoCollector registers the gauge on a registry and reads it back as Prometheus's
// text format: one sample, value 1, labeled with the stamped variables.
func TestBuildInfoCollector(t *testing.T) {
	oldV, oldR := Version, Revision
	Version, Revision = "v9.8.7", "0123abc"
	t.Cleanup(func() { Version, Revision = oldV, oldR })

	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(NewBuildInfoCollector())
	want := `# HELP machinestatus_build_info Always 1; its labels name the version, git revision and Go version the manager was built from.
# TYPE machinestatus_build_info gauge
machinestatus_build_info{goversion="` + runtime.Version() + `",revision="0123abc",version="v9.8.7"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), BuildInfoMetric); err != nil {
		t.Error(err)
	}
}
