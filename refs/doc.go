// Package refs reads the objects machinestatus Machines reference (spec.infrastructureRef,
// spec.bootstrap.configRef: {apiGroup, kind, name}, no version) by the Cluster API contract, for
// the Machine controller. Reader.Read returns a status.Ref: what the object says, or why it cannot
// be used (not found, kind not served, forbidden, not synced, malformed). Package status turns
// Refs into conditions; package controllers calls Read on every reconcile. reader.go holds the
// read path, watches.go the watches and the access they need, rules.go the pure rules.
//
// Its mechanisms, each with what it earns (the tests named are the controllers' envtest suite
// and test/faults unless said otherwise):
//
//   - Watches per kind: a referenced kind is watched once per version and scope, through an
//     informer started on first read, so that a change to the object reconciles the Machines
//     that reference it (Referrers): a readable reference is not polled (TestNamespacedGrant's
//     object change reaches its Machine). The record of watches (kind, version, namespace →
//     resource and cache) and the version read of each kind share one lock, held while an
//     informer is created or removed, so that a watch of a version no longer read, or of a scope
//     no longer allowed, stops with its informer. Without it a namespace's watch stayed at the
//     old version and its Machine missed a failureReason (TestNamespacedWatchFollowsVersions),
//     and the informer of an unserved version logged "Failed to watch" for as long as the manager
//     ran (TestProviderAPIVersionChanges).
//   - Versions from the CRD: a kind defined by a CRD is read at the newest served version a
//     Cluster API contract label lists (cluster.x-k8s.io/v1beta2 before …/v1beta1), else the
//     newest served version (versionOf, TestVersionOf's table); a CRD change reconciles the
//     Machines at once, and a deleted CRD makes them KindNotServed. Without it a provider moving
//     its kind to a new version leaves Machines reading a version no longer served
//     (TestProviderAPIVersionChanges: up-1 stayed Provisioned, up-2 Pending).
//   - Discovery lag: a CRD serves a new version moments before discovery lists it (2 to 25 ms
//     after the CRD's update in envtest, 10 updates on a loaded 2-core host); meanwhile the
//     version read before is read and watched while the CRD still serves it (versionToRead,
//     TestVersionToRead's table), so that the Machine's status does not change
//     (TestVersionAddedWhileDiscoveryLags; before, it went KindNotServed for the lag), and no
//     watch of the missing version starts (it would fail). Discovery is asked about the missing
//     version at most once per DiscoveryRetryInterval (2 s) per kind and version however many
//     Machines read it, and they are read again after the rest of that step
//     (TestRESTMappingOncePerStep). The step used to double up to RetryInterval, with 80 lines of
//     per-version bookkeeping: given the lag above it never grew past its first step; a version
//     discovery never lists now costs a RESTMapper call, and a reconcile of each Machine reading
//     it, every 2 s.
//   - Access reviews: before a watch starts, SelfSubjectAccessReviews ask whether the manager may
//     list and watch the kind in all namespaces, else in the Machine's namespace. A forbidden
//     kind becomes a …Forbidden condition naming the grant to add (TestForbiddenState's table),
//     and the manager sends no list or watch of it: TestForbiddenKind counts zero such requests,
//     and at most one pair of reviews per kind, scope and interval for five Machines. Without
//     the reviews an informer on a forbidden kind retries its list forever and every read of it
//     waits readTimeout (10 s) to end Unreadable. Every answer is kept for one RetryInterval.
//   - Namespace caches: a kind the manager may read only in the Machine's namespace (a
//     RoleBinding there) is watched by a cache of that namespace alone, created on first use:
//     TestNamespacedGrant reads it with no list or watch in all namespaces nor in another
//     namespace, and TestNamespacedWatchFollowsVersions follows its versions there.
//   - Revocation recheck: every RetryInterval the access of every watched scope is reviewed
//     again; when revoked, its watches stop and its Machines are reconciled and report Forbidden
//     (TestNamespacedGrant; without it the cache kept serving the last objects as current). A
//     read reviews a watched scope itself only between the recheck's answer expiring and the
//     next recheck.
//   - Race guards (errVersionChanged): a read that resolved a version the CRD changed away from
//     meanwhile has its watch refused, and a read whose Get re-created the informer of a watch
//     stopped meanwhile removes it; the read then resolves the kind again (Read, at most three
//     times). No envtest test opens that window (TestChooseVersion and
//     TestWatchInformerFollowsRecord hold the rule); without the guards the window leaves an
//     informer of an unread version running, unrecorded, until the manager stops.
//   - Stripped objects: the cache keeps only the contract's fields of referenced objects
//     (StripObject) and CRDs without their schemas (stripCRD): Cluster API v1.14's 19 CRDs are
//     1.38 MB as JSON, 8.7 KB stripped (TestStripCRD). CRDs are found by a field index on their
//     group and kind, one indexed lookup per read instead of a copy of every CRD.
//   - Kinds no CRD defines (aggregated APIs) are resolved through the RESTMapper; a kind it does
//     not map is asked about again at most once per RetryInterval however many Machines read it
//     (TestRESTMappingOncePerStep), as the dynamic RESTMapper asks the API server on every miss.
package refs
