package status

import (
	"regexp"
	"strings"

	"k8s.io/apimachinery/pkg/util/version"
)

// kubernetesPreRelease matches the first identifier of a pre-release Kubernetes itself
// publishes: alpha, beta and rc, numbered after a dot (v1.31.0-rc.1) or not (RKE2's
// v1.22.3-rc1+rke2r1).
var kubernetesPreRelease = regexp.MustCompile(`^(alpha|beta|rc)[0-9]*$`)

// SameRelease reports whether a Node's kubelet version (status.nodeInfo.kubeletVersion) is the
// Kubernetes release that want (a Machine's spec.version) names.
//
// Rule: both are read as semantic versions (k8s.io/apimachinery's ParseSemantic, a leading "v"
// optional) and are the same release when
//   - major, minor and patch are equal;
//   - their Kubernetes pre-releases are equal: a pre-release whose first identifier is alpha,
//     beta or rc (v1.31.0-rc.1) is part of the release; any other pre-release is a
//     distribution's build tag (EKS v1.30.0-eks-036c24b, GKE v1.30.1-gke.1329003, ACK
//     v1.36.1-aliyun.1, TKE v1.22.5-tke.1) and, like build metadata (k3s v1.30.1+k3s1, RKE2
//     +rke2r1, k0s +k0s, OpenShift +4fd8e9a, Tanzu +vmware.1, IKS +IKS), is ignored.
//
// So v1.30.1 and v1.30.1+k3s1 are the same release, v1.30.2 and v1.30.1+k3s1 are not, and
// neither are v1.31.0 and v1.31.0-rc.1. When either string is not a semantic version
// (e.g. "v1.30-eks-036c24b"), they are the same release only when equal after a leading "v".
func SameRelease(kubelet, want string) bool {
	k, errK := version.ParseSemantic(kubelet)
	w, errW := version.ParseSemantic(want)
	if errK != nil || errW != nil {
		return strings.TrimPrefix(kubelet, "v") == strings.TrimPrefix(want, "v")
	}
	return k.Major() == w.Major() && k.Minor() == w.Minor() && k.Patch() == w.Patch() &&
		ownPreRelease(k) == ownPreRelease(w)
}

// ownPreRelease returns v's pre-release when it is one Kubernetes publishes, else "".
func ownPreRelease(v *version.Version) string {
	pre := v.PreRelease()
	first, _, _ := strings.Cut(pre, ".")
	if kubernetesPreRelease.MatchString(first) {
		return pre
	}
	return ""
}
