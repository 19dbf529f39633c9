package main

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	certutil "k8s.io/client-go/util/cert"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
)

// served is what a client sees of the metrics endpoint.
type served struct {
	// TLS: the endpoint speaks HTTPS.
	TLS bool
	// Host is the serving certificate's (first) DNS name; ALPN the negotiated protocol when the
	// client offers h2 and http/1.1.
	Host, ALPN string
	// Status of GET /metrics without credentials.
	Status int
}

// TestMetricsServing starts the metrics server metricsOptions configures for a table of flag
// sets (no API server: requests without a token never reach it) and checks what a client sees:
// HTTPS by default with a self-signed certificate, the mounted certificate with
// --metrics-cert-path, HTTP/2 only with --enable-http2, 401 without a token, and plain HTTP open
// to anyone with --metrics-secure=false.
func TestMetricsServing(t *testing.T) {
	certDir := t.TempDir()
	writeCert(t, certDir, "mounted.example")
	tests := []struct {
		name string
		args []string
		want served
	}{
		{"defaults", nil, served{TLS: true, Host: "localhost", ALPN: "http/1.1", Status: http.StatusUnauthorized}},
		{"mounted certificate", []string{"--metrics-cert-path=" + certDir}, served{TLS: true, Host: "mounted.example", ALPN: "http/1.1", Status: http.StatusUnauthorized}},
		{"HTTP/2 enabled", []string{"--enable-http2"}, served{TLS: true, Host: "localhost", ALPN: "h2", Status: http.StatusUnauthorized}},
		{"insecure for development", []string{"--metrics-secure=false"}, served{Status: http.StatusOK}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := parseMetricsFlags(t, tc.args...)
			addr := startMetrics(t, m)
			if d := cmp.Diff(tc.want, see(t, addr, m.secure)); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

// TestMetricsCertificateReloaded replaces the mounted certificate while the server runs and
// checks that new connections get the new one (within a minute: certwatcher also polls).
func TestMetricsCertificateReloaded(t *testing.T) {
	dir := t.TempDir()
	writeCert(t, dir, "first.example")
	m := parseMetricsFlags(t, "--metrics-cert-path="+dir)
	addr := startMetrics(t, m)
	if got := see(t, addr, true).Host; got != "first.example" {
		t.Fatalf("serves %q, want first.example", got)
	}
	writeCert(t, dir, "second.example")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var got string
	err := wait.PollUntilContextCancel(ctx, 200*time.Millisecond, true, func(context.Context) (bool, error) {
		got = see(t, addr, true).Host
		return got == "second.example", nil
	})
	if err != nil {
		t.Fatalf("still serving %q, want second.example: %v", got, err)
	}
}

// TestMetricsCertificateMissing checks that a --metrics-cert-path without the named files is an
// error at start, not a silent fallback to a self-signed certificate.
func TestMetricsCertificateMissing(t *testing.T) {
	m := parseMetricsFlags(t, "--metrics-cert-path="+t.TempDir())
	if _, _, err := metricsOptions(m); err == nil {
		t.Fatal("no error for a certificate directory without tls.crt and tls.key")
	}
}

func parseMetricsFlags(t *testing.T, args ...string) metricsFlags {
	t.Helper()
	fs := flag.NewFlagSet("manager", flag.ContinueOnError)
	var m metricsFlags
	bindMetricsFlags(fs, &m)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	m.addr = "127.0.0.1:0"
	return m
}

// startMetrics runs the metrics server (and the certificate watcher) m configures until the test
// ends and returns its address.
func startMetrics(t *testing.T, m metricsFlags) string {
	t.Helper()
	opts, certs, err := metricsOptions(m)
	if err != nil {
		t.Fatal(err)
	}
	// The filter's clients are created but never used: requests without a token stop before.
	srv, err := metricsserver.NewServer(opts, &rest.Config{Host: "https://127.0.0.1:1"}, http.DefaultClient)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 2)
	go func() { done <- srv.Start(ctx) }()
	if certs != nil {
		go func() { done <- certs.Start(ctx) }()
	}
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
			t.Errorf("metrics server: %v", err)
		}
	})
	bound, ok := srv.(interface{ GetBindAddr() string })
	if !ok {
		t.Fatalf("%T does not tell its address", srv)
	}
	wctx, wcancel := context.WithTimeout(ctx, time.Minute)
	defer wcancel()
	var addr string
	if err := wait.PollUntilContextCancel(wctx, 50*time.Millisecond, true, func(context.Context) (bool, error) {
		addr = bound.GetBindAddr()
		return addr != "", nil
	}); err != nil {
		t.Fatalf("the metrics server did not listen: %v", err)
	}
	return addr
}

// see connects to addr (TLS when secure, offering h2 and http/1.1 and accepting any
// certificate: the test reads it) and GETs /metrics without credentials.
func see(t *testing.T, addr string, secure bool) served {
	t.Helper()
	var s served
	scheme := "http"
	client := http.DefaultClient
	if secure {
		scheme = "https"
		cfg := &tls.Config{InsecureSkipVerify: true, NextProtos: []string{"h2", "http/1.1"}, MinVersion: tls.VersionTLS12}
		conn, err := tls.Dial("tcp", addr, cfg)
		if err != nil {
			t.Fatalf("TLS handshake with %s: %v", addr, err)
		}
		st := conn.ConnectionState()
		_ = conn.Close()
		s.TLS, s.ALPN = true, st.NegotiatedProtocol
		if len(st.PeerCertificates) > 0 && len(st.PeerCertificates[0].DNSNames) > 0 {
			s.Host = st.PeerCertificates[0].DNSNames[0]
		}
		client = &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true, MinVersion: tls.VersionTLS12}}}
	}
	resp, err := client.Get(scheme + "://" + addr + "/metrics")
	if err != nil {
		t.Fatalf("GET /metrics: %v", err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	s.Status = resp.StatusCode
	return s
}

// writeCert writes a self-signed certificate for host (its common name) as tls.crt and tls.key
// in dir, replacing what is there (a new file renamed over the old, as a Secret update does).
func writeCert(t *testing.T, dir, host string) {
	t.Helper()
	crt, key, err := certutil.GenerateSelfSignedCertKey(host, []net.IP{net.IPv4(127, 0, 0, 1)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string][]byte{"tls.key": key, "tls.crt": crt} {
		tmp := filepath.Join(dir, "."+name)
		if err := os.WriteFile(tmp, b, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
}
