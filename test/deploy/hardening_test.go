package deploy

import (
	"slices"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// TestManagerDeploymentHardened checks the rendered manager Deployment against the hardening
// the project promises: non-root UID 65532, read-only root filesystem, no privilege escalation,
// no capabilities, RuntimeDefault seccomp, CPU and memory requests and limits, liveness and
// readiness probes on the health port, leader election and a termination grace period.
func TestManagerDeploymentHardened(t *testing.T) {
	objs := render(t)
	d := &appsv1.Deployment{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(find(t, objs, "Deployment").Object, d); err != nil {
		t.Fatal(err)
	}
	pod := d.Spec.Template.Spec
	if len(pod.Containers) != 1 {
		t.Fatalf("the manager Pod has %d containers, want 1", len(pod.Containers))
	}
	c := pod.Containers[0]

	if c.Image != defaultImage {
		t.Errorf("image %q, want %q (make deploy substitutes IMG for it)", c.Image, defaultImage)
	}
	sa := find(t, objs, "ServiceAccount")
	if pod.ServiceAccountName != sa.GetName() || d.Namespace != sa.GetNamespace() {
		t.Errorf("service account %s/%s, want the rendered %s/%s", d.Namespace, pod.ServiceAccountName, sa.GetNamespace(), sa.GetName())
	}

	// Security: the pod-level context with the container's overriding it.
	psc, csc := pod.SecurityContext, c.SecurityContext
	if psc == nil {
		psc = &corev1.PodSecurityContext{}
	}
	if csc == nil {
		t.Fatal("the manager container has no securityContext")
	}
	runAsNonRoot := firstSet(csc.RunAsNonRoot, psc.RunAsNonRoot)
	if runAsNonRoot == nil || !*runAsNonRoot {
		t.Error("runAsNonRoot is not true")
	}
	if uid := firstSet(csc.RunAsUser, psc.RunAsUser); uid == nil || *uid != 65532 {
		t.Errorf("runAsUser %v, want 65532 (distroless nonroot)", deref(uid))
	}
	if csc.ReadOnlyRootFilesystem == nil || !*csc.ReadOnlyRootFilesystem {
		t.Error("readOnlyRootFilesystem is not true")
	}
	if csc.AllowPrivilegeEscalation == nil || *csc.AllowPrivilegeEscalation {
		t.Error("allowPrivilegeEscalation is not false")
	}
	if csc.Privileged != nil && *csc.Privileged {
		t.Error("the container is privileged")
	}
	if csc.Capabilities == nil || !slices.Contains(csc.Capabilities.Drop, "ALL") || len(csc.Capabilities.Add) > 0 {
		t.Errorf("capabilities %+v, want drop ALL and add nothing", csc.Capabilities)
	}
	seccomp := firstSet(csc.SeccompProfile, psc.SeccompProfile)
	if seccomp == nil || seccomp.Type != corev1.SeccompProfileTypeRuntimeDefault {
		t.Errorf("seccompProfile %+v, want RuntimeDefault", seccomp)
	}

	// Resources: requests and limits for CPU and memory, requests within limits.
	for _, name := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
		req, hasReq := c.Resources.Requests[name]
		lim, hasLim := c.Resources.Limits[name]
		switch {
		case !hasReq || req.IsZero():
			t.Errorf("no %s request", name)
		case !hasLim || lim.IsZero():
			t.Errorf("no %s limit", name)
		case req.Cmp(lim) > 0:
			t.Errorf("%s request %s above its limit %s", name, req.String(), lim.String())
		}
	}

	// Probes on the health port, which the manager's flag binds.
	if !slices.Contains(c.Args, "--health-probe-bind-address=:8081") {
		t.Errorf("args %q do not bind the health probes to :8081", c.Args)
	}
	for _, p := range []struct {
		kind  string
		probe *corev1.Probe
		path  string
	}{{"liveness", c.LivenessProbe, "/healthz"}, {"readiness", c.ReadinessProbe, "/readyz"}} {
		if p.probe == nil || p.probe.HTTPGet == nil {
			t.Errorf("no HTTP %s probe", p.kind)
			continue
		}
		if p.probe.HTTPGet.Path != p.path {
			t.Errorf("%s probe path %q, want %q", p.kind, p.probe.HTTPGet.Path, p.path)
		}
		if port := portNumber(c, p.probe.HTTPGet.Port); port != 8081 {
			t.Errorf("%s probe port %q is %d, want 8081", p.kind, p.probe.HTTPGet.Port.String(), port)
		}
	}

	if !slices.Contains(c.Args, "--leader-elect") {
		t.Errorf("args %q lack --leader-elect", c.Args)
	}
	if g := pod.TerminationGracePeriodSeconds; g == nil || *g <= 0 {
		t.Errorf("terminationGracePeriodSeconds %v, want a positive value", deref(g))
	}
}

// portNumber resolves a probe's port (a number or the name of a container port); 0 if unknown.
func portNumber(c corev1.Container, port intstr.IntOrString) int32 {
	if port.Type == intstr.Int {
		return port.IntVal
	}
	for _, p := range c.Ports {
		if p.Name == port.StrVal {
			return p.ContainerPort
		}
	}
	return 0
}

// firstSet returns the first non-nil pointer: a container setting overrides the Pod's.
func firstSet[T any](ps ...*T) *T {
	for _, p := range ps {
		if p != nil {
			return p
		}
	}
	return nil
}

func deref[T any](p *T) any {
	if p == nil {
		return "unset"
	}
	return *p
}
