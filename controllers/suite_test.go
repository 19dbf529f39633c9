package controllers_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"go.uber.org/zap/zapcore"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/config/crd"
	"github.com/machinestatus/machinestatus/config/rbac"
	"github.com/machinestatus/machinestatus/controllers"
	"github.com/machinestatus/machinestatus/internal/embedded"
)

// Test infrastructure kind: any schema, status subresource, in the Cluster API group.
const (
	infraGroup = "infrastructure.cluster.x-k8s.io"
	infraKind  = "FakeMachine"
)

// The manager runs as managerUser, bound only to the RBAC of config/rbac: the generated
// ClusterRole and the leader election Role in managerNamespace. The tests' own client is admin.
const (
	managerUser      = "machinestatus-manager"
	managerNamespace = "machinestatus-system"
	leaderElectionID = "machinestatus.machinestatus.io"
)

var (
	scheme        = runtime.NewScheme()
	cp            *embedded.ControlPlane
	k8s           client.Client // uncached admin client for the tests' own reads and writes
	managerConfig *rest.Config  // authenticates as managerUser
	mgr           ctrl.Manager
	reconciler    *controllers.MachineReconciler
	kubeconfig    string
)

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	flag.Parse()
	if f := flag.Lookup("test.fuzz"); f != nil && f.Value.String() != "" {
		// Fuzzing (make fuzz runs -run '^$'): the package's fuzz targets need no control plane,
		// and each fuzz worker process would start its own.
		return m.Run()
	}
	if noControlPlane {
		return runWithoutControlPlane(m)
	}
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(v1alpha1.AddToScheme(scheme))
	ctrl.SetLogger(zap.New(zap.WriteTo(os.Stderr), zap.Level(zapcore.Level(zapLevel()))))

	crds, err := embedded.LoadCRDs(crd.Bases)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	dir, err := os.MkdirTemp("", "machinestatus-controllers-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	kubeconfig = filepath.Join(dir, "kubeconfig")
	cp, err = embedded.Start(embedded.Options{
		AssetsDir:      assets(),
		CRDs:           append(crds, fakeInfraCRD()),
		KubeconfigPath: kubeconfig,
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer func() { _ = cp.Stop() }()

	if k8s, err = client.New(cp.Config, client.Options{Scheme: scheme}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if managerConfig, err = restrictedManager(ctx); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	mgr, err = ctrl.NewManager(managerConfig, ctrl.Options{
		Scheme:                  scheme,
		Metrics:                 metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress:  "0",
		Cache:                   controllers.CacheOptions(nil),
		LeaderElection:          true,
		LeaderElectionNamespace: managerNamespace,
		LeaderElectionID:        leaderElectionID,
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	reconciler = &controllers.MachineReconciler{
		Client:     mgr.GetClient(),
		Cache:      mgr.GetCache(),
		RESTMapper: mgr.GetRESTMapper(),
		Recorder:   mgr.GetEventRecorder("machinestatus"),
		// Short, so that a test sees a Machine notice a CRD installed after it (bad_refs_test.go).
		KindRetryInterval: 2 * time.Second,
	}
	if err := reconciler.SetupWithManager(ctx, mgr); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	code := m.Run()
	cancel()
	if err := <-done; err != nil {
		fmt.Fprintln(os.Stderr, "manager:", err)
	}
	return code
}

// runWithoutControlPlane runs only the tests of package controllers (the pure rules): the
// envtest suite is added to -test.skip.
func runWithoutControlPlane(m *testing.M) int {
	suite, err := envtestSuitePattern(".")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	skip := flag.Lookup("test.skip")
	if prev := skip.Value.String(); prev != "" {
		suite = prev + "|" + suite
	}
	if err := skip.Value.Set(suite); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return m.Run()
}

// restrictedManager provisions managerUser, grants it the roles of config/rbac (the leader
// election Role in managerNamespace) and returns its REST config.
func restrictedManager(ctx context.Context) (*rest.Config, error) {
	roles, err := embedded.LoadRoles(rbac.Manifests)
	if err != nil {
		return nil, err
	}
	if len(roles.ClusterRoles) != 2 || len(roles.Roles) != 1 {
		return nil, fmt.Errorf("config/rbac holds %d ClusterRoles and %d Roles, want 2 (manager, metrics-auth) and 1", len(roles.ClusterRoles), len(roles.Roles))
	}
	u, err := cp.AddUser(managerUser)
	if err != nil {
		return nil, err
	}
	if err := cp.Grant(ctx, u.Name, managerNamespace, roles); err != nil {
		return nil, err
	}
	u.Config.Wrap(managerRequests.wrap)
	return u.Config, nil
}

// assets is bin/k8s of the repository unless KUBEBUILDER_ASSETS says otherwise.
func assets() string {
	if d := os.Getenv(embedded.AssetsEnv); d != "" {
		return d
	}
	return filepath.Join("..", "bin", "k8s")
}

func zapLevel() int8 {
	if os.Getenv("TEST_VERBOSE") != "" {
		return -1
	}
	return 4 // errors only
}

func fakeInfraCRD() *apiextensionsv1.CustomResourceDefinition {
	preserve := true
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "fakemachines." + infraGroup},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: infraGroup,
			Names: apiextensionsv1.CustomResourceDefinitionNames{
				Plural: "fakemachines", Singular: "fakemachine", Kind: infraKind, ListKind: infraKind + "List",
			},
			Scope: apiextensionsv1.NamespaceScoped,
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: "v1beta2", Served: true, Storage: true,
				Subresources: &apiextensionsv1.CustomResourceSubresources{Status: &apiextensionsv1.CustomResourceSubresourceStatus{}},
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object", XPreserveUnknownFields: &preserve,
				}},
			}},
		},
	}
}

// newNamespace creates a namespace for one test.
func newNamespace(t *testing.T) string {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "test-"}}
	if err := k8s.Create(context.Background(), ns); err != nil {
		t.Fatal(err)
	}
	return ns.Name
}
