// Package refs reads the objects machinestatus Machines reference (spec.infrastructureRef,
// spec.bootstrap.configRef: {apiGroup, kind, name}, no version) by the Cluster API contract, for
// the Machine controller. Reader.Read returns a status.Ref: what the object says, or why it cannot
// be used (not found, kind not served, forbidden, not synced, malformed). Package status turns
// Refs into conditions; package controllers calls Read on every reconcile.
//
// Its mechanisms, each with what it earns:
//
//   - Watches per kind (watches.go): a referenced kind is watched once per version and scope,
//     through an informer started on first read, so that a change to the object reconciles the
//     Machines that reference it (Referrers): a readable reference is not polled
//     (TestNamespacedGrant's object change). The record of watches (kind, version, namespace →
//     resource and cache) and the version read of each kind share one lock, held while an
//     informer is created or removed, so that a watch of a version no longer read, or of a scope
//     no longer allowed, stops with its informer and none outlives its record. Without it a
//     namespace's watch stayed at the old version and its Machine missed a failureReason
//     (TestNamespacedWatchFollowsVersions), and the informer of an unserved version logged
//     "Failed to watch" for as long as the manager ran (TestProviderAPIVersionChanges).
//   - Versions from the CRD (versions.go, servedversion.go): a kind defined by a CRD is read at
//     the newest served version a Cluster API contract label lists (cluster.x-k8s.io/v1beta2
//     before …/v1beta1), else the newest served version; CRD changes reconcile the Machines at
//     once. Without it a provider moving its kind to a new version leaves Machines reading a
//     version that is no longer served (test/faults TestProviderAPIVersionChanges).
//   - Discovery lag (unserved.go): a CRD serves a new version moments before discovery lists
//     it (2 to 25 ms after the CRD's update in envtest, 10 updates on a loaded 2-core host);
//     meanwhile the version read before is read and watched while the CRD still serves it, so
//     that the Machine's status does not change (TestVersionAddedWhileDiscoveryLags; before, it
//     went KindNotServed for the lag), and no watch of the missing version starts (it would
//     fail and log an error). Discovery is asked about the missing version at most once per
//     DiscoveryRetryInterval (2 s) per kind and version however many Machines read it, and they
//     are read again after the rest of that step (TestRESTMappingOncePerStep). The step used to
//     double up to RetryInterval, with per-version bookkeeping of 80 lines: given the lag above
//     it never grew past its first step; a version discovery never lists now costs one
//     RESTMapper call per 2 s and a reconcile of each Machine reading it per 2 s.
//   - Access reviews (access.go): before a watch starts, SelfSubjectAccessReviews ask whether
//     the manager may list and watch the kind in all namespaces, else in the Machine's
//     namespace (then a cache of that namespace watches it). A forbidden kind becomes a
//     …Forbidden condition naming the grant to add, and the manager sends no list or watch of
//     it (TestForbiddenKind counts zero such requests, and at most one pair of reviews per kind,
//     scope and interval for five Machines); without the reviews an informer on a forbidden kind
//     retries its list forever and every read of it waits readTimeout (10 s) to end Unreadable.
//     The namespace caches earn reading a kind granted by a RoleBinding only, without any list
//     in all namespaces (TestNamespacedGrant). Every answer is kept for one RetryInterval, and
//     the access of every watched scope is asked again every RetryInterval: when revoked, its
//     watch stops and its Machines report Forbidden (TestNamespacedGrant; without it the cache
//     kept serving the last objects). A read reviews a watched scope itself only in the moment
//     between the recheck's answer expiring and the next recheck.
//   - Stripped objects (cache.go): the cache keeps only the contract's fields of referenced
//     objects and CRDs without their schemas.
//
// Kinds no CRD defines (aggregated APIs) are resolved through the RESTMapper; a kind it does not
// serve is asked about again at most once per RetryInterval.
package refs
