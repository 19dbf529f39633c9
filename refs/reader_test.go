package refs

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// countingMapper counts the RESTMapping calls that reach an apimachinery DefaultRESTMapper.
type countingMapper struct {
	*meta.DefaultRESTMapper
	calls int
}

func (c *countingMapper) RESTMapping(gk schema.GroupKind, versions ...string) (*meta.RESTMapping, error) {
	c.calls++
	return c.DefaultRESTMapper.RESTMapping(gk, versions...)
}

// TestRESTMappingOncePerStep: a kind the RESTMapper does not map (version "": its preferred
// version) is asked about again at most once per kind retry interval, and a version a CRD
// serves at most once per discovery step, each with its own record, however many Machines ask;
// those asking in between are told the rest of the step; once mapped, it is mapped at the next
// ask; an answer from a clock that went back is not trusted.
func TestRESTMappingOncePerStep(t *testing.T) {
	gv := schema.GroupVersion{Group: "infrastructure.cluster.x-k8s.io", Version: "v1beta2"}
	gk := gv.WithKind("UpMachine").GroupKind()
	mapper := &countingMapper{DefaultRESTMapper: meta.NewDefaultRESTMapper([]schema.GroupVersion{gv})}
	r := &Reader{RESTMapper: mapper, RetryInterval: time.Minute}
	type ask struct {
		Version string
		Ms      int    // milliseconds after t0
		Add     string // the version discovery lists from this ask on
		Mapped  string // the version mapped; "" a no-match
		Wait    time.Duration
		Calls   int // RESTMapper calls so far
	}
	asks := []ask{
		{"", 0, "", "", time.Minute, 1},
		{"", 30_000, "", "", 30 * time.Second, 1},
		{"v1beta2", 0, "", "", 2 * time.Second, 2},
		{"v1beta2", 500, "", "", 1500 * time.Millisecond, 2},
		{"v1beta2", 1999, "", "", time.Millisecond, 2},
		{"v1beta2", 2000, "", "", 2 * time.Second, 3},
		{"v1beta2", 3000, "v1beta2", "", time.Second, 3},
		{"v1beta2", 4000, "", "v1beta2", 0, 4},
		{"v1beta2", 4100, "", "v1beta2", 0, 5},
		{"", 59_999, "", "", time.Millisecond, 5},
		{"", 60_000, "", "v1beta2", 0, 6},
		{"v1beta3", 10_000, "", "", 2 * time.Second, 7},
		{"v1beta3", 9000, "", "", 2 * time.Second, 8}, // the clock went back
	}
	var got []ask
	for _, a := range asks {
		if a.Add != "" {
			mapper.Add(gk.WithVersion(a.Add), meta.RESTScopeNamespace)
		}
		interval := r.discoveryStep()
		if a.Version == "" {
			interval = r.kindRetryInterval()
		}
		m, wait, err := r.restMapping(gk, a.Version, t0.Add(time.Duration(a.Ms)*time.Millisecond), interval)
		if (m == nil) != meta.IsNoMatchError(err) {
			t.Fatalf("restMapping(%q) at %d ms = %v, %v", a.Version, a.Ms, m, err)
		}
		g := ask{Version: a.Version, Ms: a.Ms, Add: a.Add, Wait: wait, Calls: mapper.calls}
		if m != nil {
			g.Mapped = m.GroupVersionKind.Version
		}
		got = append(got, g)
	}
	if d := cmp.Diff(asks, got); d != "" {
		t.Errorf("answers and RESTMapper calls (-want +got):\n%s", d)
	}
}

// TestFollowVersionWhileDiscoveryLags: while discovery does not list the version a CRD picks,
// the version read before stays read and watched (in every namespace) as long as the CRD still
// serves it, and the Machine is read again after the discovery backoff's step; once discovery
// lists the new version its watches replace the old ones. A version the CRD no longer serves
// stops at once, even while discovery lags.
func TestFollowVersionWhileDiscoveryLags(t *testing.T) {
	ctx := context.Background()
	gk := schema.GroupKind{Group: "infrastructure.cluster.x-k8s.io", Kind: "UpMachine"}
	mapper := meta.NewDefaultRESTMapper(nil)
	mapper.Add(gk.WithVersion("v1beta1"), meta.RESTScopeNamespace)
	var removed []string
	r := &Reader{RESTMapper: mapper, RetryInterval: time.Minute, watches: map[watchKey]watch{}}
	caches := map[string]cache.Cache{"": removals{removed: &removed, name: "all"}, "team-a": removals{removed: &removed, name: "team-a"}}
	startWatches := func(v string) {
		gvr := schema.GroupVersionResource{Group: gk.Group, Version: v, Resource: "upmachines"}
		for ns, c := range caches {
			r.watches[watchKey{gvk: gk.WithVersion(v), namespace: ns}] = watch{gvr: gvr, cache: c}
		}
	}
	v1beta1, v1beta2, v1beta3 := crdVersion{"v1beta1", true, false}, crdVersion{"v1beta2", true, true}, crdVersion{"v1beta3", true, true}
	type result struct {
		Read    versionRead
		Wait    time.Duration
		Removed []string
		Chosen  string
	}
	steps := []struct {
		name   string
		crd    *apiextensionsv1.CustomResourceDefinition
		at     int    // seconds after t0
		listed string // added to discovery before the step
		watch  string // watched (everywhere and in team-a) before the step
		want   result
	}{
		{"first read at v1beta1", upCRD(nil, true, crdVersion{"v1beta1", true, true}), 0, "", "v1beta1",
			result{Read: versionRead{Version: "v1beta1"}, Chosen: "v1beta1"}},
		{"the CRD event: v1beta2 added, not in discovery", upCRD(nil, true, v1beta1, v1beta2), 1, "", "",
			result{Read: versionRead{Version: "v1beta1", Waiting: "v1beta2"}, Wait: 2 * time.Second, Chosen: "v1beta1"}},
		{"a reconcile within the discovery step", upCRD(nil, true, v1beta1, v1beta2), 2, "", "",
			result{Read: versionRead{Version: "v1beta1", Waiting: "v1beta2"}, Wait: time.Second, Chosen: "v1beta1"}},
		{"the reconcile after the step: discovery lists v1beta2", upCRD(nil, true, v1beta1, v1beta2), 3, "v1beta2", "",
			result{Read: versionRead{Version: "v1beta2"}, Removed: []string{"all v1beta1", "team-a v1beta1"}, Chosen: "v1beta2"}},
		{"v1beta2 dropped as v1beta3 is added, not in discovery", upCRD(nil, true, crdVersion{"v1beta2", false, false}, v1beta3), 10, "", "v1beta2",
			result{Read: versionRead{Version: "v1beta3", Waiting: "v1beta3"}, Wait: 2 * time.Second, Removed: []string{"all v1beta2", "team-a v1beta2"}, Chosen: "v1beta3"}},
		{"the CRD deleted", nil, 11, "", "",
			result{Read: versionRead{Why: "its CustomResourceDefinition was deleted"}, Chosen: ""}},
	}
	for _, s := range steps {
		if s.listed != "" {
			mapper.Add(gk.WithVersion(s.listed), meta.RESTScopeNamespace)
		}
		if s.watch != "" {
			startWatches(s.watch)
		}
		removed = nil
		read, wait := r.followVersion(ctx, gk, s.crd, at(s.at))
		slices.Sort(removed) // the record is a map
		chosen, _ := r.versionRead(gk)
		if d := cmp.Diff(s.want, result{read, wait, removed, chosen}); d != "" {
			t.Errorf("%s (-want +got):\n%s", s.name, d)
		}
	}
}

// TestCRDChangedLeavesUnreadKindsAlone: a CRD event about a kind no Machine read neither asks
// discovery nor records the kind (the CRDs listed at start would each ask); it still maps to
// the Machines referencing the kind.
func TestCRDChangedLeavesUnreadKindsAlone(t *testing.T) {
	gv := schema.GroupVersion{Group: "infrastructure.cluster.x-k8s.io", Version: "v1beta2"}
	mapper := &countingMapper{DefaultRESTMapper: meta.NewDefaultRESTMapper([]schema.GroupVersion{gv})}
	gk := gv.WithKind("UpMachine").GroupKind()
	var asked []schema.GroupKind
	r := &Reader{RESTMapper: mapper, Referrers: func(_ context.Context, gk schema.GroupKind, _, _ string) []reconcile.Request {
		asked = append(asked, gk)
		return nil
	}}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(upCRD(nil, true, crdVersion{"v1beta2", true, true}))
	if err != nil {
		t.Fatal(err)
	}
	crd := &unstructured.Unstructured{Object: m}
	crd.SetGroupVersionKind(crdGVK)
	_ = unstructured.SetNestedField(crd.Object, gk.Group, "spec", "group")
	_ = unstructured.SetNestedField(crd.Object, gk.Kind, "spec", "names", "kind")
	r.CRDChanged(context.Background(), crd)
	if _, recorded := r.versionRead(gk); mapper.calls != 0 || recorded || !slices.Equal(asked, []schema.GroupKind{gk}) {
		t.Errorf("after CRDChanged: %d RESTMapper calls, recorded %v, Referrers asked about %v; want 0, false, [%s]", mapper.calls, recorded, asked, gk)
	}
}
