package main

import (
	"fmt"
	"regexp"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// metricsArg starts the manager's metrics flag, rendered by metrics.enable.
const metricsArg = "--metrics-bind-address="

// plainArg matches an argument written in the template as it is.
var plainArg = regexp.MustCompile(`^--[a-z0-9-]+(=[A-Za-z0-9:._,/-]*)?$`)

// deploymentTemplate returns the manager's Deployment as a template: replicas, image,
// resources and both security contexts come from values.yaml (whose defaults valuesFile takes
// from this same Deployment), and the arguments are config/default's plus machineAPIs,
// machineSelector and extraArgs.
func deploymentTemplate(d *unstructured.Unstructured) (string, error) {
	d = d.DeepCopy()
	prepare(d)
	containers, _, _ := unstructured.NestedSlice(d.Object, "spec", "template", "spec", "containers")
	if len(containers) != 1 {
		return "", fmt.Errorf("the Deployment has %d containers, want 1", len(containers))
	}
	c := containers[0].(map[string]any)
	args, _, err := unstructured.NestedStringSlice(c, "args")
	if err != nil {
		return "", fmt.Errorf("the manager's args: %w", err)
	}
	for _, a := range args {
		if !plainArg.MatchString(a) {
			return "", fmt.Errorf("the manager's argument %q needs quoting, which helmgen does not do", a)
		}
	}
	c["args"] = blockPrefix + "args__"
	c["image"] = imagePlaceholder
	c["resources"] = blockPrefix + "resources__"
	c["securityContext"] = blockPrefix + "containerSecurityContext__"
	if err := unstructured.SetNestedSlice(d.Object, containers, "spec", "template", "spec", "containers"); err != nil {
		return "", err
	}
	if err := unstructured.SetNestedField(d.Object, replicasPlaceholder, "spec", "replicas"); err != nil {
		return "", err
	}
	if err := unstructured.SetNestedField(d.Object, blockPrefix+"podSecurityContext__", "spec", "template", "spec", "securityContext"); err != nil {
		return "", err
	}
	body, err := marshal(d, map[string]func(string) []string{
		"args":                     func(indent string) []string { return argLines(indent, args) },
		"resources":                toYAML(".Values.resources"),
		"containerSecurityContext": toYAML(".Values.securityContext"),
		"podSecurityContext":       toYAML(".Values.podSecurityContext"),
	})
	if err != nil {
		return "", err
	}
	return wrap(body, ""), nil
}

// argLines returns the template lines of the manager's arguments at indent.
func argLines(indent string, args []string) []string {
	var lines []string
	for _, a := range args {
		if strings.HasPrefix(a, metricsArg) {
			a = "{{ if .Values.metrics.enable }}" + a + "{{ else }}" + metricsArg + "0{{ end }}"
		}
		lines = append(lines, indent+"- "+a)
	}
	return append(lines,
		indent+`{{- if ne (join "," .Values.machineAPIs) "`+machinestatusAPI+`" }}`,
		indent+`- --machine-apis={{ join "," .Values.machineAPIs }}`,
		indent+`{{- end }}`,
		indent+`{{- with .Values.machineSelector }}`,
		indent+`- {{ printf "--machine-selector=%s" . | quote }}`,
		indent+`{{- end }}`,
		indent+`{{- range .Values.extraArgs }}`,
		indent+`- {{ . | quote }}`,
		indent+`{{- end }}`,
	)
}

// toYAML returns a block rendering value (a values path) one level below the key.
func toYAML(value string) func(string) []string {
	return func(indent string) []string {
		n := len(indent) + 2
		return []string{strings.Repeat(" ", n) + fmt.Sprintf("{{- toYaml %s | nindent %d }}", value, n)}
	}
}
