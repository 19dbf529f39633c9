package status

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/listtype"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"sigs.k8s.io/yaml"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/config/crd"
)

// machineSchema validates Machines offline with the generated CRD and the API server's own
// libraries, in the API server's order: defaults, then the OpenAPI schema (types, enums,
// patterns, lengths, bounds), list-map keys, and the CEL rules. A fuzz target can so ask
// "would the API server store this?" thousands of times a second.
type machineSchema struct {
	structural *structuralschema.Structural
	openapi    validation.SchemaValidator
	cel        *cel.Validator

	// seen remembers the verdicts on the last few thousand objects, by their JSON: a fuzz target
	// sends many equal ones, and validating costs milliseconds.
	mu   sync.Mutex
	seen map[string]field.ErrorList
}

// maxSeen bounds machineSchema.seen; it is emptied when full.
const maxSeen = 4096

// newMachineSchema loads the v1alpha1 schema of config/crd/bases/machinestatus.io_machines.yaml.
func newMachineSchema(tb testing.TB) *machineSchema {
	tb.Helper()
	data, err := crd.Bases.ReadFile("bases/machinestatus.io_machines.yaml")
	if err != nil {
		tb.Fatal(err)
	}
	var def apiextensionsv1.CustomResourceDefinition
	if err := yaml.UnmarshalStrict(data, &def); err != nil {
		tb.Fatal(err)
	}
	var props *apiextensionsv1.JSONSchemaProps
	for _, v := range def.Spec.Versions {
		if v.Name == v1alpha1.GroupVersion.Version {
			props = v.Schema.OpenAPIV3Schema
		}
	}
	if props == nil {
		tb.Fatalf("the CRD has no %s schema", v1alpha1.GroupVersion.Version)
	}
	internal := &apiextensions.JSONSchemaProps{}
	if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(props, internal, nil); err != nil {
		tb.Fatal(err)
	}
	s := &machineSchema{seen: map[string]field.ErrorList{}}
	if s.structural, err = structuralschema.NewStructural(internal); err != nil {
		tb.Fatal(err)
	}
	if s.openapi, _, err = validation.NewSchemaValidator(internal); err != nil {
		tb.Fatal(err)
	}
	s.cel = cel.NewValidator(s.structural, true, celconfig.PerCallLimit)
	return s
}

// validate returns what the API server would refuse in m (a create: no old object), after
// applying the CRD's defaults to a copy.
func (s *machineSchema) validate(m *v1alpha1.Machine) field.ErrorList {
	obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(m)
	if err != nil {
		return field.ErrorList{field.InternalError(nil, fmt.Errorf("cannot convert the Machine: %w", err))}
	}
	obj["apiVersion"], obj["kind"] = v1alpha1.GroupVersion.String(), "Machine"
	key, err := json.Marshal(obj)
	if err != nil {
		return field.ErrorList{field.InternalError(nil, fmt.Errorf("cannot encode the Machine: %w", err))}
	}
	s.mu.Lock()
	errs, ok := s.seen[string(key)]
	s.mu.Unlock()
	if ok {
		return errs
	}

	structuraldefaulting.Default(obj, s.structural)
	errs = validation.ValidateCustomResource(nil, obj, s.openapi)
	errs = append(errs, listtype.ValidateListSetsAndMaps(nil, s.structural, obj)...)
	celErrs, _ := s.cel.Validate(context.Background(), nil, s.structural, obj, nil, celconfig.RuntimeCELCostBudget)
	errs = append(errs, celErrs...)

	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.seen) >= maxSeen {
		clear(s.seen)
	}
	s.seen[string(key)] = errs
	return errs
}
