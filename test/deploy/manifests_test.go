package deploy

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"reflect"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/machinestatus/machinestatus/test/harness"
)

// defaultImage is the manager image config/default names when IMG is not substituted.
const defaultImage = "machinestatus-manager:latest"

// render returns the objects of `kubectl kustomize config/default`, in kustomize's order.
func render(t *testing.T) []*unstructured.Unstructured {
	t.Helper()
	return renderDir(t, "config/default")
}

// renderDir returns the objects of `kubectl kustomize dir` (relative to the repository root).
func renderDir(t *testing.T, dir string) []*unstructured.Unstructured {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, kubectl, "kustomize", dir)
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("kubectl kustomize %s: %v\n%s", dir, err, stderr.String())
	}
	objs, err := decodeAll(out)
	if err != nil {
		t.Fatalf("kubectl kustomize %s: %v", dir, err)
	}
	if len(objs) == 0 {
		t.Fatalf("kubectl kustomize %s rendered no object", dir)
	}
	return objs
}

// decodeAll decodes a multi-document YAML stream into objects; empty documents are skipped.
func decodeAll(b []byte) ([]*unstructured.Unstructured, error) {
	var objs []*unstructured.Unstructured
	d := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(b), 4096)
	for {
		u := &unstructured.Unstructured{}
		if err := d.Decode(&u.Object); err != nil {
			if errors.Is(err, io.EOF) {
				return objs, nil
			}
			return nil, fmt.Errorf("cannot decode object %d: %w", len(objs)+1, err)
		}
		if len(u.Object) == 0 {
			continue
		}
		if u.GetKind() == "" || u.GetAPIVersion() == "" || u.GetName() == "" {
			return nil, fmt.Errorf("object %d has no apiVersion, kind or name", len(objs)+1)
		}
		objs = append(objs, u)
	}
}

// find returns the one rendered object of kind; it fails the test when there is not exactly one.
func find(t *testing.T, objs []*unstructured.Unstructured, kind string) *unstructured.Unstructured {
	t.Helper()
	var found []*unstructured.Unstructured
	for _, o := range objs {
		if o.GetKind() == kind {
			found = append(found, o)
		}
	}
	if len(found) != 1 {
		t.Fatalf("config/default renders %d objects of kind %s, want 1", len(found), kind)
	}
	return found[0]
}

func describe(o *unstructured.Unstructured) string {
	if o.GetNamespace() == "" {
		return o.GetKind() + " " + o.GetName()
	}
	return o.GetKind() + " " + o.GetNamespace() + "/" + o.GetName()
}

// live reads the stored version of o; nil when it does not exist.
func live(ctx context.Context, o *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	got := &unstructured.Unstructured{}
	got.SetGroupVersionKind(o.GroupVersionKind())
	if err := k8s.Get(ctx, client.ObjectKeyFromObject(o), got); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		return nil, err
	}
	return got, nil
}

// contains reports where got lacks something of want: every field of want must be in got with
// an equal value (got may have more, e.g. defaults); lists must have the same length and each
// item must contain want's. It returns "" when got contains want.
func contains(want, got any, path string) string {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return fmt.Sprintf("%s: got %T, want an object", path, got)
		}
		for k, wv := range w {
			gv, ok := g[k]
			if !ok {
				return fmt.Sprintf("%s.%s: missing", path, k)
			}
			if d := contains(wv, gv, path+"."+k); d != "" {
				return d
			}
		}
		return ""
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return fmt.Sprintf("%s: got %v, want %v", path, got, want)
		}
		for i := range w {
			if d := contains(w[i], g[i], fmt.Sprintf("%s[%d]", path, i)); d != "" {
				return d
			}
		}
		return ""
	default:
		// Decoders differ on number types (int64, float64): compare numbers by value.
		if wn, ok := number(want); ok {
			if gn, ok := number(got); ok && gn == wn {
				return ""
			}
		} else if reflect.DeepEqual(want, got) {
			return ""
		}
		return fmt.Sprintf("%s: got %v, want %v", path, got, want)
	}
}

// number returns v as a float64 when it is a number.
func number(v any) (float64, bool) {
	switch n := v.(type) {
	case int64:
		return float64(n), true
	case int:
		return float64(n), true
	case float64:
		return n, true
	default:
		return 0, false
	}
}

// undeployed deletes objs (those that exist), plays the namespace controller envtest lacks for
// their namespaces, and waits until none is left. It is the test's own cleanup, not `make undeploy`.
func undeployed(t *testing.T, objs []*unstructured.Unstructured) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	go finalizeNamespaces(ctx, namespacesOf(objs))
	for i := len(objs) - 1; i >= 0; i-- {
		o := objs[i].DeepCopy()
		if err := k8s.Delete(ctx, o); err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("cannot delete %s: %v", describe(o), err)
		}
	}
	waitGone(t, objs)
}

// waitGone waits until none of objs exists any more.
func waitGone(t *testing.T, objs []*unstructured.Unstructured) {
	t.Helper()
	harness.Wait(t, 2*time.Minute, "the deleted objects to be gone", func(ctx context.Context) (bool, string) {
		var left []string
		for _, o := range objs {
			got, err := live(ctx, o)
			if err != nil {
				return false, fmt.Sprintf("cannot read %s: %v", describe(o), err)
			}
			if got != nil {
				left = append(left, describe(o))
			}
		}
		return len(left) == 0, "still there: " + strings.Join(left, ", ")
	})
}

// namespacesOf returns the names of the Namespace objects among objs.
func namespacesOf(objs []*unstructured.Unstructured) []string {
	var names []string
	for _, o := range objs {
		if o.GetKind() == "Namespace" && o.GroupVersionKind().Group == "" {
			names = append(names, o.GetName())
		}
	}
	return names
}

// finalizeNamespaces plays the part of kube-controller-manager's namespace controller, which
// envtest does not run: once a named Namespace is being deleted it removes the namespace's
// "kubernetes" finalizer so the deletion completes (the objects in it are deleted by whoever
// deletes the namespace: kubectl or undeployed). It returns when every named
// namespace is gone, ctx ends or 5 minutes pass.
func finalizeNamespaces(ctx context.Context, names []string) {
	pending := map[string]bool{}
	for _, n := range names {
		pending[n] = true
	}
	_ = harness.Poll(ctx, 5*time.Minute, func(ctx context.Context) (bool, string) {
		for name := range pending {
			ns, err := clientset.CoreV1().Namespaces().Get(ctx, name, metav1.GetOptions{})
			switch {
			case apierrors.IsNotFound(err):
				delete(pending, name)
			case err != nil || ns.DeletionTimestamp == nil || len(ns.Spec.Finalizers) == 0:
			default:
				ns.Spec.Finalizers = []corev1.FinalizerName{}
				_, _ = clientset.CoreV1().Namespaces().Finalize(ctx, ns, metav1.UpdateOptions{})
			}
		}
		return len(pending) == 0, fmt.Sprintf("%d namespaces left", len(pending))
	})
}
