package version

import "github.com/prometheus/client_golang/prometheus"

// BuildInfoMetric is the name of the gauge NewBuildInfoCollector returns.
const BuildInfoMetric = "machinestatus_build_info"

// NewBuildInfoCollector returns the gauge machinestatus_build_info{version,revision,goversion},
// always 1, labeled with Get's values: register it once on the metrics registry the manager serves.
func NewBuildInfoCollector() prometheus.Collector {
	i := Get()
	g := prometheus.NewGauge(prometheus.GaugeOpts{
		Name: BuildInfoMetric,
		Help: "Always 1; its labels name the version, git revision and Go version the manager was built from.",
		ConstLabels: prometheus.Labels{
			"version":   i.Version,
			"revision":  i.Revision,
			"goversion": i.GoVersion,
		},
	})
	g.Set(1)
	return g
}
