package main

import (
	"fmt"
	"os"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// prometheusRuleGroups is the chart file the PrometheusRule takes its groups from.
const prometheusRuleGroups = "files/prometheus-rule-groups.yaml"

const helpers = `{{/* Labels Helm adds to every object, besides config/'s own. */}}
{{- define "machinestatus.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
{{- end }}
`

const notes = `machinestatus {{ .Chart.AppVersion }} is installed in namespace {{ .Release.Namespace }}
(Machine APIs: {{ join ", " .Values.machineAPIs }}).

  kubectl -n {{ .Release.Namespace }} rollout status deployment/machinestatus-manager
  kubectl get machines -A
`

// staticFiles adds the chart's files that config/ has no counterpart for: the helpers, the notes
// and the monitoring objects for the metrics Service svc (its labels and port) and the
// metrics-reader ClusterRole named reader.
func staticFiles(files map[string]string, svc *unstructured.Unstructured, reader string) error {
	ports, _, _ := unstructured.NestedSlice(svc.Object, "spec", "ports")
	if len(ports) != 1 {
		return fmt.Errorf("the metrics Service has %d ports, want 1", len(ports))
	}
	port, _ := ports[0].(map[string]any)["name"].(string)
	labels := svc.GetLabels()
	keys := make([]string, 0, len(labels))
	for k := range labels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var match strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&match, "      %s: %s\n", k, labels[k])
	}
	head := "# Written by `make helm-chart` (hack/helmgen): Helm-only objects, kept in hack/helmgen/static.go.\n"
	files["templates/_helpers.tpl"] = helpers
	files["templates/NOTES.txt"] = notes
	files["templates/monitoring/servicemonitor.yaml"] = head + `{{- if .Values.monitoring.serviceMonitor.enabled }}
{{- if not .Values.metrics.enable }}
{{- fail "monitoring.serviceMonitor.enabled needs metrics.enable" }}
{{- end }}
# Prometheus authenticates with its ServiceAccount token, which the manager reviews (TokenReview,
# SubjectAccessReview of get /metrics); the certificate is the manager's self-signed one.
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata:
  name: ` + svc.GetName() + `
  namespace: {{ .Release.Namespace }}
  labels:
    {{- include "machinestatus.labels" . | nindent 4 }}
    {{- with .Values.monitoring.serviceMonitor.labels }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
spec:
  selector:
    matchLabels:
` + match.String() + `  endpoints:
  - port: ` + port + `
    scheme: https
    path: /metrics
    bearerTokenFile: /var/run/secrets/kubernetes.io/serviceaccount/token
    tlsConfig:
      insecureSkipVerify: true
    {{- with .Values.monitoring.serviceMonitor.interval }}
    interval: {{ . }}
    {{- end }}
{{- end }}
`
	files["templates/monitoring/metrics-reader-binding.yaml"] = head + `{{- with .Values.monitoring.serviceMonitor.prometheusServiceAccount }}
{{- if .name }}
# Lets Prometheus's ServiceAccount get /metrics.
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: ` + reader + `
  labels:
    {{- include "machinestatus.labels" $ | nindent 4 }}
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: ` + reader + `
subjects:
- kind: ServiceAccount
  name: {{ .name }}
  namespace: {{ required "monitoring.serviceMonitor.prometheusServiceAccount.namespace is required with its name" .namespace }}
{{- end }}
{{- end }}
`
	files["templates/monitoring/prometheusrule.yaml"] = head + `{{- if .Values.monitoring.prometheusRule.enabled }}
{{- $groups := .Files.Get "` + prometheusRuleGroups + `" }}
apiVersion: monitoring.coreos.com/v1
kind: PrometheusRule
metadata:
  name: machinestatus
  namespace: {{ .Release.Namespace }}
  labels:
    {{- include "machinestatus.labels" . | nindent 4 }}
    {{- with .Values.monitoring.prometheusRule.labels }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
spec:
  groups:
  {{- $groups | nindent 2 }}
{{- end }}
`
	return nil
}

// ruleGroups returns the groups of the Prometheus rule file at path as the YAML list the
// PrometheusRule template inserts under spec.groups.
func ruleGroups(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	var file struct {
		Groups []any `json:"groups"`
	}
	if err := yaml.Unmarshal(b, &file); err != nil {
		return "", fmt.Errorf("cannot read the rule file %s: %w", path, err)
	}
	if len(file.Groups) == 0 {
		return "", fmt.Errorf("the rule file %s has no groups", path)
	}
	out, err := yaml.Marshal(file.Groups)
	if err != nil {
		return "", err
	}
	return "# Written by `make helm-chart` from config/prometheus/rules/machinestatus.rules.yaml.\n" + string(out), nil
}
