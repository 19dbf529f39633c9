package controllers

import (
	"slices"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// WatchedVersions returns the versions of gk that r watches, in any namespace, sorted, without
// repeats: the envtest suite (package controllers_test) checks with it which version a kind is
// watched at.
func WatchedVersions(r *MachineReconciler, gk schema.GroupKind) []string {
	var vs []string
	for k := range r.watches.list() {
		if k.gvk.GroupKind() == gk {
			vs = append(vs, k.gvk.Version)
		}
	}
	slices.Sort(vs)
	return slices.Compact(vs)
}
