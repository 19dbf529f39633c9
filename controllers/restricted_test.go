package controllers_test

import (
	"context"
	"slices"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/machinestatus/machinestatus/test/harness"
)

// TestManagerRunsAsRestrictedUser: the suite's manager, whose reconciler the package's tests
// drive, authenticates as harness.ManagerUser, not a member of system:masters, so RBAC alone
// decides what it may do (test/api checks what config/rbac lets it do).
func TestManagerRunsAsRestrictedUser(t *testing.T) {
	c, err := client.New(mgr.GetConfig(), client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	review := &authenticationv1.SelfSubjectReview{}
	if err := c.Create(context.Background(), review); err != nil {
		t.Fatal(err)
	}
	u := review.Status.UserInfo
	if u.Username != harness.ManagerUser || slices.Contains(u.Groups, "system:masters") {
		t.Fatalf("the manager authenticates as %q in groups %v, want %q without system:masters", u.Username, u.Groups, harness.ManagerUser)
	}
}
