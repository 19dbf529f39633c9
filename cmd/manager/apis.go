package main

import (
	"fmt"
	"hash/crc32"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/labels"
)

// The values of --machine-apis: the API groups of the Machines the manager can reconcile.
const (
	machineAPIMachinestatus = "machinestatus.io"
	machineAPIClusterAPI    = "cluster.x-k8s.io"
)

// machineAPIs says which Machine APIs the manager reconciles.
type machineAPIs struct {
	machinestatus, clusterAPI bool
}

// parseMachineAPIs reads --machine-apis: a comma-separated list of machineAPIMachinestatus and
// machineAPIClusterAPI (spaces around a name and repeated names allowed). It returns an error
// for an empty list or an unknown name.
func parseMachineAPIs(value string) (machineAPIs, error) {
	var apis machineAPIs
	for name := range strings.SplitSeq(value, ",") {
		switch strings.TrimSpace(name) {
		case machineAPIMachinestatus:
			apis.machinestatus = true
		case machineAPIClusterAPI:
			apis.clusterAPI = true
		case "":
		default:
			return apis, fmt.Errorf("invalid --machine-apis %q: unknown API %q, want %s and/or %s",
				value, strings.TrimSpace(name), machineAPIMachinestatus, machineAPIClusterAPI)
		}
	}
	if !apis.machinestatus && !apis.clusterAPI {
		return apis, fmt.Errorf("invalid --machine-apis %q: name %s and/or %s", value, machineAPIMachinestatus, machineAPIClusterAPI)
	}
	return apis, nil
}

// names returns the APIs in a fixed order.
func (a machineAPIs) names() []string {
	var out []string
	if a.machinestatus {
		out = append(out, machineAPIMachinestatus)
	}
	if a.clusterAPI {
		out = append(out, machineAPIClusterAPI)
	}
	return out
}

// defaultLeaderElectionID is the Lease name when --leader-election-id is not given:
// machinestatus.machinestatus.io for the default API with every Machine, otherwise
// machinestatus-<crc32>.machinestatus.io of the selector (and of the APIs, when not the
// default), so that each shard, and a manager of other APIs in the same namespace, elects its
// own leader.
func defaultLeaderElectionID(selector labels.Selector, apis machineAPIs) string {
	key := ""
	if !selector.Empty() {
		key = selector.String()
	}
	if names := apis.names(); !slices.Equal(names, []string{machineAPIMachinestatus}) {
		key += "|" + strings.Join(names, ",")
	}
	if key == "" {
		return "machinestatus.machinestatus.io"
	}
	return fmt.Sprintf("machinestatus-%08x.machinestatus.io", crc32.ChecksumIEEE([]byte(key)))
}
