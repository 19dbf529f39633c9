package controllers

import (
	"context"
	"errors"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/conditions"
)

// StatusRefusedEventReason is the reason of the Warning event emitted when the API server
// refuses a status write for a reason that retrying the same write cannot fix.
const StatusRefusedEventReason = "StatusWriteRefused"

// Backoff of a Machine whose status writes are refused: the first retry after
// refusedRetryBase, doubling up to refusedRetryMax. Any change of the Machine, its Node or its
// referenced objects also reconciles it at once.
const (
	refusedRetryBase = 2 * time.Second
	refusedRetryMax  = 5 * time.Minute
)

// refusalReasons are the values of refusalReason but "".
var refusalReasons = []string{"Invalid", "RequestEntityTooLarge", "Forbidden", "BadRequest"}

// refusalReason returns the metric label of a status write error the API server will refuse
// again when sent again unchanged (validation 422, too large 413, forbidden 403 by RBAC or an
// admission policy, bad request 400), or "" for other errors (conflicts, timeouts, outages:
// retried by the work queue).
func refusalReason(err error) string {
	switch {
	case err == nil:
		return ""
	case apierrors.IsInvalid(err):
		return "Invalid"
	case apierrors.IsRequestEntityTooLargeError(err):
		return "RequestEntityTooLarge"
	case apierrors.IsForbidden(err):
		return "Forbidden"
	case apierrors.IsBadRequest(err):
		return "BadRequest"
	}
	return ""
}

// refusedWrites remembers, per Machine, the backoff of refused status writes, the refusal
// reason last logged at ERROR and whether omitted conditions were logged, so that each problem is
// logged at ERROR once when it starts, not on every retry. The zero value is ready to use.
type refusedWrites struct {
	mu      sync.Mutex
	reason  map[types.NamespacedName]string
	omitted map[types.NamespacedName]bool
	backoff workqueue.TypedRateLimiter[types.NamespacedName]
}

// refused records a refusal of key's status write for reason and returns the delay before the
// next attempt and whether this is the first refusal of this reason in a row (log it at ERROR).
func (w *refusedWrites) refused(key types.NamespacedName, reason string) (time.Duration, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.backoff == nil {
		w.backoff = workqueue.NewTypedItemExponentialFailureRateLimiter[types.NamespacedName](refusedRetryBase, refusedRetryMax)
	}
	if w.reason == nil {
		w.reason = map[types.NamespacedName]string{}
	}
	first := w.reason[key] != reason
	w.reason[key] = reason
	return w.backoff.When(key), first
}

// accepted forgets key's write refusals (its status was written) and reports whether there were
// any.
func (w *refusedWrites) accepted(key types.NamespacedName) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	_, had := w.reason[key]
	delete(w.reason, key)
	if w.backoff != nil {
		w.backoff.Forget(key)
	}
	return had
}

// setOmitted records whether key's last written status omitted conditions and reports whether
// that just started (log it at ERROR).
func (w *refusedWrites) setOmitted(key types.NamespacedName, omitted bool) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.omitted == nil {
		w.omitted = map[types.NamespacedName]bool{}
	}
	started := omitted && !w.omitted[key]
	if omitted {
		w.omitted[key] = true
	} else {
		delete(w.omitted, key)
	}
	return started
}

// forget drops everything about key (the Machine is gone).
func (w *refusedWrites) forget(key types.NamespacedName) {
	w.accepted(key)
	w.setOmitted(key, false)
}

// handleRefusal surfaces a status write of m that the API server refused with err for a reason
// that retrying cannot fix: the machinestatus_status_writes_refused_total{reason} metric, a
// Warning event StatusWriteRefused with the API server's message, an ERROR log line the first
// time in a row (later ones at verbosity 1), and a retry after an exponential backoff instead
// of the work queue's immediate retries. It returns false, doing nothing, for other errors.
func (r *MachineReconciler) handleRefusal(ctx context.Context, m *v1alpha1.Machine, err error) (time.Duration, bool) {
	reason := refusalReason(err)
	if reason == "" {
		return 0, false
	}
	key := types.NamespacedName{Namespace: m.Namespace, Name: m.Name}
	delay, first := r.refusals.refused(key, reason)
	statusWritesRefusedMetric.WithLabelValues(reason).Inc()
	msg := err.Error()
	var status apierrors.APIStatus
	if errors.As(err, &status) {
		msg = status.Status().Message
	}
	r.Recorder.Eventf(eventRegarding(v1alpha1.GroupVersion.String(), m), nil, corev1.EventTypeWarning, StatusRefusedEventReason, eventAction,
		"The API server refused the status write (%s): %s", reason, conditions.CollapseSpace(conditions.TruncateTo(msg, 1024)))
	l := log.FromContext(ctx).WithValues("reason", reason, "retryIn", delay.String())
	if first {
		l.Error(err, "the API server refuses this Machine's status; it stays stale until the cause is fixed (see the StatusWriteRefused event)")
	} else {
		l.V(1).Info("status write refused again", "error", err.Error())
	}
	return delay, true
}
