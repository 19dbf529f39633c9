// Command helmgen writes the Helm chart dist/chart (`make helm-chart`) from the rendered
// kustomize output of config/default and config/clusterapi, so that config/ stays the one
// source of truth: every object and every default value of the chart comes from there, and a
// test (test/deploy's TestHelmChartUpToDate) fails when the committed chart is stale.
//
//	helmgen -default default.yaml -clusterapi clusterapi.yaml -version v0.1.0 -image-repository REPO -out dist/chart
//
// generate.go turns the objects into templates, values.go writes values.yaml, static.go holds
// the chart's files that kustomize has no counterpart for (helpers, ServiceMonitor,
// PrometheusRule, the metrics-reader binding).
package main

import (
	"flag"
	"fmt"
	"os"
)

func main() {
	var o options
	flag.StringVar(&o.defaultPath, "default", "", "`kubectl kustomize config/default` output")
	flag.StringVar(&o.clusterAPIPath, "clusterapi", "", "`kubectl kustomize config/clusterapi` output")
	flag.StringVar(&o.version, "version", "", "release version, e.g. v0.1.0 (the chart's appVersion; its version without the v)")
	flag.StringVar(&o.imageRepository, "image-repository", "", "the manager image's repository, the default of image.repository")
	flag.StringVar(&o.rulesPath, "rules", "", "the Prometheus rule file whose groups the chart's PrometheusRule holds")
	flag.StringVar(&o.out, "out", "", "the chart's directory, replaced whole")
	flag.Parse()
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "helmgen:", err)
		os.Exit(1)
	}
}

// options are helmgen's flags.
type options struct {
	defaultPath, clusterAPIPath, rulesPath, version, imageRepository, out string
}

// run reads both renderings, builds the chart and writes it to o.out.
func run(o options) error {
	if o.defaultPath == "" || o.clusterAPIPath == "" || o.rulesPath == "" || o.version == "" || o.imageRepository == "" || o.out == "" {
		return fmt.Errorf("-default, -clusterapi, -rules, -version, -image-repository and -out are required")
	}
	def, err := readObjects(o.defaultPath)
	if err != nil {
		return err
	}
	capi, err := readObjects(o.clusterAPIPath)
	if err != nil {
		return err
	}
	files, err := chart(def, capi, o.version, o.imageRepository)
	if err != nil {
		return err
	}
	if files[prometheusRuleGroups], err = ruleGroups(o.rulesPath); err != nil {
		return err
	}
	return writeChart(o.out, files)
}
