package kwok

import (
	"bytes"
	_ "embed" // for the node-not-ready stage
	"path/filepath"
	"time"

	"github.com/machinestatus/machinestatus/test/internal/proc"
	"github.com/machinestatus/machinestatus/test/internal/repo"
)

// Module is the Go module that ships kwok and its stages (pinned by hack/tools/go.mod).
const Module = "sigs.k8s.io/kwok"

// ManageNodesSelector is the annotation selector kwok manages Nodes by: the annotation the
// simulated provider sets on its Nodes (kwokctl's default too).
const ManageNodesSelector = "kwok.x-k8s.io/node=fake"

// NotReadyLabel is the label that, set to "true" on a kwok-managed Node, makes kwok's
// node-not-ready stage set the Node's Ready condition False (after about a second); removing it
// makes the Node Ready again.
const NotReadyLabel = "node-not-ready.stage.kwok.x-k8s.io"

// ShippedStages are the stage directories, inside the kwok module, that kwok runs with.
var ShippedStages = []string{"kustomize/stage/node/fast", "kustomize/stage/node/heartbeat"}

// NodeNotReadyStage is kwok's chaos stage node-not-ready with a correct lastTransitionTime
// (see the comment at the top of stages/node-not-ready.yaml).
//
//go:embed stages/node-not-ready.yaml
var NodeNotReadyStage []byte

// Options configure Start.
type Options struct {
	// Binary is the kwok binary.
	Binary string
	// Kubeconfig is the kubeconfig of the API server whose Nodes kwok plays.
	Kubeconfig string
	// LogPath receives kwok's output.
	LogPath string
	// StagesDir is the directory of the kwok module (see StagesDir).
	StagesDir string
}

// StagesDir returns the directory of the kwok module as pinned by root/hack/tools.
func StagesDir(root string) (string, error) { return repo.ModuleDir(root, Module) }

// Args returns kwok's command line: opts.Binary, the kubeconfig, the Node selector and one
// --config per stage; the node-not-ready stage is read from standard input ("--config=-").
func Args(opts Options) []string {
	args := []string{
		opts.Binary,
		"--kubeconfig=" + opts.Kubeconfig,
		"--manage-nodes-with-annotation-selector=" + ManageNodesSelector,
	}
	for _, s := range ShippedStages {
		args = append(args, "--config="+filepath.Join(opts.StagesDir, s))
	}
	return append(args, "--config=-")
}

// Start starts kwok in its own process group; stop it with Process.Stop.
func Start(opts Options) (*proc.Process, error) {
	return proc.Start(proc.Options{
		Name:    "kwok",
		Args:    Args(opts),
		LogPath: opts.LogPath,
		Stdin:   bytes.NewReader(NodeNotReadyStage),
	})
}

// StopGrace is how long Stop waits for kwok to exit after SIGTERM.
const StopGrace = 5 * time.Second
