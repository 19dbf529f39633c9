package main

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/labels"
)

func TestParseMachineAPIs(t *testing.T) {
	tests := []struct {
		value   string
		want    machineAPIs
		wantErr bool
	}{
		{value: "machinestatus.io", want: machineAPIs{machinestatus: true}},
		{value: "cluster.x-k8s.io", want: machineAPIs{clusterAPI: true}},
		{value: "machinestatus.io,cluster.x-k8s.io", want: machineAPIs{machinestatus: true, clusterAPI: true}},
		{value: " cluster.x-k8s.io , machinestatus.io,cluster.x-k8s.io", want: machineAPIs{machinestatus: true, clusterAPI: true}},
		{value: "", wantErr: true},
		{value: ",", wantErr: true},
		{value: "cluster.x-k8s.io,machines", wantErr: true},
		{value: "Cluster.x-k8s.io", wantErr: true},
	}
	for _, tt := range tests {
		got, err := parseMachineAPIs(tt.value)
		if (err != nil) != tt.wantErr {
			t.Errorf("parseMachineAPIs(%q) error %v, want error %v", tt.value, err, tt.wantErr)
			continue
		}
		if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(machineAPIs{})); err == nil && diff != "" {
			t.Errorf("parseMachineAPIs(%q) (-want +got):\n%s", tt.value, diff)
		}
	}
}

// TestDefaultLeaderElectionID: the default API over every Machine keeps the historical name;
// every other selector or API set elects apart.
func TestDefaultLeaderElectionID(t *testing.T) {
	ours, capi, both := machineAPIs{machinestatus: true}, machineAPIs{clusterAPI: true}, machineAPIs{machinestatus: true, clusterAPI: true}
	shard := labels.SelectorFromSet(labels.Set{"shard": "a"})
	if got := defaultLeaderElectionID(labels.Everything(), ours); got != "machinestatus.machinestatus.io" {
		t.Errorf("default: %s, want machinestatus.machinestatus.io", got)
	}
	seen := map[string]string{}
	for name, id := range map[string]string{
		"machinestatus.io, every Machine": defaultLeaderElectionID(labels.Everything(), ours),
		"machinestatus.io, shard=a":       defaultLeaderElectionID(shard, ours),
		"cluster.x-k8s.io, every Machine": defaultLeaderElectionID(labels.Everything(), capi),
		"cluster.x-k8s.io, shard=a":       defaultLeaderElectionID(shard, capi),
		"both APIs, every Machine":        defaultLeaderElectionID(labels.Everything(), both),
		"both APIs, shard=a":              defaultLeaderElectionID(shard, both),
	} {
		if other, ok := seen[id]; ok {
			t.Errorf("%s and %s share the Lease %s", name, other, id)
		}
		seen[id] = name
	}
}
