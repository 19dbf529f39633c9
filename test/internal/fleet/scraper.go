package fleet

import (
	"context"
	"fmt"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/machinestatus/machinestatus/config/rbac"
	"github.com/machinestatus/machinestatus/test/embedded"
)

// ScraperNamespace holds the ServiceAccounts ScraperToken creates.
const ScraperNamespace = "monitoring"

// ScraperToken returns a bearer token (valid one hour) of ServiceAccount ScraperNamespace/name,
// created when missing. With reader, the ServiceAccount is bound to the metrics-reader
// ClusterRole of config/rbac (created when missing), as a Prometheus is in a cluster; without,
// it holds no grant. It returns the API server's error.
func (e *Fleet) ScraperToken(ctx context.Context, name string, reader bool) (string, error) {
	cs, err := kubernetes.NewForConfig(e.CP.Config)
	if err != nil {
		return "", fmt.Errorf("cannot create an admin client: %w", err)
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ScraperNamespace}}
	if _, err := cs.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return "", fmt.Errorf("cannot create namespace %s: %w", ScraperNamespace, err)
	}
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ScraperNamespace, Name: name}}
	if _, err := cs.CoreV1().ServiceAccounts(ScraperNamespace).Create(ctx, sa, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return "", fmt.Errorf("cannot create ServiceAccount %s/%s: %w", ScraperNamespace, name, err)
	}
	if reader {
		if err := bindMetricsReader(ctx, cs, name); err != nil {
			return "", err
		}
	}
	tr := &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](3600)}}
	tr, err = cs.CoreV1().ServiceAccounts(ScraperNamespace).CreateToken(ctx, name, tr, metav1.CreateOptions{})
	if err != nil {
		return "", fmt.Errorf("cannot request a token for ServiceAccount %s/%s: %w", ScraperNamespace, name, err)
	}
	return tr.Status.Token, nil
}

// bindMetricsReader binds ServiceAccount ScraperNamespace/name to config/rbac's metrics-reader
// ClusterRole, creating the role when missing.
func bindMetricsReader(ctx context.Context, cs kubernetes.Interface, name string) error {
	roles, err := embedded.LoadRoles(rbac.MetricsReader)
	if err != nil {
		return err
	}
	if len(roles.ClusterRoles) != 1 {
		return fmt.Errorf("config/rbac's metrics reader manifest holds %d ClusterRoles, want 1", len(roles.ClusterRoles))
	}
	role := roles.ClusterRoles[0]
	if _, err := cs.RbacV1().ClusterRoles().Create(ctx, role, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("cannot create ClusterRole %s: %w", role.Name, err)
	}
	b := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: ScraperNamespace + "-" + name + "-" + role.Name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: ScraperNamespace, Name: name}},
	}
	if _, err := cs.RbacV1().ClusterRoleBindings().Create(ctx, b, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("cannot bind ClusterRole %s to ServiceAccount %s/%s: %w", role.Name, ScraperNamespace, name, err)
	}
	return nil
}
