package clusterapi

import (
	"path/filepath"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
)

// allowedDifference is a difference from Cluster API's phase that docs/clusterapi.md justifies.
type allowedDifference struct {
	clusterAPI string
	ours       v1alpha1.MachinePhase
	// section is the heading of the docs/clusterapi.md section ("### " + section) that says why.
	section string
}

// allowedDifferences are the only differences from Cluster API's phase the suite accepts in a
// settled state. (The in-between states of docs/clusterapi.md, Running before the Node is Ready
// and the deletion request before Cluster API's first delete pass, are not settled.)
var allowedDifferences = []allowedDifference{
	{clusterAPI: "Pending", ours: v1alpha1.MachinePhaseProvisioning, section: "Provisioning with a given data secret"},
	{clusterAPI: "Running", ours: v1alpha1.MachinePhaseUnknown, section: "Unknown after creation"},
	{clusterAPI: "Running", ours: v1alpha1.MachinePhaseFailed, section: "Failed on a failed health check"},
	{clusterAPI: "Deleting", ours: v1alpha1.MachinePhaseDeleted, section: "Deleted"},
}

// justification returns the docs section that allows our phase where Cluster API says
// clusterAPI, "" when they agree, and false when the difference is not allowed.
func justification(clusterAPI string, ours v1alpha1.MachinePhase) (string, bool) {
	if clusterAPI == string(ours) {
		return "", true
	}
	for _, d := range allowedDifferences {
		if d.clusterAPI == clusterAPI && d.ours == ours {
			return d.section, true
		}
	}
	return "", false
}

// docsPath is docs/clusterapi.md, from this package's directory.
var docsPath = filepath.Join("..", "..", "docs", "clusterapi.md")
