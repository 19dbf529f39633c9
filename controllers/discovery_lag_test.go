package controllers_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilrand "k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/conditions"
	"github.com/machinestatus/machinestatus/controllers"
	"github.com/machinestatus/machinestatus/test/harness"
)

// ownManagerLabel marks the Machines of a test that runs its own manager (startLaggingManager):
// the suite's manager does not cache them (suite_test.go), so that only the test's reconciles
// them.
const ownManagerLabel = "machinestatus.io/test-manager"

// laggingMapper is a RESTMapper whose discovery lags behind the CRDs as long as the test wants:
// it maps no hidden version (a dynamic RESTMapper maps none for the seconds between a CRD
// serving a new version and discovery listing it) and counts how often one was asked for.
type laggingMapper struct {
	meta.RESTMapper
	mu      sync.Mutex
	hidden  map[schema.GroupVersionKind]bool
	refused map[schema.GroupVersionKind]int
}

// hide makes gvk missing from discovery (true) or listed again (false).
func (m *laggingMapper) hide(gvk schema.GroupVersionKind, hidden bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.hidden == nil {
		m.hidden = map[schema.GroupVersionKind]bool{}
	}
	m.hidden[gvk] = hidden
}

// refusals returns how often gvk was asked for while hidden.
func (m *laggingMapper) refusals(gvk schema.GroupVersionKind) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.refused[gvk]
}

// visible returns versions without the hidden ones of gk, counting the refusals.
func (m *laggingMapper) visible(gk schema.GroupKind, versions []string) []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []string
	for _, v := range versions {
		if m.hidden[gk.WithVersion(v)] {
			if m.refused == nil {
				m.refused = map[schema.GroupVersionKind]int{}
			}
			m.refused[gk.WithVersion(v)]++
			continue
		}
		out = append(out, v)
	}
	return out
}

func (m *laggingMapper) RESTMapping(gk schema.GroupKind, versions ...string) (*meta.RESTMapping, error) {
	if len(versions) == 0 {
		all, err := m.RESTMappings(gk)
		if err != nil {
			return nil, err
		}
		return all[0], nil
	}
	visible := m.visible(gk, versions)
	if len(visible) == 0 {
		return nil, &meta.NoKindMatchError{GroupKind: gk, SearchedVersions: versions}
	}
	return m.RESTMapper.RESTMapping(gk, visible...)
}

func (m *laggingMapper) RESTMappings(gk schema.GroupKind, versions ...string) ([]*meta.RESTMapping, error) {
	all, err := m.RESTMapper.RESTMappings(gk, versions...)
	if err != nil {
		return nil, err
	}
	var out []*meta.RESTMapping
	for _, mapping := range all {
		if len(m.visible(gk, []string{mapping.GroupVersionKind.Version})) == 1 {
			out = append(out, mapping)
		}
	}
	if len(out) == 0 {
		return nil, &meta.NoKindMatchError{GroupKind: gk, SearchedVersions: versions}
	}
	return out, nil
}

// startLaggingManager runs, until the test ends, a manager (admin) that reconciles only the
// Machines labelled ownManagerLabel=value, through mapper over a dynamic RESTMapper (for its
// cache as for its reconciler, as the manager's one RESTMapper is), and returns its reconciler.
func startLaggingManager(t *testing.T, value string, mapper *laggingMapper) *controllers.MachineReconciler {
	t.Helper()
	m, err := ctrl.NewManager(env.Config, ctrl.Options{
		Scheme:                 scheme,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Cache:                  controllers.CacheOptions(labels.SelectorFromSet(labels.Set{ownManagerLabel: value}), true),
		MapperProvider: func(c *rest.Config, hc *http.Client) (meta.RESTMapper, error) {
			dynamic, err := apiutil.NewDynamicRESTMapper(c, hc)
			mapper.RESTMapper = dynamic
			return mapper, err
		},
		// The suite's manager registered the controller's name in this process already.
		Controller: config.Controller{SkipNameValidation: ptr.To(true)},
	})
	if err != nil {
		t.Fatal(err)
	}
	r := &controllers.MachineReconciler{
		Client: m.GetClient(), Cache: m.GetCache(), RESTMapper: m.GetRESTMapper(),
		Recorder: m.GetEventRecorder("lagging"), FieldOwner: "lagging",
		// Bounds the discovery backoff (2 s, 2 s, 4 s, 5 s, …), so that the switch after the lag
		// is prompt.
		KindRetryInterval: 5 * time.Second,
	}
	harness.RunManager(t, "lagging", m, func(ctx context.Context) error { return r.SetupWithManager(ctx, m) })
	return r
}

// TestVersionAddedWhileDiscoveryLags: a provider's CRD starts serving v1beta2 beside v1beta1
// (stored from now on), and discovery does not list v1beta2 for a while. The Machine keeps being
// read, and watched, at v1beta1 meanwhile: every status written from the CRD change until the
// switch is Provisioned with InfrastructureReady True (before, it was InfrastructureReady
// Unknown, InfrastructureKindNotServed: "version v1beta2 … is not in discovery yet" until
// discovery caught up). Once discovery lists v1beta2 — with no change of the CRD, the object or
// the Machine after that, so only the requeue the lag asked for can notice — the watch of
// v1beta1 stops and v1beta2 is watched, and a failureReason set then makes the Machine Failed.
func TestVersionAddedWhileDiscoveryLags(t *testing.T) {
	ctx := context.Background()
	ns := env.Namespace(t)
	v1 := schema.GroupVersionKind{Group: "example.com", Version: "v1beta1", Kind: "Lag" + kindSuffix(utilrand.String(6)) + "Machine"}
	v2 := v1.GroupKind().WithVersion("v1beta2")
	admin := crdRBACAdmin(t)
	crd := preservingCRD(v1)
	if err := admin.Create(ctx, crd); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = admin.Delete(context.Background(), crd) })
	mapper := &laggingMapper{}
	r := startLaggingManager(t, ns, mapper)

	createLater(t, v1, ns, "m", map[string]any{"initialization": map[string]any{"provisioned": true}})
	m := harness.NewMachine(ns, "m")
	m.Labels = map[string]string{ownManagerLabel: ns}
	m.Spec.InfrastructureRef = v1alpha1.ContractVersionedObjectReference{APIGroup: v1.Group, Kind: v1.Kind, Name: "m"}
	env.Create(t, m)
	provisioned := env.WaitPhase(t, ns, "m", v1alpha1.MachinePhaseProvisioned)
	waitWatched(t, r, v1.GroupKind(), "v1beta1")
	const steady = "Provisioned, InfrastructureReady True"
	statuses := env.WatchHistoryFrom(t, &v1alpha1.MachineList{}, ns, provisioned.ResourceVersion, func(o client.Object) (string, bool) {
		m, ok := o.(*v1alpha1.Machine)
		if !ok {
			return fmt.Sprintf("%T", o), true
		}
		c := conditions.Get(m, v1alpha1.MachineInfrastructureReadyCondition)
		if m.Status.Phase == v1alpha1.MachinePhaseProvisioned && c != nil && c.Status == metav1.ConditionTrue {
			return steady, true
		}
		if c == nil {
			return harness.Describe(m) + ", no InfrastructureReady", true
		}
		return harness.Describe(m) + " " + c.Message, true
	})

	// The provider upgrades: v1beta2 served and stored, v1beta1 still served; discovery lags.
	mapper.hide(v2, true)
	if err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := admin.Get(ctx, client.ObjectKeyFromObject(crd), crd); err != nil {
			return err
		}
		next := *crd.Spec.Versions[0].DeepCopy()
		next.Name = v2.Version
		crd.Spec.Versions[0].Storage = false
		crd.Spec.Versions = []apiextensionsv1.CustomResourceDefinitionVersion{crd.Spec.Versions[0], next}
		return admin.Update(ctx, crd)
	}); err != nil {
		t.Fatal(err)
	}
	harness.Wait(t, badRefTimeout, "the CRD to store v1beta2", func(ctx context.Context) (bool, string) {
		if err := admin.Get(ctx, client.ObjectKeyFromObject(crd), crd); err != nil {
			return false, err.Error()
		}
		return slices.Contains(crd.Status.StoredVersions, v2.Version), strings.Join(crd.Status.StoredVersions, ",")
	})
	harness.Wait(t, badRefTimeout, "the manager to look for v1beta2", func(context.Context) (bool, string) {
		return mapper.refusals(v2) > 0, "not asked yet"
	})
	asked := mapper.refusals(v2)
	harness.Wait(t, badRefTimeout, "the manager to look for v1beta2 again", func(context.Context) (bool, string) {
		return mapper.refusals(v2) > asked, fmt.Sprintf("asked %d times", mapper.refusals(v2))
	})
	if got := controllers.WatchedVersions(r, v1.GroupKind()); !slices.Equal(got, []string{"v1beta1"}) {
		t.Errorf("while discovery lags: watched versions %v, want [v1beta1]", got)
	}

	mapper.hide(v2, false) // discovery catches up
	waitWatched(t, r, v1.GroupKind(), "v1beta2")
	statuses.WaitDelivered(t, env.GetMachine(t, ns, "m").ResourceVersion)
	statuses.Check(t, "statuses written during the upgrade", map[string][]string{"m": {steady}})

	env.SetStatus(t, v2, ns, "m", map[string]any{"initialization": map[string]any{"provisioned": true}, "failureReason": "HostLost", "failureMessage": "the host is gone"})
	env.WaitPhase(t, ns, "m", v1alpha1.MachinePhaseFailed)
}

// waitWatched waits until r watches gk at version only.
func waitWatched(t *testing.T, r *controllers.MachineReconciler, gk schema.GroupKind, version string) {
	t.Helper()
	harness.Wait(t, badRefTimeout, gk.Kind+" watched at "+version+" only", func(context.Context) (bool, string) {
		got := controllers.WatchedVersions(r, gk)
		return slices.Equal(got, []string{version}), fmt.Sprint(got)
	})
}
