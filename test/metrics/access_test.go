package metrics

import (
	"context"
	"crypto/x509"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	certutil "k8s.io/client-go/util/cert"

	"github.com/machinestatus/machinestatus/test/internal/fleet"
)

// noAnswer stands for a request that got no HTTP response (e.g. the connection was reset).
const noAnswer = 0

// checkAccess checks who may read the metrics endpoint ep of the manager that f runs
// (--metrics-secure, the default): a ServiceAccount bound to config/rbac's metrics-reader
// ClusterRole (ep's token) gets them; no token is 401; a
// ServiceAccount without the grant is 403; plain HTTP gets no answer.
func checkAccess(t *testing.T, ctx context.Context, f *fleet.Fleet, ep *endpoint) {
	t.Helper()
	stranger, err := f.ScraperToken(ctx, "stranger", false)
	if err != nil {
		t.Fatal(err)
	}
	plain := "http://" + strings.TrimPrefix(ep.url, "https://")
	cases := []struct {
		name, url, token string
		client           *http.Client
	}{
		{"metrics-reader ServiceAccount", ep.url, ep.token, ep.client},
		{"no token", ep.url, "", ep.client},
		{"ServiceAccount without the grant", ep.url, stranger, ep.client},
		{"plain HTTP with the granted token", plain, ep.token, http.DefaultClient},
	}
	want := map[string]int{
		"metrics-reader ServiceAccount":     http.StatusOK,
		"no token":                          http.StatusUnauthorized,
		"ServiceAccount without the grant":  http.StatusForbidden,
		"plain HTTP with the granted token": noAnswer, // the TLS listener drops the connection
	}
	got := map[string]int{}
	for _, c := range cases {
		code, body, err := request(ctx, c.client, c.url, c.token)
		if err != nil {
			t.Logf("%s: GET %s: %v", c.name, c.url, err)
			code = noAnswer
		}
		got[c.name] = code
		if code == http.StatusOK && !strings.Contains(body, "machinestatus_machines") {
			t.Errorf("%s: 200 without machinestatus_machines:\n%.500s", c.name, body)
		}
		if code != http.StatusOK && strings.Contains(body, "machinestatus_machines") {
			t.Errorf("%s: %d with the metrics in the body", c.name, code)
		}
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("status codes of GET /metrics (-want +got):\n%s", d)
	}
}

// servingCert writes a self-signed serving certificate for 127.0.0.1 to a temporary directory
// as tls.crt and tls.key (what a mounted cert-manager Secret holds) and returns the directory
// and a pool trusting the certificate.
func servingCert(t *testing.T) (string, *x509.CertPool) {
	t.Helper()
	crt, key, err := certutil.GenerateSelfSignedCertKey("127.0.0.1", []net.IP{net.IPv4(127, 0, 0, 1)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for name, b := range map[string][]byte{"tls.crt": crt, "tls.key": key} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(crt) {
		t.Fatal("cannot parse the generated certificate")
	}
	return dir, pool
}
