// Package harness is what every test suite of the repository starts from: one poller (Poll,
// Wait) over apimachinery's wait. It is test code: the manager binary never links it
// (test/deploy's TestManagerLinksNoTestHarness).
package harness
