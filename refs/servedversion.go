package refs

import (
	"fmt"
	"slices"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/version"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
)

// The version of a referenced kind that the controller reads, from its CRD and the versions
// discovery lists (no client, no context): the rule of the package documentation,
// "Versions from the CRD". versionOf picks a version from the CRD; versionToRead decides
// whether to read it yet, given discovery. versions.go applies them to the CRDs in the cache.

// contractLabels are the Cluster API contract labels a provider's CRD may carry, newest
// contract first: the value lists the CRD's versions that follow that contract, joined with "_"
// (e.g. cluster.x-k8s.io/v1beta2: v1beta1_v1beta2).
var contractLabels = []string{
	clusterv1.GroupVersion.String(),
	schema.GroupVersion{Group: clusterv1.GroupVersion.Group, Version: "v1beta1"}.String(),
}

// versionOf returns the version of crd's kind the controller reads and "", or "" and why none
// can be read (a message naming the CRD). Rules, in order:
//   - a CRD being deleted, not yet established, or serving no version: none;
//   - the newest served version that a Cluster API contract label lists, for the newest contract
//     labelled (cluster.x-k8s.io/v1beta2 before cluster.x-k8s.io/v1beta1);
//   - otherwise the newest served version, as discovery prefers it (Kubernetes version order:
//     v1 > v1beta2 > v1beta1 > v1alpha1). The storage version does not matter: the API server
//     converts.
func versionOf(crd *apiextensionsv1.CustomResourceDefinition) (string, string) {
	switch {
	case crd.DeletionTimestamp != nil:
		return "", fmt.Sprintf("its CustomResourceDefinition %s is being deleted", crd.Name)
	case !established(crd):
		return "", fmt.Sprintf("its CustomResourceDefinition %s is not established", crd.Name)
	}
	var served []string
	for _, v := range crd.Spec.Versions {
		if v.Served {
			served = append(served, v.Name)
		}
	}
	if len(served) == 0 {
		return "", fmt.Sprintf("its CustomResourceDefinition %s serves no version", crd.Name)
	}
	for _, l := range contractLabels {
		var listed []string
		for _, v := range strings.Split(crd.Labels[l], "_") {
			if slices.Contains(served, v) {
				listed = append(listed, v)
			}
		}
		if len(listed) > 0 {
			return newest(listed), ""
		}
	}
	return newest(served), ""
}

// versionRead is the version of a kind defined by a CRD that the controller reads now
// (versionToRead).
type versionRead struct {
	// Version is the version read; "" when none can be, Why saying why.
	Version, Why string
	// Waiting is the version the CRD picks (versionOf) while discovery does not list it yet, ""
	// when discovery lists it. When it is Version, nothing can be read until discovery lists it;
	// otherwise Version is the version read before, read until then.
	Waiting string
}

// versionToRead returns the version of crd's kind to read now, given crd (nil: deleted),
// previous, the version read before ("" none), and listed, whether discovery lists a version
// (asked about the version picked, and about previous only when that is not listed). Rules, in
// order (the package documentation, "Versions from the CRD"):
//   - none when crd is nil or versionOf picks none (being deleted, not established, serving
//     nothing);
//   - the version versionOf picks, when discovery lists it;
//   - previous, waiting for the version picked, when crd still serves previous and discovery
//     lists it: discovery lags seconds behind a CRD, and the kind stays readable meanwhile;
//   - else the version picked, waiting for it: nothing can be read until discovery lists it.
func versionToRead(crd *apiextensionsv1.CustomResourceDefinition, previous string, listed func(version string) bool) versionRead {
	if crd == nil {
		return versionRead{Why: "its CustomResourceDefinition was deleted"}
	}
	picked, why := versionOf(crd)
	switch {
	case picked == "":
		return versionRead{Why: why}
	case listed(picked):
		return versionRead{Version: picked}
	case previous != picked && serves(crd, previous) && listed(previous):
		return versionRead{Version: previous, Waiting: picked}
	}
	return versionRead{Version: picked, Waiting: picked}
}

// serves reports whether crd serves version v.
func serves(crd *apiextensionsv1.CustomResourceDefinition, v string) bool {
	return slices.ContainsFunc(crd.Spec.Versions, func(cv apiextensionsv1.CustomResourceDefinitionVersion) bool {
		return cv.Served && cv.Name == v
	})
}

// newest returns the newest of versions (not empty) in Kubernetes version order.
func newest(versions []string) string {
	return slices.MaxFunc(versions, version.CompareKubeAwareVersionStrings)
}

// established reports whether crd's Established condition is True.
func established(crd *apiextensionsv1.CustomResourceDefinition) bool {
	for _, c := range crd.Status.Conditions {
		if c.Type == apiextensionsv1.Established {
			return c.Status == apiextensionsv1.ConditionTrue
		}
	}
	return false
}
