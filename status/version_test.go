package status

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/conditions"
)

// TestSameRelease: kubelet versions as distributions and managed services report them (from
// `kubectl get nodes` output and Node objects in public bug reports and docs) against what
// users write in spec.version, with and without the "v".
func TestSameRelease(t *testing.T) {
	cases := []struct {
		source, kubelet, want string
		same                  bool
	}{
		// Upstream builds: kubeadm, kind, minikube, MicroK8s, Talos, AKS, Docker Desktop.
		{"upstream", "v1.30.1", "v1.30.1", true},
		{"upstream, spec without v", "v1.30.1", "1.30.1", true},
		{"upstream patch update", "v1.30.1", "v1.30.2", false},
		{"upstream minor update", "v1.29.6", "v1.30.1", false},
		{"upstream major differs", "v1.30.1", "v2.30.1", false},
		{"upstream release candidate is not the release", "v1.31.0-rc.1", "v1.31.0", false},
		{"upstream release candidate asked for", "v1.31.0-rc.1", "v1.31.0-rc.1", true},
		{"upstream next release candidate", "v1.31.0-rc.2", "v1.31.0-rc.1", false},
		{"upstream alpha", "v1.31.0-alpha.3", "v1.31.0", false},
		{"upstream beta asked for", "v1.31.0-beta.0", "v1.31.0-beta.0", true},
		// k3s: build metadata.
		{"k3s (issue 12)", "v1.30.1+k3s1", "v1.30.1", true},
		{"k3s, spec as the k3s release", "v1.30.1+k3s1", "v1.30.1+k3s1", true},
		{"k3s (issue 12): real update", "v1.30.1+k3s1", "v1.30.2", false},
		{"k3s second build of a release", "v1.29.1+k3s2", "v1.29.1+k3s1", true},
		{"k3s testbed", "v1.27.3+k3s1", "1.27.3", true},
		{"k3s release candidate", "v1.34.0-rc.1+k3s1", "v1.34.0", false},
		// RKE2.
		{"RKE2", "v1.28.2+rke2r1", "v1.28.2", true},
		{"RKE2 second revision", "v1.22.4+rke2r2", "v1.22.4+rke2r1", true},
		{"RKE2 update", "v1.32.3+rke2r1", "v1.33.0+rke2r1", false},
		{"RKE2 release candidate", "v1.22.3-rc1+rke2r1", "v1.22.3", false},
		{"RKE2 release candidate asked for", "v1.22.3-rc1+rke2r1", "v1.22.3-rc1+rke2r1", true},
		// k0s: the kubelet reports +k0s, the k0s release is written +k0s.0.
		{"k0s", "v1.33.1+k0s", "v1.33.1+k0s.0", true},
		{"k0s plain spec", "v1.30.2+k0s", "v1.30.2", true},
		// Managed services: a distribution tag in the pre-release position.
		{"EKS", "v1.30.0-eks-036c24b", "v1.30.0", true},
		{"EKS, Bottlerocket", "v1.29.4-eks-036c24b", "1.29.4", true},
		{"EKS build asked for, another build running", "v1.36.3-eks-cb19647", "v1.36.3-eks-036c24b", true},
		{"EKS update", "v1.30.0-eks-036c24b", "v1.30.1", false},
		{"GKE", "v1.30.1-gke.1329003", "v1.30.1", true},
		{"GKE (old)", "v1.11.3-gke.18", "v1.11.3", true},
		{"GKE update", "v1.29.6-gke.1326000", "v1.30.1", false},
		{"Alibaba ACK", "v1.36.1-aliyun.1", "v1.36.1", true},
		{"Tencent TKE", "v1.22.5-tke.1", "v1.22.5", true},
		{"IBM IKS", "v1.23.8+IKS", "v1.23.8", true},
		// Distributions with build metadata.
		{"OpenShift", "v1.30.4+4fd8e9a", "v1.30.4", true},
		{"OpenShift (older)", "v1.27.1+03d56da", "v1.27.1", true},
		{"OpenShift update", "v1.13.4+cb455d664", "v1.14.0", false},
		{"Tanzu", "v1.22.5+vmware.1", "v1.22.5", true},
		{"Tanzu, spec as the TKr", "v1.21.2+vmware.1", "v1.21.2+vmware.1-tkg.1", true},
		// Not semantic versions: equal after the "v", or not at all.
		{"no patch (EKS docs typo)", "v1.30-eks-036c24b", "v1.30.0", false},
		{"no patch, equal", "v1.28+IKS", "1.28+IKS", true},
		{"garbage", "kubelet", "v1.30.1", false},
		{"leading zero", "v1.030.1", "v1.030.1", true},
	}
	for _, c := range cases {
		t.Run(c.source, func(t *testing.T) {
			if got := SameRelease(c.kubelet, c.want); got != c.same {
				t.Errorf("SameRelease(%q, %q) = %v, want %v", c.kubelet, c.want, got, c.same)
			}
			if got := SameRelease(c.want, c.kubelet); got != c.same {
				t.Errorf("SameRelease(%q, %q) = %v, want %v (symmetric)", c.want, c.kubelet, got, c.same)
			}
		})
	}
}

// TestUpdatingFromKubeletVersion: issue 12's instance. A Ready k3s Node whose kubelet reports
// v1.30.1+k3s1 runs spec.version v1.30.1: Updating=False and phase Running, not Updating
// forever; v1.30.2 against the same Node is an update.
func TestUpdatingFromKubeletVersion(t *testing.T) {
	type result struct {
		Updating, Message string
		Phase             v1alpha1.MachinePhase
	}
	cases := []struct {
		spec, kubelet string
		want          result
	}{
		{"v1.30.1", "v1.30.1+k3s1", result{"False/NotUpdating", "", v1alpha1.MachinePhaseRunning}},
		{"v1.30.1", "v1.30.0-eks-036c24b", result{"True/KubeletVersionUpdating", "kubelet is v1.30.0-eks-036c24b, want v1.30.1", v1alpha1.MachinePhaseUpdating}},
		{"v1.30.2", "v1.30.1+k3s1", result{"True/KubeletVersionUpdating", "kubelet is v1.30.1+k3s1, want v1.30.2", v1alpha1.MachinePhaseUpdating}},
		{"1.30.1", "v1.30.1-gke.1329003", result{"False/NotUpdating", "", v1alpha1.MachinePhaseRunning}},
	}
	for _, c := range cases {
		t.Run(c.spec+" vs "+c.kubelet, func(t *testing.T) {
			m := &v1alpha1.Machine{Spec: v1alpha1.MachineSpec{Version: c.spec}}
			n := node(corev1.ConditionTrue, at(-60), func(n *corev1.Node) { n.Status.NodeInfo.KubeletVersion = c.kubelet })
			if _, err := Compute(m, Inputs{Now: at(0), Infra: provisioned(), Node: n}); err != nil {
				t.Fatal(err)
			}
			u := conditions.Get(m, v1alpha1.MachineUpdatingCondition)
			got := result{string(u.Status) + "/" + u.Reason, u.Message, m.Status.Phase}
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
