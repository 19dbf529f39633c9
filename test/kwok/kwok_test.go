package kwok_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"

	"github.com/machinestatus/machinestatus/test/kwok"
)

func TestArgs(t *testing.T) {
	got := kwok.Args(kwok.Options{Binary: "/bin/kwok", Kubeconfig: "/k/config", StagesDir: "/mod/kwok"})
	want := []string{
		"/bin/kwok",
		"--kubeconfig=/k/config",
		"--manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake",
		"--config=/mod/kwok/kustomize/stage/node/fast",
		"--config=/mod/kwok/kustomize/stage/node/heartbeat",
		"--config=-",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Args (-want +got):\n%s", diff)
	}
}

// TestNodeNotReadyStage checks that the embedded stage keeps kwok's chaos stage's name and the
// label it selects Nodes by (what users of kwok know), and has a status template.
func TestNodeNotReadyStage(t *testing.T) {
	var stage struct {
		Kind     string
		Metadata struct{ Name string }
		Spec     struct {
			Selector struct {
				MatchExpressions []struct{ Key string }
			}
			Next struct{ StatusTemplate string }
		}
	}
	if err := yaml.Unmarshal(kwok.NodeNotReadyStage, &stage); err != nil {
		t.Fatal(err)
	}
	got := []string{stage.Kind, stage.Metadata.Name, stage.Spec.Selector.MatchExpressions[0].Key}
	want := []string{"Stage", "node-not-ready", `.metadata.labels["` + kwok.NotReadyLabel + `"]`}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("stage (-want +got):\n%s", diff)
	}
	if stage.Spec.Next.StatusTemplate == "" {
		t.Error("the stage has no status template")
	}
}
