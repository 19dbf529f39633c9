package deploy

import (
	"context"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/machinestatus/machinestatus/test/harness"
)

const testFieldOwner = "machinestatus-deploy-test"

// TestRenderedManifestsApply applies every object of config/default to the API server with
// server-side apply and checks that each is stored as rendered, that the CRD is served, and
// that a Pod of the manager's Deployment passes the namespace's Pod Security level (envtest
// has no controllers, so the Deployment itself never makes one).
func TestRenderedManifestsApply(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	objs := render(t)
	t.Cleanup(func() { undeployed(t, objs) })

	for _, o := range objs {
		if err := k8s.Apply(ctx, client.ApplyConfigurationFromUnstructured(o.DeepCopy()), client.FieldOwner(testFieldOwner)); err != nil {
			t.Fatalf("server-side apply of %s refused: %v", describe(o), err)
		}
	}
	for _, o := range objs {
		got, err := live(ctx, o)
		if err != nil || got == nil {
			t.Fatalf("%s not stored after apply (err %v)", describe(o), err)
		}
		if d := contains(o.Object, got.Object, describe(o)); d != "" {
			t.Errorf("stored %s differs from the rendered one: %s", describe(o), d)
		}
		if !ownedBy(got, testFieldOwner) {
			t.Errorf("stored %s has no fields applied by %s: %v", describe(o), testFieldOwner, got.GetManagedFields())
		}
	}

	crd := &apiextensionsv1.CustomResourceDefinition{}
	harness.Wait(t, 2*time.Minute, "the Machine CRD to be established", func(context.Context) (bool, string) {
		if err := k8s.Get(ctx, client.ObjectKey{Name: "machines.machinestatus.io"}, crd); err != nil {
			return false, err.Error()
		}
		for _, c := range crd.Status.Conditions {
			if c.Type == apiextensionsv1.Established && c.Status == apiextensionsv1.ConditionTrue {
				return true, ""
			}
		}
		return false, "not Established"
	})

	t.Run("metrics RBAC", func(t *testing.T) { checkMetricsAccess(t, ctx, objs) })

	t.Run("manager Pod passes Pod Security", func(t *testing.T) {
		ns := find(t, objs, "Namespace").GetName()
		if level := find(t, objs, "Namespace").GetLabels()["pod-security.kubernetes.io/enforce"]; level != "restricted" {
			t.Fatalf("Namespace %s enforces Pod Security level %q, want restricted", ns, level)
		}
		d := &appsv1.Deployment{}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(find(t, objs, "Deployment").Object, d); err != nil {
			t.Fatal(err)
		}
		if err := dryRunPod(ctx, ns, d.Spec.Template); err != nil {
			t.Fatalf("a Pod of the manager Deployment is refused in %s: %v", ns, err)
		}
		// The same Pod without its hardening must be refused, or the check above proves nothing.
		weak := d.Spec.Template.DeepCopy()
		weak.Spec.Containers[0].SecurityContext.AllowPrivilegeEscalation = ptr.To(true)
		if err := dryRunPod(ctx, ns, *weak); !apierrors.IsForbidden(err) {
			t.Fatalf("a Pod allowing privilege escalation in %s: got %v, want Forbidden by Pod Security", ns, err)
		}
	})
}

// dryRunPod sends a Pod made from template to the API server as a dry run, so it passes through
// admission (Pod Security included) without being stored.
func dryRunPod(ctx context.Context, ns string, template corev1.PodTemplateSpec) error {
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, GenerateName: "manager-", Labels: template.Labels},
		Spec:       template.Spec,
	}
	return k8s.Create(ctx, pod, client.DryRunAll)
}

// ownedBy reports whether manager applied some fields of o.
func ownedBy(o client.Object, manager string) bool {
	for _, f := range o.GetManagedFields() {
		if f.Manager == manager && f.Operation == metav1.ManagedFieldsOperationApply {
			return true
		}
	}
	return false
}
