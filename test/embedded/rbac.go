package embedded

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/yaml"
)

// Roles are RBAC roles to grant with Grant.
type Roles struct {
	// ClusterRoles are granted cluster-wide.
	ClusterRoles []*rbacv1.ClusterRole
	// Roles are granted in Grant's namespace, whatever namespace their manifest names.
	Roles []*rbacv1.Role
}

// LoadRoles decodes every ClusterRole and Role of the *.yaml files of fsys (e.g. rbac.Manifests;
// several documents per file are allowed). Other kinds are skipped. It returns an error naming
// the file that cannot be read or decoded.
func LoadRoles(fsys fs.FS) (Roles, error) {
	var out Roles
	files, err := fs.Glob(fsys, "*.yaml")
	if err != nil {
		return out, err
	}
	for _, f := range files {
		b, err := fs.ReadFile(fsys, f)
		if err != nil {
			return out, fmt.Errorf("cannot read %s: %w", f, err)
		}
		r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(b)))
		for {
			doc, err := r.Read()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return out, fmt.Errorf("cannot read %s: %w", f, err)
			}
			var tm metav1.TypeMeta
			if err := yaml.Unmarshal(doc, &tm); err != nil {
				return out, fmt.Errorf("cannot decode %s: %w", f, err)
			}
			switch tm.Kind {
			case "ClusterRole":
				cr := &rbacv1.ClusterRole{}
				if err := yaml.UnmarshalStrict(doc, cr); err != nil {
					return out, fmt.Errorf("cannot decode the ClusterRole of %s: %w", f, err)
				}
				out.ClusterRoles = append(out.ClusterRoles, cr)
			case "Role":
				role := &rbacv1.Role{}
				if err := yaml.UnmarshalStrict(doc, role); err != nil {
					return out, fmt.Errorf("cannot decode the Role of %s: %w", f, err)
				}
				out.Roles = append(out.Roles, role)
			}
		}
	}
	return out, nil
}

// Grant creates roles (ClusterRoles cluster-wide, Roles in namespace, which is created when
// missing) and binds each to the user named user, as the admin. Bindings are named
// "<user>-<role>". It returns the first API error (including AlreadyExists for a role or
// binding of the same name).
func (c *ControlPlane) Grant(ctx context.Context, user, namespace string, roles Roles) error {
	cs, err := kubernetes.NewForConfig(c.Config)
	if err != nil {
		return fmt.Errorf("cannot create an admin client: %w", err)
	}
	subject := []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: user}}
	for _, cr := range roles.ClusterRoles {
		cr = cr.DeepCopy()
		cr.ResourceVersion = ""
		if _, err := cs.RbacV1().ClusterRoles().Create(ctx, cr, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("cannot create ClusterRole %s: %w", cr.Name, err)
		}
		b := &rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: user + "-" + cr.Name},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: cr.Name},
			Subjects:   subject,
		}
		if _, err := cs.RbacV1().ClusterRoleBindings().Create(ctx, b, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("cannot bind ClusterRole %s to %s: %w", cr.Name, user, err)
		}
	}
	if len(roles.Roles) == 0 {
		return nil
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}}
	if _, err := cs.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("cannot create namespace %s: %w", namespace, err)
	}
	for _, role := range roles.Roles {
		role = role.DeepCopy()
		role.Namespace, role.ResourceVersion = namespace, ""
		if _, err := cs.RbacV1().Roles(namespace).Create(ctx, role, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("cannot create Role %s/%s: %w", namespace, role.Name, err)
		}
		b := &rbacv1.RoleBinding{
			ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: user + "-" + role.Name},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: role.Name},
			Subjects:   subject,
		}
		if _, err := cs.RbacV1().RoleBindings(namespace).Create(ctx, b, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("cannot bind Role %s/%s to %s: %w", namespace, role.Name, user, err)
		}
	}
	return nil
}
