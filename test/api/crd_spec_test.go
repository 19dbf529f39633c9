package api

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/test/harness"
)

// cause is one cause of the API server's validation error: the field path and the message.
type cause struct{ Field, Message string }

// Messages of the CRD's CEL rules (api/v1alpha1 markers).
const (
	msgAPIGroup    = "must be an API group: a DNS subdomain of lower-case letters, digits, '-' and '.' (e.g. infrastructure.cluster.x-k8s.io)"
	msgKind        = "must be a kind: letters, digits and '-', starting with a letter (e.g. DockerMachine)"
	msgName        = "must be an object name: a DNS subdomain of lower-case letters, digits, '-' and '.' (e.g. worker-0)"
	msgSecret      = "must be a Secret name: a DNS subdomain of lower-case letters, digits, '-' and '.' (e.g. worker-0-bootstrap)"
	msgVersion     = "must be a kubelet version: an optional 'v', then major.minor.patch and an optional '-' or '+' suffix (e.g. v1.36.3)"
	msgGateType    = "must be a condition type: an optional DNS subdomain prefix and '/', then a name of letters, digits, '-', '_' and '.' that starts and ends with a letter or digit (e.g. example.com/NetworkReady)"
	msgGateDerived = "a readiness gate cannot be Ready or Stalled, which are derived from the other conditions"
	msgBootstrap   = "exactly one of configRef and dataSecretName must be set"
)

// notChecked is the API server's note, next to some schema errors, that CEL rules were skipped;
// it names no field (the cause's field is "<nil>"), so the table leaves it out.
const notChecked = "some validation rules were not checked because the object was invalid"

// TestCRDRejectsBadSpec sends each Machine of the table to the API server: a bad one is refused
// with exactly the listed causes (field path and message), a good one is stored.
func TestCRDRejectsBadSpec(t *testing.T) {
	ns := env.Namespace(t)
	i32 := func(v int32) *int32 { return &v }
	ref := func(group, kind, name string) v1alpha1.ContractVersionedObjectReference {
		return v1alpha1.ContractVersionedObjectReference{APIGroup: group, Kind: kind, Name: name}
	}
	gates := func(g ...v1alpha1.MachineReadinessGate) func(*v1alpha1.Machine) {
		return func(m *v1alpha1.Machine) { m.Spec.ReadinessGates = g }
	}
	gate := func(t string) v1alpha1.MachineReadinessGate { return v1alpha1.MachineReadinessGate{ConditionType: t} }
	unhealthy := func(c ...v1alpha1.UnhealthyNodeCondition) func(*v1alpha1.Machine) {
		return func(m *v1alpha1.Machine) {
			m.Spec.HealthCheck = &v1alpha1.MachineHealthCheck{UnhealthyNodeConditions: c}
		}
	}
	invalid := func(field, value, msg string) cause {
		return cause{field, fmt.Sprintf("Invalid value: %s: %s", value, msg)}
	}
	empty := func(field string) cause {
		return invalid(field, `""`, field+" in body should be at least 1 chars long")
	}
	rep := strings.Repeat

	cases := []struct {
		name   string
		mutate func(*v1alpha1.Machine)
		want   []cause // none: the Machine is stored
	}{
		{"good: every field set", func(m *v1alpha1.Machine) {
			m.Spec.ProviderID = "aws:///eu-west-1a/i-0123"
			m.Spec.Bootstrap = &v1alpha1.Bootstrap{ConfigRef: new(ref("bootstrap.cluster.x-k8s.io", "KubeadmConfig", "worker-0"))}
			m.Spec.Version = "v1.36.3"
			m.Spec.ReadinessGates = []v1alpha1.MachineReadinessGate{gate("example.com/NetworkReady"), {ConditionType: "Drained", Polarity: v1alpha1.NegativeConditionPolarity}}
			m.Spec.HealthCheck = &v1alpha1.MachineHealthCheck{NodeStartupTimeoutSeconds: i32(1), UnhealthyNodeConditions: []v1alpha1.UnhealthyNodeCondition{
				{Type: corev1.NodeReady, Status: corev1.ConditionUnknown, TimeoutSeconds: 1},
			}}
		}, nil},
		{"good: bootstrap data secret, limits reached", func(m *v1alpha1.Machine) {
			m.Spec.ProviderID = rep("p", 512)
			m.Spec.Bootstrap = &v1alpha1.Bootstrap{DataSecretName: rep("s", 253)}
			m.Spec.Version = "1.36.3+build.1"
			m.Spec.InfrastructureRef = ref(rep("g", 253), "K"+rep("k", 62), rep("n", 253))
			m.Spec.ReadinessGates = []v1alpha1.MachineReadinessGate{gate(rep("a", 253) + "/" + rep("b", 62)), gate(rep("c", 63))}
		}, nil},

		// Timeouts.
		{"zero nodeStartupTimeoutSeconds", func(m *v1alpha1.Machine) {
			m.Spec.HealthCheck = &v1alpha1.MachineHealthCheck{NodeStartupTimeoutSeconds: i32(0)}
		}, []cause{invalid("spec.healthCheck.nodeStartupTimeoutSeconds", "0", "spec.healthCheck.nodeStartupTimeoutSeconds in body should be greater than or equal to 1")}},
		{"negative nodeStartupTimeoutSeconds", func(m *v1alpha1.Machine) {
			m.Spec.HealthCheck = &v1alpha1.MachineHealthCheck{NodeStartupTimeoutSeconds: i32(-600)}
		}, []cause{invalid("spec.healthCheck.nodeStartupTimeoutSeconds", "-600", "spec.healthCheck.nodeStartupTimeoutSeconds in body should be greater than or equal to 1")}},
		{"zero unhealthy timeoutSeconds", unhealthy(
			v1alpha1.UnhealthyNodeCondition{Type: corev1.NodeReady, Status: corev1.ConditionFalse, TimeoutSeconds: 300},
			v1alpha1.UnhealthyNodeCondition{Type: corev1.NodeReady, Status: corev1.ConditionUnknown, TimeoutSeconds: 0},
		), []cause{invalid("spec.healthCheck.unhealthyNodeConditions[1].timeoutSeconds", "0", "spec.healthCheck.unhealthyNodeConditions[1].timeoutSeconds in body should be greater than or equal to 1")}},
		{"negative unhealthy timeoutSeconds", unhealthy(
			v1alpha1.UnhealthyNodeCondition{Type: corev1.NodeReady, Status: corev1.ConditionFalse, TimeoutSeconds: -1},
		), []cause{invalid("spec.healthCheck.unhealthyNodeConditions[0].timeoutSeconds", "-1", "spec.healthCheck.unhealthyNodeConditions[0].timeoutSeconds in body should be greater than or equal to 1")}},
		{"unhealthy status not True/False/Unknown", unhealthy(
			v1alpha1.UnhealthyNodeCondition{Type: corev1.NodeReady, Status: "Maybe", TimeoutSeconds: 1},
		), []cause{{"spec.healthCheck.unhealthyNodeConditions[0].status", `Unsupported value: "Maybe": supported values: "True", "False", "Unknown"`}}},
		{"empty unhealthy type", unhealthy(
			v1alpha1.UnhealthyNodeCondition{Type: "", Status: corev1.ConditionFalse, TimeoutSeconds: 1},
		), []cause{empty("spec.healthCheck.unhealthyNodeConditions[0].type")}},

		// Readiness gates.
		{"unknown polarity", gates(v1alpha1.MachineReadinessGate{ConditionType: "example.com/X", Polarity: "Sideways"}),
			[]cause{{"spec.readinessGates[0].polarity", `Unsupported value: "Sideways": supported values: "Positive", "Negative"`}}},
		{"empty gate conditionType", gates(gate("")), []cause{empty("spec.readinessGates[0].conditionType")}},
		{"duplicate gates", gates(gate("example.com/X"), v1alpha1.MachineReadinessGate{ConditionType: "example.com/X", Polarity: v1alpha1.NegativeConditionPolarity}),
			[]cause{{"spec.readinessGates[1]", `Duplicate value: {"conditionType":"example.com/X"}`}}},
		{"Ready as a gate", gates(gate("example.com/X"), gate("Ready")), []cause{invalid("spec.readinessGates[1].conditionType", `"Ready"`, msgGateDerived)}},
		{"Stalled as a gate", gates(gate("Stalled")), []cause{invalid("spec.readinessGates[0].conditionType", `"Stalled"`, msgGateDerived)}},
		{"gate type with a space", gates(gate("Network Ready")), []cause{invalid("spec.readinessGates[0].conditionType", `"Network Ready"`, msgGateType)}},
		{"gate type with an upper-case prefix", gates(gate("Example.com/X")), []cause{invalid("spec.readinessGates[0].conditionType", `"Example.com/X"`, msgGateType)}},
		{"gate type ending in a dash", gates(gate("Ready-")), []cause{invalid("spec.readinessGates[0].conditionType", `"Ready-"`, msgGateType)}},
		{"gate type with two slashes", gates(gate("a/b/c")), []cause{invalid("spec.readinessGates[0].conditionType", `"a/b/c"`, msgGateType)}},
		{"gate name part of 64 characters", gates(gate("example.com/" + rep("x", 64))), []cause{
			invalid("spec.readinessGates[0].conditionType", `"example.com/`+rep("x", 64)+`"`, "a condition type's name part must be at most 63 characters")}},
		{"gate prefix of 254 characters", gates(gate(rep("a", 254) + "/x")), []cause{
			invalid("spec.readinessGates[0].conditionType", `"`+rep("a", 254)+`/x"`, "a condition type's prefix must be at most 253 characters")}},
		{"gate type of 317 characters", gates(gate(rep("a", 317))), []cause{{"spec.readinessGates[0].conditionType", "Too long: may not be more than 316 bytes"}}},

		// References.
		{"empty infrastructureRef", func(m *v1alpha1.Machine) { m.Spec.InfrastructureRef = v1alpha1.ContractVersionedObjectReference{} }, []cause{
			empty("spec.infrastructureRef.apiGroup"), empty("spec.infrastructureRef.kind"), empty("spec.infrastructureRef.name")}},
		{"infrastructureRef apiGroup with upper case and '_'", func(m *v1alpha1.Machine) { m.Spec.InfrastructureRef.APIGroup = "Infra_Structure" },
			[]cause{invalid("spec.infrastructureRef.apiGroup", `"Infra_Structure"`, msgAPIGroup)}},
		{"infrastructureRef kind with a space", func(m *v1alpha1.Machine) { m.Spec.InfrastructureRef.Kind = "Fake Machine" },
			[]cause{invalid("spec.infrastructureRef.kind", `"Fake Machine"`, msgKind)}},
		{"infrastructureRef kind starting with a digit", func(m *v1alpha1.Machine) { m.Spec.InfrastructureRef.Kind = "9Machine" },
			[]cause{invalid("spec.infrastructureRef.kind", `"9Machine"`, msgKind)}},
		{"infrastructureRef name with upper case", func(m *v1alpha1.Machine) { m.Spec.InfrastructureRef.Name = "Worker_0" },
			[]cause{invalid("spec.infrastructureRef.name", `"Worker_0"`, msgName)}},
		{"infrastructureRef name of 254 characters", func(m *v1alpha1.Machine) { m.Spec.InfrastructureRef.Name = rep("n", 254) },
			[]cause{{"spec.infrastructureRef.name", "Too long: may not be more than 253 bytes"}}},
		{"infrastructureRef kind of 64 characters", func(m *v1alpha1.Machine) { m.Spec.InfrastructureRef.Kind = "K" + rep("k", 63) },
			[]cause{{"spec.infrastructureRef.kind", "Too long: may not be more than 63 bytes"}}},
		{"bootstrap with both configRef and dataSecretName", func(m *v1alpha1.Machine) {
			m.Spec.Bootstrap = &v1alpha1.Bootstrap{ConfigRef: new(ref("bootstrap.cluster.x-k8s.io", "KubeadmConfig", "c")), DataSecretName: "s"}
		}, []cause{{"spec.bootstrap", "Invalid value: " + msgBootstrap}}},
		{"bootstrap with neither", func(m *v1alpha1.Machine) { m.Spec.Bootstrap = &v1alpha1.Bootstrap{} },
			[]cause{{"spec.bootstrap", "Invalid value: " + msgBootstrap}}},
		{"bootstrap configRef with a bad group", func(m *v1alpha1.Machine) {
			m.Spec.Bootstrap = &v1alpha1.Bootstrap{ConfigRef: new(ref("bootstrap/cluster", "KubeadmConfig", "c"))}
		}, []cause{invalid("spec.bootstrap.configRef.apiGroup", `"bootstrap/cluster"`, msgAPIGroup)}},
		{"bootstrap dataSecretName with a space", func(m *v1alpha1.Machine) { m.Spec.Bootstrap = &v1alpha1.Bootstrap{DataSecretName: "my secret"} },
			[]cause{invalid("spec.bootstrap.dataSecretName", `"my secret"`, msgSecret)}},

		// Other fields.
		{"version that is no version", func(m *v1alpha1.Machine) { m.Spec.Version = "latest" },
			[]cause{invalid("spec.version", `"latest"`, msgVersion)}},
		{"providerID of 513 characters", func(m *v1alpha1.Machine) { m.Spec.ProviderID = rep("p", 513) },
			[]cause{{"spec.providerID", "Too long: may not be more than 512 bytes"}}},
		{"33 readiness gates", func(m *v1alpha1.Machine) {
			for i := range 33 {
				m.Spec.ReadinessGates = append(m.Spec.ReadinessGates, gate(fmt.Sprintf("example.com/G%d", i)))
			}
		}, []cause{{"spec.readinessGates", "Too many: 33: must have at most 32 items"}}},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := harness.NewMachine(ns, fmt.Sprintf("spec-%d", i))
			m.Annotations = map[string]string{v1alpha1.PausedAnnotation: "true"} // keep the controller out
			tc.mutate(m)
			err := k8s.Create(context.Background(), m)
			checkCauses(t, err, tc.want)
		})
	}
}

// TestCRDRejectsBadStatus writes each status of the table as a status writer would: a bad one is
// refused with exactly the listed causes and leaves the stored status unchanged. Paths inside the
// status subresource's own schema errors are relative to status (e.g. "observedGeneration in
// body"), as the API server reports them.
func TestCRDRejectsBadStatus(t *testing.T) {
	ctx := context.Background()
	ns := env.Namespace(t)
	m := harness.NewMachine(ns, "status")
	m.Annotations = map[string]string{v1alpha1.PausedAnnotation: "true"} // keep the controller out
	env.Create(t, m)
	harness.Wait(t, harness.MachineTimeout, "the controller's Paused condition", func(context.Context) (bool, string) {
		if len(env.GetMachine(t, ns, "status").Status.Conditions) == 0 {
			return false, "no conditions yet"
		}
		return true, ""
	})
	now := metav1.NewTime(time.Now().Truncate(time.Second))
	op := func(typ v1alpha1.MachineOperationType, state v1alpha1.MachineOperationState, description string) *v1alpha1.LastOperation {
		return &v1alpha1.LastOperation{Type: typ, State: state, Description: description, LastUpdated: now}
	}
	// withCustom puts the condition of another writer, example.com/Custom, first.
	withCustom := func(s *v1alpha1.MachineStatus, message string) {
		others := slices.DeleteFunc(s.Conditions, func(c metav1.Condition) bool { return c.Type == "example.com/Custom" })
		s.Conditions = append([]metav1.Condition{{
			Type: "example.com/Custom", Status: metav1.ConditionTrue, Reason: "Fine", Message: message, LastTransitionTime: now,
		}}, others...)
	}
	rep := strings.Repeat

	cases := []struct {
		name   string
		mutate func(*v1alpha1.MachineStatus)
		want   []cause
	}{
		{"good: limits reached", func(s *v1alpha1.MachineStatus) {
			s.Phase = v1alpha1.MachinePhaseRunning
			s.LastOperation = op(v1alpha1.MachineOperationCreate, v1alpha1.MachineOperationStateSuccessful, rep("é", 512))
			withCustom(s, rep("m", 32768))
			s.ProviderID = rep("p", 512)
			s.NodeRef = &v1alpha1.MachineNodeReference{Name: "n"}
		}, nil},
		{"phase not in the enum", func(s *v1alpha1.MachineStatus) { s.Phase = "Exploded" }, []cause{{"status.phase",
			`Unsupported value: "Exploded": supported values: "Pending", "Provisioning", "Provisioned", "Running", "Unknown", "Standby", "Draining", "Updating", "Failed", "Deleting", "Deleted"`}}},
		{"lastOperation type not in the enum", func(s *v1alpha1.MachineStatus) {
			s.LastOperation = op("Reboot", v1alpha1.MachineOperationStateProcessing, "")
		}, []cause{{"status.lastOperation.type", `Unsupported value: "Reboot": supported values: "Create", "Update", "DrainNode", "HealthCheck", "Delete"`}}},
		{"lastOperation state not in the enum", func(s *v1alpha1.MachineStatus) {
			s.LastOperation = op(v1alpha1.MachineOperationUpdate, "Exploding", "")
		}, []cause{{"status.lastOperation.state", `Unsupported value: "Exploding": supported values: "Processing", "Successful", "Failed"`}}},
		{"lastOperation description of 1025 characters", func(s *v1alpha1.MachineStatus) {
			s.LastOperation = op(v1alpha1.MachineOperationUpdate, v1alpha1.MachineOperationStateFailed, rep("d", 1025))
		}, []cause{{"status.lastOperation.description", "Too long: may not be more than 1024 bytes"}}},
		{"condition message of 32769 characters", func(s *v1alpha1.MachineStatus) { withCustom(s, rep("m", 32769)) },
			[]cause{{"status.conditions[0].message", "Too long: may not be more than 32768 bytes"}}},
		{"condition message of 16385 two-byte characters (32770 bytes)", func(s *v1alpha1.MachineStatus) { withCustom(s, rep("é", 16385)) },
			[]cause{{"status.conditions", "Invalid value: a condition message must be at most 32768 bytes"}}},
		{"condition status not True/False/Unknown", func(s *v1alpha1.MachineStatus) {
			withCustom(s, "")
			s.Conditions[0].Status = "Maybe"
		}, []cause{{"status.conditions[0].status", `Unsupported value: "Maybe": supported values: "True", "False", "Unknown"`}}},
		{"condition reason with spaces", func(s *v1alpha1.MachineStatus) {
			withCustom(s, "")
			s.Conditions[0].Reason = "not a reason"
		}, []cause{{"status.conditions[0].reason", `Invalid value: "not a reason": conditions[0].reason in body should match '^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$'`}}},
		{"negative observedGeneration", func(s *v1alpha1.MachineStatus) { s.ObservedGeneration = -1 },
			[]cause{{"status.observedGeneration", "Invalid value: -1: observedGeneration in body should be greater than or equal to 0"}}},
		{"providerID of 513 characters", func(s *v1alpha1.MachineStatus) { s.ProviderID = rep("p", 513) },
			[]cause{{"status.providerID", "Too long: may not be more than 512 bytes"}}},
		{"empty nodeRef name", func(s *v1alpha1.MachineStatus) { s.NodeRef = &v1alpha1.MachineNodeReference{} },
			[]cause{{"status.nodeRef.name", `Invalid value: "": nodeRef.name in body should be at least 1 chars long`}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var before *v1alpha1.Machine
			// The controller may write Paused meanwhile: retry on conflicts.
			err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
				before = env.GetMachine(t, ns, "status")
				bad := before.DeepCopy()
				tc.mutate(&bad.Status)
				return k8s.Status().Update(ctx, bad)
			})
			checkCauses(t, err, tc.want)
			if tc.want != nil {
				if after := env.GetMachine(t, ns, "status"); !equality.Semantic.DeepEqual(after.Status, before.Status) {
					t.Errorf("the stored status changed after a refused update (-before +after):\n%s", cmp.Diff(before.Status, after.Status))
				}
			}
		})
	}
}

// checkCauses fails unless err is nil when want is empty, or else an Invalid StatusError whose
// causes (but notChecked) are exactly want, in any order.
func checkCauses(t *testing.T, err error, want []cause) {
	t.Helper()
	if len(want) == 0 {
		if err != nil {
			t.Fatalf("the API server refused a good object: %v", err)
		}
		return
	}
	var se *apierrors.StatusError
	if !errors.As(err, &se) || !apierrors.IsInvalid(err) || se.ErrStatus.Details == nil {
		t.Fatalf("error = %v, want an Invalid StatusError with causes", err)
	}
	var got []cause
	for _, c := range se.ErrStatus.Details.Causes {
		if strings.Contains(c.Message, notChecked) {
			continue
		}
		got = append(got, cause{c.Field, c.Message})
	}
	order := func(a, b cause) int { return strings.Compare(a.Field+a.Message, b.Field+b.Message) }
	slices.SortFunc(got, order)
	want = slices.Clone(want)
	slices.SortFunc(want, order)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("causes (-want +got):\n%s", diff)
	}
}
