package controllers

import "k8s.io/apimachinery/pkg/runtime/schema"

// WatchedVersions returns the versions of gk that r watches, in any namespace, sorted, without
// repeats: the envtest suite checks with it which version a kind is watched at.
func WatchedVersions(r *MachineReconciler, gk schema.GroupKind) []string {
	return r.reader().WatchedVersions(gk)
}
