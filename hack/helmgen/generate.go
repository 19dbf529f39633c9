package main

import (
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// Machine APIs of the manager's --machine-apis: machinestatusAPI is its default (config/default
// passes no flag), clusterAPI the one config/clusterapi adds.
const (
	machinestatusAPI = "machinestatus.io"
	clusterAPI       = "cluster.x-k8s.io"
)

// Placeholders set in the objects before they are marshaled, then replaced by template text.
const (
	namespacePlaceholder = "__NAMESPACE__"
	replicasPlaceholder  = "__REPLICAS__"
	imagePlaceholder     = "__IMAGE__"
	// blockPrefix marks a field whose value is a block of template lines (blocks).
	blockPrefix = "__BLOCK_"
	// labelsMarker is a key added to metadata.labels; its line becomes the chart's labels.
	labelsMarker = "__HELM_LABELS__"
	// keepMarker is a key added to a CRD's annotations; its line becomes crd.keep's annotation.
	keepMarker = "__CRD_KEEP__"
)

// conditions under which a template renders.
const (
	condMachinestatus = `has "` + machinestatusAPI + `" .Values.machineAPIs`
	condClusterAPI    = `has "` + clusterAPI + `" .Values.machineAPIs`
	condCRD           = `and .Values.crd.enable (` + condMachinestatus + `)`
	condMetrics       = `.Values.metrics.enable`
)

// chart returns the chart's files from the objects of config/default (def) and
// config/clusterapi (capi). Objects only in def render with machinestatus.io in machineAPIs,
// objects only in capi with cluster.x-k8s.io; the Namespace is left to Helm (--namespace). It
// returns an error when the renderings differ in a way the chart has no value for.
func chart(def, capi []*unstructured.Unstructured, version, imageRepository string) (map[string]string, error) {
	inCAPI := map[string]*unstructured.Unstructured{}
	for _, o := range capi {
		inCAPI[key(o)] = o
	}
	files := map[string]string{}
	var deployment, service *unstructured.Unstructured
	var metricsReader string
	for _, o := range def {
		other, shared := inCAPI[key(o)]
		delete(inCAPI, key(o))
		cond := ""
		switch {
		case o.GetKind() == "Namespace":
			continue
		case o.GetKind() == "Deployment":
			if !shared {
				return nil, fmt.Errorf("config/clusterapi renders no Deployment %s", o.GetName())
			}
			if err := checkDeployments(o, other); err != nil {
				return nil, err
			}
			deployment = o
			continue
		case o.GetKind() == "CustomResourceDefinition":
			if shared {
				return nil, fmt.Errorf("config/clusterapi renders the CRD %s: the chart installs it only for %s", o.GetName(), machinestatusAPI)
			}
			cond = condCRD
		case !shared:
			cond = condMachinestatus
		case !reflect.DeepEqual(o.Object, other.Object):
			return nil, fmt.Errorf("%s differs between config/default and config/clusterapi: the chart has no value for that", key(o))
		case o.GetKind() == "Service":
			cond, service = condMetrics, o
		case o.GetKind() == "ClusterRole" && strings.HasSuffix(o.GetName(), "metrics-reader"):
			metricsReader = o.GetName()
		}
		text, err := template(o, cond)
		if err != nil {
			return nil, err
		}
		files[templatePath(o)] = text
	}
	for _, o := range capi {
		if _, only := inCAPI[key(o)]; !only || o.GetKind() == "Namespace" {
			continue
		}
		text, err := template(o, condClusterAPI)
		if err != nil {
			return nil, err
		}
		files[templatePath(o)] = text
	}
	if deployment == nil || service == nil || metricsReader == "" {
		return nil, fmt.Errorf("config/default renders no Deployment, metrics Service or metrics-reader ClusterRole")
	}
	text, err := deploymentTemplate(deployment)
	if err != nil {
		return nil, err
	}
	files[templatePath(deployment)] = text
	values, err := valuesFile(deployment, imageRepository)
	if err != nil {
		return nil, err
	}
	files["values.yaml"] = values
	files["Chart.yaml"] = chartFile(version)
	if err := staticFiles(files, service, metricsReader); err != nil {
		return nil, err
	}
	return files, nil
}

// checkDeployments returns an error unless capi's Deployment is def's with one more argument,
// --machine-apis=cluster.x-k8s.io, at the end: the only difference machineAPIs renders.
func checkDeployments(def, capi *unstructured.Unstructured) error {
	want := def.DeepCopy()
	args, _, _ := unstructured.NestedStringSlice(capi.Object, "spec", "template", "spec", "containers", "0", "args")
	containers, _, _ := unstructured.NestedSlice(want.Object, "spec", "template", "spec", "containers")
	if len(containers) != 1 {
		return fmt.Errorf("the Deployment has %d containers, want 1", len(containers))
	}
	c := containers[0].(map[string]any)
	defArgs, _, _ := unstructured.NestedStringSlice(c, "args")
	c["args"] = toAny(append(slices.Clone(defArgs), "--machine-apis="+clusterAPI))
	if err := unstructured.SetNestedSlice(want.Object, containers, "spec", "template", "spec", "containers"); err != nil {
		return err
	}
	if !reflect.DeepEqual(want.Object, capi.Object) {
		return fmt.Errorf("config/clusterapi's Deployment is not config/default's plus --machine-apis=%s (its args: %q)", clusterAPI, args)
	}
	return nil
}

func toAny(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}

// templatePath is where o's template goes, by kind.
func templatePath(o *unstructured.Unstructured) string {
	dir := "rbac"
	switch o.GetKind() {
	case "CustomResourceDefinition":
		dir = "crd"
	case "Deployment":
		dir = "manager"
	case "Service":
		dir = "metrics"
	}
	return "templates/" + dir + "/" + strings.ToLower(o.GetKind()) + "-" + o.GetName() + ".yaml"
}

// template returns o as a template rendering when cond (empty: always), in the release's
// namespace and with the chart's labels.
func template(o *unstructured.Unstructured, cond string) (string, error) {
	o = o.DeepCopy()
	prepare(o)
	body, err := marshal(o, nil)
	if err != nil {
		return "", err
	}
	return wrap(body, cond), nil
}

// prepare puts the placeholders every template has into o: the namespace of the object and of
// its subjects, the labels marker and, for a CRD, the keep marker.
func prepare(o *unstructured.Unstructured) {
	if o.GetNamespace() != "" {
		o.SetNamespace(namespacePlaceholder)
	}
	if subjects, ok, _ := unstructured.NestedSlice(o.Object, "subjects"); ok {
		for _, s := range subjects {
			if m, ok := s.(map[string]any); ok && m["namespace"] != nil {
				m["namespace"] = namespacePlaceholder
			}
		}
		_ = unstructured.SetNestedSlice(o.Object, subjects, "subjects")
	}
	labels := o.GetLabels()
	if labels == nil {
		labels = map[string]string{}
	}
	labels[labelsMarker] = ""
	o.SetLabels(labels)
	if o.GetKind() == "CustomResourceDefinition" {
		annotations := o.GetAnnotations()
		if annotations == nil {
			annotations = map[string]string{}
		}
		annotations[keepMarker] = ""
		o.SetAnnotations(annotations)
	}
}

// wrap puts body behind cond.
func wrap(body, cond string) string {
	head := "# Generated by `make helm-chart` (hack/helmgen) from config/: edit config/, then regenerate.\n"
	if cond == "" {
		return head + body
	}
	return head + "{{- if " + cond + " }}\n" + body + "{{- end }}\n"
}

// blockLine matches a line "key: __BLOCK_name__", possibly a list item's first key.
var blockLine = regexp.MustCompile(`^(\s*(?:- )?)([A-Za-z]+): ` + blockPrefix + `([A-Za-z]+)__$`)

// marshal returns o as YAML with the placeholders replaced by template text; blocks maps a
// block placeholder's name to its template lines (indented by the key's column).
func marshal(o *unstructured.Unstructured, blocks map[string]func(indent string) []string) (string, error) {
	b, err := yaml.Marshal(o.Object)
	if err != nil {
		return "", fmt.Errorf("cannot marshal %s: %w", key(o), err)
	}
	var out []string
	for _, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		trimmed := strings.TrimSpace(line)
		indent := line[:len(line)-len(strings.TrimLeft(line, " "))]
		switch {
		case trimmed == labelsMarker+`: ""`:
			out = append(out, indent+`{{- include "machinestatus.labels" . | nindent `+fmt.Sprint(len(indent))+` }}`)
		case trimmed == keepMarker+`: ""`:
			out = append(out, indent+"{{- if .Values.crd.keep }}", indent+"helm.sh/resource-policy: keep", indent+"{{- end }}")
		case blockLine.MatchString(line):
			m := blockLine.FindStringSubmatch(line)
			block, ok := blocks[m[3]]
			if !ok {
				return "", fmt.Errorf("%s: no block %s", key(o), m[3])
			}
			out = append(out, m[1]+m[2]+":")
			out = append(out, block(strings.Repeat(" ", len(m[1])))...)
		default:
			line = strings.ReplaceAll(line, namespacePlaceholder, "{{ .Release.Namespace }}")
			line = strings.ReplaceAll(line, replicasPlaceholder, "{{ .Values.replicas }}")
			line = strings.ReplaceAll(line, imagePlaceholder, `"{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}"`)
			out = append(out, line)
		}
	}
	body := strings.Join(out, "\n") + "\n"
	for _, p := range []string{namespacePlaceholder, replicasPlaceholder, imagePlaceholder, blockPrefix, labelsMarker, keepMarker} {
		if strings.Contains(body, p) {
			return "", fmt.Errorf("%s: placeholder %s left in the template", key(o), p)
		}
	}
	return body, nil
}
