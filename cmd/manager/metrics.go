package main

import (
	"crypto/tls"
	"flag"
	"fmt"
	"path/filepath"

	"sigs.k8s.io/controller-runtime/pkg/certwatcher"
	"sigs.k8s.io/controller-runtime/pkg/metrics/filters"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
)

// metricsFlags configure the metrics endpoint; the names and defaults are those of kubebuilder
// v4 projects, except that the endpoint is on by default (:8443).
type metricsFlags struct {
	addr     string
	secure   bool
	certPath string
	certName string
	certKey  string
	enableH2 bool
}

// bindMetricsFlags registers the metrics flags on fs.
func bindMetricsFlags(fs *flag.FlagSet, m *metricsFlags) {
	fs.StringVar(&m.addr, "metrics-bind-address", ":8443", "Address the metrics endpoint binds to; \"0\" disables it.")
	fs.BoolVar(&m.secure, "metrics-secure", true, "Serve metrics over HTTPS to callers that authenticate with a Kubernetes token (TokenReview) and may get /metrics (SubjectAccessReview, e.g. the metrics-reader ClusterRole). --metrics-secure=false serves plain HTTP to anyone: local development only.")
	fs.StringVar(&m.certPath, "metrics-cert-path", "", "Directory holding the metrics serving certificate and key (e.g. a mounted cert-manager Secret), reloaded when they change; empty: a self-signed certificate generated at start.")
	fs.StringVar(&m.certName, "metrics-cert-name", "tls.crt", "File name of the metrics serving certificate in --metrics-cert-path.")
	fs.StringVar(&m.certKey, "metrics-cert-key", "tls.key", "File name of the metrics serving key in --metrics-cert-path.")
	fs.BoolVar(&m.enableH2, "enable-http2", false, "Let the metrics endpoint speak HTTP/2 (off by default: HTTP/2 Rapid Reset, CVE-2023-44487, and Stream Cancellation, CVE-2023-39325).")
}

// metricsOptions returns the metrics server options m asks for and, with --metrics-cert-path,
// the watcher of the certificate (the caller adds it to the manager so it reloads). With
// secure (the default) the endpoint is HTTPS and every request is authenticated and authorized
// against the API server by controller-runtime's filter (TokenReview, then SubjectAccessReview
// of verb get on the request path): no token is 401, a token without the grant 403. It returns
// an error when the certificate or key cannot be read.
func metricsOptions(m metricsFlags) (metricsserver.Options, *certwatcher.CertWatcher, error) {
	opts := metricsserver.Options{BindAddress: m.addr, SecureServing: m.secure}
	if !m.secure {
		return opts, nil, nil
	}
	opts.FilterProvider = filters.WithAuthenticationAndAuthorization
	if !m.enableH2 {
		opts.TLSOpts = append(opts.TLSOpts, func(c *tls.Config) { c.NextProtos = []string{"http/1.1"} })
	}
	if m.certPath == "" {
		return opts, nil, nil // controller-runtime generates a self-signed certificate
	}
	w, err := certwatcher.New(filepath.Join(m.certPath, m.certName), filepath.Join(m.certPath, m.certKey))
	if err != nil {
		return opts, nil, fmt.Errorf("cannot load the metrics certificate from --metrics-cert-path %s: %w", m.certPath, err)
	}
	opts.TLSOpts = append(opts.TLSOpts, func(c *tls.Config) { c.GetCertificate = w.GetCertificate })
	return opts, w, nil
}
