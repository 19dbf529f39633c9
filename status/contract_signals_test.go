package status

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/conditions"
)

// TestContractFlagsReadTogether: a contract flag never outvotes the fields it depends on. A
// bootstrap object that reports ready but names no data secret has produced no bootstrap data
// (Cluster API's Machine controller refuses it: "got empty status.dataSecretName field"); an
// infrastructure object that reports provisioned but gives no providerID is not provisioned
// yet (Cluster API waits for spec.providerID before it records the infrastructure provisioned).
func TestContractFlagsReadTogether(t *testing.T) {
	bootstrapSpec := &v1alpha1.Bootstrap{ConfigRef: &v1alpha1.ContractVersionedObjectReference{APIGroup: "bootstrap.cluster.x-k8s.io", Kind: "KubeadmConfig", Name: "m"}}
	obj := func(kind string, fields map[string]any) *unstructured.Unstructured {
		u := &unstructured.Unstructured{Object: fields}
		u.SetKind(kind)
		u.SetName("m")
		return u
	}
	infraOK := obj("DockerMachine", map[string]any{"spec": map[string]any{"providerID": "docker:///m"}, "status": map[string]any{"initialization": map[string]any{"provisioned": true}}})
	cases := []struct {
		name         string
		machineID    string // the Machine's own spec.providerID
		infra, boot  *unstructured.Unstructured
		want         map[string]string // type → "Status/Reason"
		wantMessages map[string]string // type → a part of its message
	}{
		{name: "v1beta2 bootstrap: dataSecretCreated without dataSecretName",
			infra: infraOK, boot: obj("KubeadmConfig", map[string]any{"status": map[string]any{"initialization": map[string]any{"dataSecretCreated": true}}}),
			want:         map[string]string{"BootstrapConfigReady": "Unknown/BootstrapConfigContractViolation"},
			wantMessages: map[string]string{"BootstrapConfigReady": "status.dataSecretName: must be set when status.initialization.dataSecretCreated is true"}},
		{name: "v1beta1 bootstrap: ready without dataSecretName",
			infra: infraOK, boot: obj("KubeadmConfig", map[string]any{"status": map[string]any{"ready": true}}),
			want:         map[string]string{"BootstrapConfigReady": "Unknown/BootstrapConfigContractViolation"},
			wantMessages: map[string]string{"BootstrapConfigReady": "status.dataSecretName: must be set when status.ready is true"}},
		{name: "v1beta2 bootstrap: dataSecretCreated with an empty dataSecretName",
			infra: infraOK, boot: obj("KubeadmConfig", map[string]any{"status": map[string]any{"initialization": map[string]any{"dataSecretCreated": true}, "dataSecretName": ""}}),
			want: map[string]string{"BootstrapConfigReady": "Unknown/BootstrapConfigContractViolation"}},
		{name: "bootstrap ready with its data secret",
			infra: infraOK, boot: obj("KubeadmConfig", map[string]any{"status": map[string]any{"initialization": map[string]any{"dataSecretCreated": true}, "dataSecretName": "m-bootstrap"}}),
			want: map[string]string{"BootstrapConfigReady": "True/DataSecretCreated"}},
		{name: "bootstrap not ready and no dataSecretName: waiting, not a violation",
			infra: infraOK, boot: obj("KubeadmConfig", map[string]any{"status": map[string]any{"initialization": map[string]any{"dataSecretCreated": false}}}),
			want: map[string]string{"BootstrapConfigReady": "False/BootstrapConfigNotReady"}},
		{name: "v1beta2 infrastructure: provisioned without providerID",
			infra:        obj("DockerMachine", map[string]any{"status": map[string]any{"initialization": map[string]any{"provisioned": true}}}),
			want:         map[string]string{"InfrastructureReady": "False/InfrastructureNotProvisioned"},
			wantMessages: map[string]string{"InfrastructureReady": "no spec.providerID"}},
		{name: "v1beta1 infrastructure: ready without providerID",
			infra: obj("DockerMachine", map[string]any{"status": map[string]any{"ready": true}}),
			want:  map[string]string{"InfrastructureReady": "False/InfrastructureNotProvisioned"}},
		{name: "infrastructure provisioned without providerID, the Machine gives its own", machineID: "docker:///m",
			infra: obj("DockerMachine", map[string]any{"status": map[string]any{"initialization": map[string]any{"provisioned": true}}}),
			want:  map[string]string{"InfrastructureReady": "True/InfrastructureProvisioned"}},
		{name: "infrastructure provisioned with a providerID",
			infra: infraOK,
			want:  map[string]string{"InfrastructureReady": "True/InfrastructureProvisioned"}},
		{name: "a terminal failure beside provisioned: failed",
			infra: obj("DockerMachine", map[string]any{"spec": map[string]any{"providerID": "docker:///m"}, "status": map[string]any{"initialization": map[string]any{"provisioned": true}, "failureReason": "HostLost"}}),
			want:  map[string]string{"InfrastructureReady": "False/InfrastructureFailed"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := &v1alpha1.Machine{ObjectMeta: metav1.ObjectMeta{Name: "m", Generation: 1, CreationTimestamp: metav1.NewTime(at(-60))}}
			m.Spec.ProviderID = tc.machineID
			in := Inputs{Now: at(0), Infra: RefFromObject(Ref{Kind: tc.infra.GetKind(), Name: "m"}, tc.infra, "provisioned")}
			if tc.boot != nil {
				m.Spec.Bootstrap = bootstrapSpec
				b := RefFromObject(Ref{Kind: tc.boot.GetKind(), Name: "m"}, tc.boot, "dataSecretCreated")
				in.Bootstrap = &b
			}
			if _, err := Compute(m, in); err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			for typ := range tc.want {
				got[typ] = "absent"
				if c := conditions.Get(m, typ); c != nil {
					got[typ] = string(c.Status) + "/" + c.Reason
				}
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("conditions (-want +got):\n%s", d)
			}
			for typ, part := range tc.wantMessages {
				if msg := conditions.GetMessage(m, typ); !strings.Contains(msg, part) {
					t.Errorf("%s message %q does not say %q", typ, msg, part)
				}
			}
		})
	}
}
