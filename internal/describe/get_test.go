package describe

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	"github.com/machinestatus/machinestatus/aggregate"
	"github.com/machinestatus/machinestatus/api/v1alpha1"
)

// getT0 is when the Machines of TestWriteTables were created; they are listed 90 minutes later.
var getT0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// getMachines are one machinestatus Machine and two Running Cluster API Machines, one whose
// history a manager keeps and one without.
func getMachines(t *testing.T) []Machine {
	t.Helper()
	created := metav1.NewTime(getT0)
	ready := metav1.Condition{Type: v1alpha1.MachineReadyCondition, Status: metav1.ConditionTrue, Reason: "Ready", LastTransitionTime: created}
	ours := &v1alpha1.Machine{
		ObjectMeta: metav1.ObjectMeta{Namespace: "fleet", Name: "worker-0", CreationTimestamp: created, Labels: map[string]string{"pool": "a"}},
		Spec:       v1alpha1.MachineSpec{ProviderID: "sim://worker-0", Version: "v1.36.3"},
		Status: v1alpha1.MachineStatus{
			Phase:         v1alpha1.MachinePhaseRunning,
			NodeRef:       &v1alpha1.MachineNodeReference{Name: "node-0"},
			Conditions:    []metav1.Condition{ready},
			LastOperation: &v1alpha1.LastOperation{Type: v1alpha1.MachineOperationCreate, State: v1alpha1.MachineOperationStateSuccessful, Description: "Created:\n the Node is Ready", LastUpdated: created},
		},
	}
	capi := func(name string, history bool) *clusterv1.Machine {
		c := func(typ, reason string) metav1.Condition {
			return metav1.Condition{Type: typ, Status: metav1.ConditionTrue, Reason: reason, LastTransitionTime: created}
		}
		m := &clusterv1.Machine{
			ObjectMeta: metav1.ObjectMeta{Namespace: "capi", Name: name, CreationTimestamp: created},
			Spec: clusterv1.MachineSpec{ClusterName: "prod", Bootstrap: clusterv1.Bootstrap{DataSecretName: ptr.To("data")},
				InfrastructureRef: clusterv1.ContractVersionedObjectReference{APIGroup: "infrastructure.cluster.x-k8s.io", Kind: "SimMachine", Name: name}},
			Status: clusterv1.MachineStatus{
				Phase:   string(clusterv1.MachinePhaseRunning),
				NodeRef: clusterv1.MachineNodeReference{Name: name + "-node"},
				Initialization: clusterv1.MachineInitializationStatus{
					BootstrapDataSecretCreated: ptr.To(true), InfrastructureProvisioned: ptr.To(true),
				},
				Conditions: []metav1.Condition{
					c(clusterv1.ReadyCondition, "Ready"),
					c(clusterv1.MachineBootstrapConfigReadyCondition, clusterv1.MachineBootstrapDataSecretProvidedReason),
					c(clusterv1.MachineInfrastructureReadyCondition, clusterv1.MachineInfrastructureReadyReason),
					c(clusterv1.MachineNodeReadyCondition, clusterv1.MachineNodeReadyReason),
					c(clusterv1.MachineNodeHealthyCondition, clusterv1.MachineNodeHealthyReason),
				},
			},
		}
		if history {
			_, op := aggregate.ClusterAPIMachineStatus(m, nil, false, time.Time{})
			if _, err := aggregate.SetLastOperationAnnotation(m, op); err != nil {
				t.Fatal(err)
			}
		}
		return m
	}
	return []Machine{{Machinestatus: ours}, {ClusterAPI: capi("capi-0", true)}, {ClusterAPI: capi("capi-1", false)}}
}

func TestWriteTables(t *testing.T) {
	ms := getMachines(t)
	now := getT0.Add(90 * time.Minute)
	tests := []struct {
		name          string
		ms            []Machine
		o             GetOptions
		want          string
		wantNoHistory bool
	}{{
		name: "machinestatus Machines",
		ms:   ms[:1], o: GetOptions{Now: now},
		want: `
NAME       PHASE     READY   LAST-OP             NODE     AGE
worker-0   Running   True    Create Successful   node-0   90m
`,
	}, {
		name: "Cluster API Machines, all namespaces, wide",
		ms:   ms[1:], o: GetOptions{Now: now, AllNamespaces: true, Wide: true},
		want: `
NAMESPACE   NAME     CLUSTER   PHASE     CAPI-PHASE   READY   LAST-OP              NODE          AGE   IN-STEP   POOL   REASON   UP-TO-DATE   PROVIDERID   VERSION   DESCRIPTION
capi        capi-0   prod      Running                True    Create Successful    capi-0-node   90m   90m              Ready                                        Created: the Node is Ready
capi        capi-1   prod      Running                True    Create Successful*   capi-1-node   90m   90m              Ready                                        Created: the Node is Ready
`,
		wantNoHistory: true,
	}, {
		name: "both APIs, labels, no headers",
		ms:   ms[:2], o: GetOptions{Now: now, NoHeaders: true, ShowLabels: true},
		want: `
machine.machinestatus.io/worker-0   Running   True   Create Successful   node-0   90m   pool=a

machine.cluster.x-k8s.io/capi-0   prod   Running         True   Create Successful   capi-0-node   90m   <none>
`,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			tb := newTables(tt.o)
			for _, m := range tt.ms {
				var obj runtime.Object = m.Machinestatus
				if m.ClusterAPI != nil {
					obj = m.ClusterAPI
				}
				if err := tb.add(obj); err != nil {
					t.Fatal(err)
				}
			}
			noHistory, err := tb.write(&b)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(strings.TrimPrefix(tt.want, "\n"), b.String()); diff != "" {
				t.Errorf("table (-want +got):\n%s", diff)
			}
			if noHistory != tt.wantNoHistory {
				t.Errorf("noHistory %v, want %v", noHistory, tt.wantNoHistory)
			}
		})
	}
}
