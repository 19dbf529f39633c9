//go:build nocontrolplane

package controllers_test

// Built with -tags nocontrolplane: TestMain starts no control plane and skips the envtest
// suite; only the pure rules' tests (package controllers) run (see purerules_test.go).
func init() { noControlPlane = true }
