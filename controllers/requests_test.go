package controllers_test

import (
	"net/http"
	"sync"
)

// managerRequests records every request sent with managerConfig (by the suite's manager and the
// tests' own reconcilers).
var managerRequests requestLog

// requestLog counts the HTTP requests a client sends (the suite's manager's, through
// rest.Config.Wrap), by method and URL path, whatever the answer (403 included).
type requestLog struct {
	mu sync.Mutex
	n  map[[2]string]int
}

// wrap is a rest.Config WrapTransport that records every request before sending it.
func (l *requestLog) wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripFunc(func(req *http.Request) (*http.Response, error) {
		l.mu.Lock()
		if l.n == nil {
			l.n = map[[2]string]int{}
		}
		l.n[[2]string{req.Method, req.URL.Path}]++
		l.mu.Unlock()
		return rt.RoundTrip(req)
	})
}

// count returns how many recorded requests match.
func (l *requestLog) count(match func(method, path string) bool) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	total := 0
	for k, n := range l.n {
		if match(k[0], k[1]) {
			total += n
		}
	}
	return total
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }
