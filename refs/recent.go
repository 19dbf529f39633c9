package refs

import (
	"sync"
	"time"
)

// recentAnswers remembers, per key, an answer and the instant it was given, so that a question
// to the API server (an access review, a RESTMapper lookup of a kind it does not serve) is asked
// at most once per interval. The one freshness rule: an answer given at `at` is fresh at now when
// at <= now < at+interval; a clock that went back (now before at) makes it stale, so it is asked
// again rather than trusted for longer. The zero value is ready to use; it is safe for concurrent
// use.
type recentAnswers[K comparable, V any] struct {
	mu      sync.Mutex
	answers map[K]recentAnswer[V]
}

// recentAnswer is one answer and when it was given.
type recentAnswer[V any] struct {
	value V
	at    time.Time
}

// fresh returns the last answer for k (the zero V when there is none) and whether it is fresh at
// now, by the rule above.
func (c *recentAnswers[K, V]) fresh(k K, now time.Time, interval time.Duration) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	a, ok := c.answers[k]
	return a.value, ok && !now.Before(a.at) && now.Sub(a.at) < interval
}

// last returns the last answer for k, however old.
func (c *recentAnswers[K, V]) last(k K) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	a, ok := c.answers[k]
	return a.value, ok
}

// record notes v as the answer for k at now.
func (c *recentAnswers[K, V]) record(k K, v V, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.answers == nil {
		c.answers = map[K]recentAnswer[V]{}
	}
	c.answers[k] = recentAnswer[V]{value: v, at: now}
}
