//go:build faults

package faults

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"regexp"
	"sync"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// statusPath matches a Machine's status subresource: namespace and name.
var statusPath = regexp.MustCompile(`^/apis/machinestatus\.io/[^/]+/namespaces/([^/]+)/machines/([^/]+)/status$`)

// conflictProxy is a reverse proxy in front of the API server that answers 409 Conflict, as
// the API server would for a stale write, to the first `rejects` of every rejects+1 writes
// (PATCH, PUT) of each Machine's status; everything else goes through unchanged.
type conflictProxy struct {
	// kubeconfig points at the proxy (plain HTTP on 127.0.0.1, no credentials: the proxy talks
	// to the API server with its own).
	kubeconfig string

	rejects int
	mu      sync.Mutex
	streak  map[string]int
	// attempts records, per Machine, each status write: when and whether it was rejected.
	attempts map[string][]attempt
}

type attempt struct {
	at       time.Time
	rejected bool
}

// newConflictProxy starts the proxy in front of the API server of upstream; the test's cleanup
// stops it.
func newConflictProxy(t *testing.T, upstream *rest.Config, rejects int) *conflictProxy {
	t.Helper()
	target, err := url.Parse(upstream.Host)
	if err != nil {
		t.Fatal(err)
	}
	transport, err := rest.TransportFor(upstream)
	if err != nil {
		t.Fatal(err)
	}
	p := &conflictProxy{rejects: rejects, streak: map[string]int{}, attempts: map[string][]attempt{}}
	rp := &httputil.ReverseProxy{
		Rewrite:       func(r *httputil.ProxyRequest) { r.SetURL(target); r.Out.Host = target.Host },
		Transport:     transport,
		FlushInterval: -1, // watches stream
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if (r.Method == http.MethodPatch || r.Method == http.MethodPut) && p.reject(r.URL.Path) {
			m := statusPath.FindStringSubmatch(r.URL.Path)
			status := apierrors.NewConflict(schema.GroupResource{Group: "machinestatus.io", Resource: "machines"}, m[2],
				errors.New("the object has been modified; please apply your changes to the latest version and try again (injected by the faults test)")).ErrStatus
			status.APIVersion, status.Kind = "v1", "Status"
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusConflict)
			_ = json.NewEncoder(w).Encode(status)
			return
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)

	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["proxy"] = &clientcmdapi.Cluster{Server: srv.URL}
	cfg.AuthInfos["proxy"] = &clientcmdapi.AuthInfo{}
	cfg.Contexts["proxy"] = &clientcmdapi.Context{Cluster: "proxy", AuthInfo: "proxy"}
	cfg.CurrentContext = "proxy"
	p.kubeconfig = filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, p.kubeconfig); err != nil {
		t.Fatal(err)
	}
	return p
}

// reject decides whether a write to path is answered 409, and records the attempt.
func (p *conflictProxy) reject(path string) bool {
	m := statusPath.FindStringSubmatch(path)
	if m == nil {
		return false
	}
	key := m[1] + "/" + m[2]
	p.mu.Lock()
	defer p.mu.Unlock()
	rejected := p.streak[key] < p.rejects
	if rejected {
		p.streak[key]++
	} else {
		p.streak[key] = 0
	}
	p.attempts[key] = append(p.attempts[key], attempt{time.Now(), rejected})
	return rejected
}

// conflictFigures sums up the attempts: 409s injected, writes let through, and the delays
// between a 409 and the next attempt of the same Machine, by the 409's rank in its streak
// (index 0: after the first 409 of a streak).
type conflictFigures struct {
	injected, passed int
	// unanswered counts Machines whose last attempt was rejected (an update left behind).
	unanswered  int
	retryDelays [][]time.Duration
}

func (p *conflictProxy) figures() conflictFigures {
	p.mu.Lock()
	defer p.mu.Unlock()
	f := conflictFigures{retryDelays: make([][]time.Duration, p.rejects)}
	for _, as := range p.attempts {
		streak := 0
		for i, a := range as {
			if !a.rejected {
				f.passed++
				streak = 0
				continue
			}
			f.injected++
			if i+1 < len(as) {
				f.retryDelays[streak] = append(f.retryDelays[streak], as[i+1].at.Sub(a.at))
			}
			streak++
		}
		if len(as) > 0 && as[len(as)-1].rejected {
			f.unanswered++
		}
	}
	return f
}
