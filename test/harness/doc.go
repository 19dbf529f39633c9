// Package harness is what every test suite of the repository starts from, so that each starts
// its control plane, waits and provisions users the same way:
//
//   - Start: kube-apiserver + etcd (test/embedded, the binaries `make tools` builds) with
//     machinestatus's CRDs and others when asked, kwok when asked, and an admin client, REST
//     config and kubeconfig (Env); Stop stops what Start started.
//   - GrantManager binds ManagerUser to given roles (ManagerRoles: config/rbac's);
//     StartManager runs the manager binary as its own process.
//   - Poll and Wait: the one poller (apimachinery's wait), reporting the last "why not yet".
//   - WatchHistory and WatchHistoryFrom (from a given resourceVersion): every value the objects of
//     a namespace go through, from a watch (client-go's RetryWatcher), for tests that no
//     intermediate value may be wrong (History.Check; History.WaitDelivered waits for a write).
//   - Helpers on Machines, FakeMachines and Nodes the suites share.
//
// It is test code: the manager binary never links it (test/deploy's
// TestManagerLinksNoTestHarness).
package harness
