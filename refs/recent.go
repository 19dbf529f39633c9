package refs

import "time"

// answer is the API server's answer to a question: the verbs an access review denied ("" when
// allowed; nothing for a kind or version the RESTMapper did not map), given at `at`. Reader
// keeps the last answer to each question (recentAnswer, record), so that a question is asked at
// most once per interval however many Machines ask it.
type answer struct {
	denied string
	at     time.Time
}

// fresh is the one freshness rule: an answer given at `at` is fresh at now when
// at <= now < at+interval; a clock that went back (now before at) makes it stale, so that the
// question is asked again rather than the answer trusted for longer.
func (a answer) fresh(now time.Time, interval time.Duration) bool {
	return !now.Before(a.at) && now.Sub(a.at) < interval
}

// recentAnswer returns the last answer to question k and whether it is fresh at now.
func (r *Reader) recentAnswer(k any, now time.Time, interval time.Duration) (answer, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	a, ok := r.answers[k]
	return a, ok && a.fresh(now, interval)
}

// record notes a as the last answer to question k.
func (r *Reader) record(k any, a answer) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.answers == nil {
		r.answers = map[any]answer{}
	}
	r.answers[k] = a
}
