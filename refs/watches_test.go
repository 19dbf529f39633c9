package refs

import (
	"context"
	"errors"
	"maps"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/source"
)

// removals is a cache that only records the informers removed from it (the rest of cache.Cache
// is not used by the watch record and panics if called).
type removals struct {
	cache.Cache
	removed *[]string
	name    string
}

func (c removals) RemoveInformer(_ context.Context, obj client.Object) error {
	*c.removed = append(*c.removed, c.name+" "+obj.GetObjectKind().GroupVersionKind().Version)
	return nil
}

// TestChooseVersion: the watches of a kind are stopped only when the version read changes (not
// at every reconcile), in every namespace, each in its own cache; a watch of a version no longer
// read is refused.
func TestChooseVersion(t *testing.T) {
	ctx := context.Background()
	gk := schema.GroupKind{Group: "infrastructure.cluster.x-k8s.io", Kind: "UpMachine"}
	other := schema.GroupKind{Group: "infrastructure.cluster.x-k8s.io", Kind: "OtherMachine"}
	var removed []string
	all, teamA := removals{removed: &removed, name: "all"}, removals{removed: &removed, name: "team-a"}
	r := &Reader{}
	key := func(gk schema.GroupKind, v, ns string) watchKey {
		return watchKey{gvk: gk.WithVersion(v), namespace: ns}
	}
	gvr := schema.GroupVersionResource{Group: gk.Group, Version: "v1beta1", Resource: "upmachines"}
	r.watches = map[watchKey]watch{
		key(gk, "v1beta1", ""): {gvr, all}, key(gk, "v1beta1", "team-a"): {gvr, teamA}, key(other, "v1beta1", ""): {gvr, all},
	}

	v2 := schema.GroupVersionResource{Group: gk.Group, Version: "v1beta2", Resource: "upmachines"}
	steps := []struct {
		name    string
		watched map[watchKey]watch // recorded before the step
		gk      schema.GroupKind
		version string
		removed []string
	}{
		{"first read at v1beta1", nil, gk, "v1beta1", nil},
		{"read again at v1beta1 (every reconcile)", nil, gk, "v1beta1", nil},
		{"the CRD event of the upgrade", nil, gk, "v1beta2", []string{"all v1beta1", "team-a v1beta1"}},
		{"read at v1beta2 after the event", map[watchKey]watch{key(gk, "v1beta2", ""): {v2, all}, key(gk, "v1beta2", "team-a"): {v2, teamA}}, gk, "v1beta2", nil},
		{"the CRD deleted", nil, gk, "", []string{"all v1beta2", "team-a v1beta2"}},
	}
	for _, s := range steps {
		maps.Copy(r.watches, s.watched)
		removed = nil
		r.chooseVersion(ctx, s.gk, s.version)
		slices.Sort(removed) // the record is a map
		if d := cmp.Diff(s.removed, removed); d != "" {
			t.Errorf("%s: informers removed (-want +got):\n%s", s.name, d)
		}
	}
	if d := cmp.Diff([]watchKey{key(other, "v1beta1", "")}, slices.Collect(maps.Keys(r.watches)), cmp.AllowUnexported(watchKey{})); d != "" {
		t.Errorf("watches left (-want +got):\n%s", d)
	}
	if _, ok := r.versionRead(gk); !ok {
		t.Errorf("%s is not recorded as defined by a CRD", gk)
	}
	if _, ok := r.versionRead(other); ok {
		t.Errorf("%s is recorded as defined by a CRD", other)
	}

	r.chooseVersion(ctx, gk, "v1beta2")
	stale := &meta.RESTMapping{GroupVersionKind: gk.WithVersion("v1beta1"), Resource: gvr, Scope: meta.RESTScopeNamespace}
	if _, err := r.startWatch(ctx, stale, "team-a"); !errors.Is(err, errVersionChanged) {
		t.Errorf("startWatch of a version no longer read: error %v, want errVersionChanged", err)
	}
}

// informers is a cache that records the informers it holds: those created by GetInformer, and by
// Get on demand (as controller-runtime's cache does for a kind it does not watch yet). The rest
// of cache.Cache is not used by the watch record and panics if called.
type informers struct {
	cache.Cache
	held map[string]bool // by version
}

type fakeInformer struct{ cache.Informer }

func (c informers) GetInformer(_ context.Context, obj client.Object, _ ...cache.InformerGetOption) (cache.Informer, error) {
	c.held[obj.GetObjectKind().GroupVersionKind().Version] = true
	return fakeInformer{}, nil
}

func (c informers) Get(_ context.Context, _ client.ObjectKey, obj client.Object, _ ...client.GetOption) error {
	c.held[obj.GetObjectKind().GroupVersionKind().Version] = true
	return nil
}

func (c informers) RemoveInformer(_ context.Context, obj client.Object) error {
	delete(c.held, obj.GetObjectKind().GroupVersionKind().Version)
	return nil
}

// watchingController is a controller that records the sources it is given.
type watchingController struct {
	controller.Controller
	sources []source.Source
}

func (c *watchingController) Watch(src source.Source) error {
	c.sources = append(c.sources, src)
	return nil
}

// TestWatchInformerFollowsRecord: a watch's informer exists exactly while the watch is recorded.
// startWatch creates it at once (not later, in a source's goroutine, after the version may have
// been stopped) and hands it to the controller; a version change removes it; a read of the old
// version that made the cache create an informer again, after the watch stopped, removes it and
// asks to resolve the kind again (errVersionChanged).
func TestWatchInformerFollowsRecord(t *testing.T) {
	ctx := context.Background()
	gk := schema.GroupKind{Group: "infrastructure.cluster.x-k8s.io", Kind: "UpMachine"}
	c := informers{held: map[string]bool{}}
	ctrl := &watchingController{}
	r := &Reader{Cache: c, controller: ctrl}
	v1 := &meta.RESTMapping{GroupVersionKind: gk.WithVersion("v1beta1"), Scope: meta.RESTScopeNamespace,
		Resource: schema.GroupVersionResource{Group: gk.Group, Version: "v1beta1", Resource: "upmachines"}}

	r.chooseVersion(ctx, gk, "v1beta1")
	if _, err := r.startWatch(ctx, v1, ""); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(map[string]bool{"v1beta1": true}, c.held); d != "" {
		t.Errorf("informers after startWatch (-want +got):\n%s", d)
	}
	if len(ctrl.sources) != 1 {
		t.Fatalf("the controller was given %d sources, want 1", len(ctrl.sources))
	}
	if src, ok := ctrl.sources[0].(*source.Informer); !ok || src.Informer != (fakeInformer{}) {
		t.Errorf("the controller was given %#v, want a source of the informer created", ctrl.sources[0])
	}

	r.chooseVersion(ctx, gk, "v1beta2") // the provider's upgrade
	if len(c.held) != 0 {
		t.Errorf("informers after the version changed: %v, want none", c.held)
	}
	obj := &unstructured.Unstructured{}
	obj.SetGroupVersionKind(v1.GroupVersionKind)
	err := r.readWatched(ctx, ctx, c, "", client.ObjectKey{Namespace: "default", Name: "up-1"}, obj)
	if !errors.Is(err, errVersionChanged) {
		t.Errorf("a read of the stopped version: error %v, want errVersionChanged", err)
	}
	if len(c.held) != 0 {
		t.Errorf("informers after a read of the stopped version: %v, want none", c.held)
	}

	v2 := &meta.RESTMapping{GroupVersionKind: gk.WithVersion("v1beta2"), Scope: meta.RESTScopeNamespace,
		Resource: schema.GroupVersionResource{Group: gk.Group, Version: "v1beta2", Resource: "upmachines"}}
	if _, err := r.startWatch(ctx, v2, ""); err != nil {
		t.Fatal(err)
	}
	obj.SetGroupVersionKind(v2.GroupVersionKind)
	if err := r.readWatched(ctx, ctx, c, "", client.ObjectKey{Namespace: "default", Name: "up-1"}, obj); err != nil {
		t.Errorf("a read of the watched version: %v", err)
	}
	if d := cmp.Diff(map[string]bool{"v1beta2": true}, c.held); d != "" {
		t.Errorf("informers after reading v1beta2 (-want +got):\n%s", d)
	}
}
