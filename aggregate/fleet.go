package aggregate

// Where a Machine sits in a fleet: its cluster and its pool. The manager (metrics labels, event
// relations) and the CLI (grouping) use these two functions and nothing else.

// ClusterNameLabel is Cluster API's label naming a Machine's cluster.
const ClusterNameLabel = "cluster.x-k8s.io/cluster-name"

// DefaultPoolLabel is the label that names a machinestatus Machine's pool unless the manager's
// and the CLI's --pool-label flag names another.
const DefaultPoolLabel = "machinestatus.io/pool"

// clusterAPIPoolLabels are Cluster API's labels that name a Machine's pool, first match wins: a
// MachineDeployment before the MachineSet it owns (whose name carries a hash), a MachinePool, a
// control plane.
var clusterAPIPoolLabels = [...]string{
	"cluster.x-k8s.io/deployment-name",
	"cluster.x-k8s.io/pool-name",
	"cluster.x-k8s.io/control-plane-name",
	"cluster.x-k8s.io/set-name",
}

// Cluster returns the cluster of a Machine: clusterName (a Cluster API Machine's
// spec.clusterName) when set, else the ClusterNameLabel of labels, else "".
func Cluster(clusterName string, labels map[string]string) string {
	if clusterName != "" {
		return clusterName
	}
	return labels[ClusterNameLabel]
}

// Pool returns the pool of a Machine from its labels: for a Cluster API Machine (poolLabel
// empty) the first of its deployment-name, pool-name, control-plane-name and set-name labels;
// for a machinestatus Machine the label poolLabel names. "" when none is set.
func Pool(labels map[string]string, poolLabel string) string {
	if poolLabel != "" {
		return labels[poolLabel]
	}
	for _, l := range clusterAPIPoolLabels {
		if v := labels[l]; v != "" {
			return v
		}
	}
	return ""
}
