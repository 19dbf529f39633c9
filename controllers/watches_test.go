package controllers

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
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
// at every reconcile), in every namespace; a kind no Machine read is left alone by a CRD event;
// a watch of a version no longer read is refused.
func TestChooseVersion(t *testing.T) {
	ctx := context.Background()
	gk := schema.GroupKind{Group: "infrastructure.cluster.x-k8s.io", Kind: "UpMachine"}
	other := schema.GroupKind{Group: "infrastructure.cluster.x-k8s.io", Kind: "OtherMachine"}
	var removed []string
	r := &MachineReconciler{Cache: removals{removed: &removed, name: "all"}}
	r.access.caches = map[string]cache.Cache{"team-a": removals{removed: &removed, name: "team-a"}}
	key := func(gk schema.GroupKind, v, ns string) watchKey {
		return watchKey{gvk: gk.WithVersion(v), namespace: ns}
	}
	gvr := schema.GroupVersionResource{Group: gk.Group, Version: "v1beta1", Resource: "upmachines"}
	r.watches.watched = map[watchKey]schema.GroupVersionResource{
		key(gk, "v1beta1", ""): gvr, key(gk, "v1beta1", "team-a"): gvr, key(other, "v1beta1", ""): gvr,
	}

	v2 := schema.GroupVersionResource{Group: gk.Group, Version: "v1beta2", Resource: "upmachines"}
	steps := []struct {
		name    string
		watched []watchKey // recorded before the step
		gk      schema.GroupKind
		version string
		record  bool
		removed []string
	}{
		{"a CRD event about a kind never read", nil, gk, "v1beta2", false, nil},
		{"first read at v1beta1", nil, gk, "v1beta1", true, nil},
		{"read again at v1beta1 (every reconcile)", nil, gk, "v1beta1", true, nil},
		{"the CRD event of the upgrade", nil, gk, "v1beta2", false, []string{"all v1beta1", "team-a v1beta1"}},
		{"read at v1beta2 after the event", []watchKey{key(gk, "v1beta2", ""), key(gk, "v1beta2", "team-a")}, gk, "v1beta2", true, nil},
		{"the CRD deleted", nil, gk, "", true, []string{"all v1beta2", "team-a v1beta2"}},
	}
	for _, s := range steps {
		for _, k := range s.watched {
			r.watches.watched[k] = v2
		}
		removed = nil
		r.chooseVersion(ctx, s.gk, s.version, s.record)
		slices.Sort(removed) // the record is a map
		if d := cmp.Diff(s.removed, removed); d != "" {
			t.Errorf("%s: informers removed (-want +got):\n%s", s.name, d)
		}
	}
	if d := cmp.Diff(map[watchKey]schema.GroupVersionResource{key(other, "v1beta1", ""): gvr}, r.watches.list(), cmp.AllowUnexported(watchKey{})); d != "" {
		t.Errorf("watches left (-want +got):\n%s", d)
	}
	if !r.watches.definedByCRD(gk) || r.watches.definedByCRD(other) {
		t.Errorf("definedByCRD(%s) = %v, (%s) = %v; want true, false", gk, r.watches.definedByCRD(gk), other, r.watches.definedByCRD(other))
	}

	r.chooseVersion(ctx, gk, "v1beta2", true)
	stale := &meta.RESTMapping{GroupVersionKind: gk.WithVersion("v1beta1"), Resource: gvr, Scope: meta.RESTScopeNamespace}
	if err := r.startWatch(stale, "team-a", r.access.caches["team-a"]); !errors.Is(err, errVersionChanged) {
		t.Errorf("startWatch of a version no longer read: error %v, want errVersionChanged", err)
	}
}
