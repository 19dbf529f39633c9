package refs

import (
	"fmt"
	"slices"
	"strings"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/version"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/machinestatus/machinestatus/status"
)

// The pure rules of the package (no client, no clock, no lock): the version of a referenced kind
// read from its CRD and discovery ("Versions from the CRD" in the package documentation: versionOf picks a version from the CRD, versionToRead decides whether to read it
// yet), the freshness of an answer, the messages of the Refs that cannot be read, the retry
// deadline they give, and what the cache keeps of referenced objects and CRDs. reader.go applies
// them.

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
	var served []string
	for _, v := range crd.Spec.Versions {
		if v.Served {
			served = append(served, v.Name)
		}
	}
	switch {
	case crd.DeletionTimestamp != nil:
		return "", fmt.Sprintf("its CustomResourceDefinition %s is being deleted", crd.Name)
	case !established(crd):
		return "", fmt.Sprintf("its CustomResourceDefinition %s is not established", crd.Name)
	case len(served) == 0:
		return "", fmt.Sprintf("its CustomResourceDefinition %s serves no version", crd.Name)
	}
	for _, l := range contractLabels {
		listed := slices.DeleteFunc(strings.Split(crd.Labels[l], "_"), func(v string) bool { return !slices.Contains(served, v) })
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
// order ("Versions from the CRD" in the package documentation):
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
	return slices.ContainsFunc(crd.Status.Conditions, func(c apiextensionsv1.CustomResourceDefinitionCondition) bool {
		return c.Type == apiextensionsv1.Established && c.Status == apiextensionsv1.ConditionTrue
	})
}

// answer is the API server's answer to a question: the verbs an access review denied ("" when
// allowed; nothing for a kind or version the RESTMapper did not map), given at `at`. Reader
// keeps the last answer to each question (recentAnswer, record), so that a question is asked at
// most once per interval however many Machines ask it.
type answer struct {
	denied string
	at     time.Time
}

// fresh is the one freshness rule: an answer given at `at` is fresh at now when
// at <= now < at+interval; a clock that went back (now before at) makes it stale, so that the
// question is asked again rather than the answer trusted for longer.
func (a answer) fresh(now time.Time, interval time.Duration) bool {
	return !now.Before(a.at) && now.Sub(a.at) < interval
}

// kindNotServed returns st for a reference whose kind (st.Kind in group) the API server does not
// serve: the KindNotServed problem, with a message saying why (empty: no CRD defines it) and
// when the controller checks again (besides at once when its CRD changes).
func kindNotServed(st status.Ref, group, why string, interval time.Duration) status.Ref {
	if why == "" {
		why = "is its CRD installed?"
	}
	st.Problem = status.ProblemKindNotServed
	st.Unreadable = fmt.Sprintf("cannot read %s: the API server serves no kind %s in group %s (%s); checking again every %s", st, st.Kind, group, why, interval)
	return st
}

// notInDiscovery returns st for a reference whose kind's CRD serves version, which discovery
// does not list yet: KindNotServed, read again after retry (the rest of the current step of
// discovery's questions) or at once when the CRD changes. The message names the step, not what
// is left of it, so that it does not change (and the status is not written again) at each read.
func notInDiscovery(st status.Ref, group, version string, retry, step time.Duration) status.Ref {
	st.Problem = status.ProblemKindNotServed
	st.Unreadable = fmt.Sprintf("cannot read %s: version %s of %s (group %s) is not in discovery yet; checking again every %s",
		st, version, st.Kind, group, step)
	st.RetryAfter = retry
	return st
}

// readScope is where the manager reads a referenced kind, or was denied to.
type readScope struct {
	// namespace is the one namespace read or denied; "" is all namespaces. When it is not "",
	// reading in all namespaces was denied first.
	namespace string
	// clusterScoped is true for a cluster-scoped kind, which only a ClusterRoleBinding can grant.
	clusterScoped bool
	// deniedEverywhere are the verbs denied in all namespaces (e.g. "list and watch") when
	// namespace is not "".
	deniedEverywhere string
}

// forbidden returns st for a reference whose resource gr RBAC does not let the manager read in
// scope (verbs are the ones denied, e.g. "list and watch"; in a namespace, scope also carries
// those denied in all namespaces, quoted when they differ): the Forbidden problem, with a message
// naming where it was denied, what to grant with which RBAC objects, and when the controller
// checks again (every interval). The grant follows the scope: a cluster-scoped kind needs a
// ClusterRole and a ClusterRoleBinding (a RoleBinding cannot grant it); a namespaced kind
// denied in a namespace needs a Role and RoleBinding there (or a ClusterRole bound by a
// RoleBinding there), or a ClusterRole and ClusterRoleBinding for all namespaces.
func forbidden(st status.Ref, gr schema.GroupResource, scope readScope, verbs string, interval time.Duration) status.Ref {
	const clusterWide = "a ClusterRole and a ClusterRoleBinding"
	where, grant := "in all namespaces", "with "+clusterWide
	switch e := scope.deniedEverywhere; {
	case scope.clusterScoped:
		where, grant = "(cluster-scoped)", grant+" (a RoleBinding cannot grant a cluster-scoped kind)"
	case scope.namespace != "" && e != "" && e != verbs:
		where = fmt.Sprintf("in namespace %s, and to %s it in all namespaces", scope.namespace, e)
	case scope.namespace != "":
		where = fmt.Sprintf("in namespace %s nor in all namespaces", scope.namespace)
	}
	if scope.namespace != "" {
		grant = fmt.Sprintf("in %s (a Role and a RoleBinding there, or a ClusterRole bound by a RoleBinding there) or in all namespaces (%s)", scope.namespace, clusterWide)
	}
	st.Problem = status.ProblemForbidden
	st.Unreadable = fmt.Sprintf("cannot read %s: RBAC forbids the manager to %s %s %s; grant it get, list and watch on them %s; checking again every %s",
		st, verbs, gr, where, grant, interval)
	return st
}

// RetryDeadline returns the earliest of next (zero: none) and, for each of refs, now plus its
// RetryAfter (at most the retry interval) when it has one (discovery does not list a version yet),
// or else now plus the retry interval when it names a kind that is not served, or that the
// manager may not or could not read (no event would tell when that changes).
func (r *Reader) RetryDeadline(now, next time.Time, refs ...status.Ref) time.Time {
	for _, s := range refs {
		wait := r.kindRetryInterval()
		switch {
		case s.RetryAfter > 0:
			wait = min(s.RetryAfter, wait)
		case s.Unreadable == "" || s.Problem == status.ProblemContractViolation:
			continue
		}
		if retry := now.Add(wait); next.IsZero() || retry.Before(next) {
			next = retry
		}
	}
	return next
}

// crdGVK is the CustomResourceDefinition kind, read as unstructured so that the reconciler
// needs nothing in its manager's scheme.
var crdGVK = apiextensionsv1.SchemeGroupVersion.WithKind("CustomResourceDefinition")

// crdKindIndex indexes CRDs by the group and kind they define, as groupKindKey values.
const crdKindIndex = "machinestatus.io/crdKind"

func groupKindKey(gk schema.GroupKind) string { return gk.Group + "/" + gk.Kind }

// NewCRD returns an empty unstructured CRD: the object the Machine controller watches CRDs with
// (see CRDChanged).
func NewCRD() *unstructured.Unstructured {
	return newObject(crdGVK)
}

// crdOf converts an unstructured CRD; nil when obj is not one.
func crdOf(obj any) *apiextensionsv1.CustomResourceDefinition {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok || u.GroupVersionKind() != crdGVK {
		return nil
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, crd); err != nil {
		return nil
	}
	return crd
}

// crdIndex indexes unstructured CRDs by the group and kind they define.
func crdIndex(o client.Object) []string {
	crd := crdOf(o)
	if crd == nil {
		return nil
	}
	return []string{groupKindKey(schema.GroupKind{Group: crd.Spec.Group, Kind: crd.Spec.Names.Kind})}
}

// StripObject reduces an unstructured object (a referenced kind) to status.ContractFields and
// drops managedFields from any other object.
func StripObject(obj any) (any, error) {
	if u, ok := obj.(*unstructured.Unstructured); ok {
		return status.ContractFields(u), nil
	}
	return cache.TransformStripManagedFields()(obj)
}

// stripCRD keeps what versionOf and resolve read: name, labels, deletionTimestamp, group,
// kind, plural, scope, each version's name, served and storage, and status conditions. The
// schemas, by far the largest part, are dropped.
func stripCRD(obj any) (any, error) {
	crd := crdOf(obj)
	if crd == nil {
		return obj, nil
	}
	kept := &apiextensionsv1.CustomResourceDefinition{}
	kept.Name, kept.UID, kept.ResourceVersion, kept.Generation = crd.Name, crd.UID, crd.ResourceVersion, crd.Generation
	kept.Labels, kept.DeletionTimestamp = crd.Labels, crd.DeletionTimestamp
	kept.Spec.Group, kept.Spec.Scope = crd.Spec.Group, crd.Spec.Scope
	kept.Spec.Names.Kind, kept.Spec.Names.Plural = crd.Spec.Names.Kind, crd.Spec.Names.Plural
	for _, v := range crd.Spec.Versions {
		kept.Spec.Versions = append(kept.Spec.Versions, apiextensionsv1.CustomResourceDefinitionVersion{Name: v.Name, Served: v.Served, Storage: v.Storage})
	}
	kept.Status.Conditions = crd.Status.Conditions
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(kept)
	if err != nil {
		return nil, fmt.Errorf("cannot strip CustomResourceDefinition %s: %w", crd.Name, err)
	}
	out := &unstructured.Unstructured{Object: m}
	out.SetGroupVersionKind(crdGVK)
	return out, nil
}
