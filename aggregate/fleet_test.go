package aggregate_test

import (
	"testing"

	"github.com/machinestatus/machinestatus/aggregate"
)

// TestClusterAndPool: the labels real Machines carry (a MachineDeployment's Machine carries the
// set-name label too, with the MachineSet's hashed name; a KubeadmControlPlane's Machine the
// control-plane-name; a MachinePool's Machine the pool-name).
func TestClusterAndPool(t *testing.T) {
	tests := []struct {
		name                  string
		clusterName           string
		labels                map[string]string
		poolLabel             string
		wantCluster, wantPool string
	}{
		{name: "MachineDeployment Machine: the deployment, never the hashed MachineSet",
			clusterName: "prod", labels: map[string]string{
				"cluster.x-k8s.io/cluster-name": "prod", "cluster.x-k8s.io/deployment-name": "prod-md-0",
				"cluster.x-k8s.io/set-name": "prod-md-0-5bd8f9cb7x", "machine-template-hash": "1739859742"},
			wantCluster: "prod", wantPool: "prod-md-0"},
		{name: "MachineSet without a deployment", clusterName: "prod",
			labels:      map[string]string{"cluster.x-k8s.io/set-name": "prod-ms-a"},
			wantCluster: "prod", wantPool: "prod-ms-a"},
		{name: "control plane Machine", clusterName: "prod",
			labels:      map[string]string{"cluster.x-k8s.io/control-plane": "", "cluster.x-k8s.io/control-plane-name": "prod-cp"},
			wantCluster: "prod", wantPool: "prod-cp"},
		{name: "MachinePool Machine", clusterName: "prod",
			labels:      map[string]string{"cluster.x-k8s.io/pool-name": "prod-mp-0"},
			wantCluster: "prod", wantPool: "prod-mp-0"},
		{name: "spec.clusterName wins over the label", clusterName: "a",
			labels: map[string]string{"cluster.x-k8s.io/cluster-name": "b"}, wantCluster: "a"},
		{name: "a standalone Machine: no pool", labels: map[string]string{"cluster.x-k8s.io/cluster-name": "dev"},
			wantCluster: "dev"},
		{name: "machinestatus Machine: the pool label only", poolLabel: aggregate.DefaultPoolLabel,
			labels:   map[string]string{"machinestatus.io/pool": "gpu", "cluster.x-k8s.io/deployment-name": "ignored"},
			wantPool: "gpu"},
		{name: "machinestatus Machine with another pool label", poolLabel: "example.com/pool",
			labels: map[string]string{"example.com/pool": "edge"}, wantPool: "edge"},
		{name: "no labels at all"},
	}
	for _, tt := range tests {
		if got := aggregate.Cluster(tt.clusterName, tt.labels); got != tt.wantCluster {
			t.Errorf("%s: Cluster = %q, want %q", tt.name, got, tt.wantCluster)
		}
		if got := aggregate.Pool(tt.labels, tt.poolLabel); got != tt.wantPool {
			t.Errorf("%s: Pool = %q, want %q", tt.name, got, tt.wantPool)
		}
	}
}
