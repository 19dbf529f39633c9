// Package quietlog keeps expected, harmless rejections out of the manager's ERROR log: a
// logr.LogSink wrapper logs them at verbosity 1 instead, so that every ERROR line is something
// an operator must act on (docs/operating.md, "Reliability").
package quietlog

import (
	"context"
	"errors"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// RejectedEventMessage is client-go's message (k8s.io/client-go/tools/events) when the API
// server refuses to store an event for a reason that retrying cannot fix.
const RejectedEventMessage = "Server rejected event (will not retry!)"

// BroadcasterShutDownMessage is client-go's message (k8s.io/client-go/tools/record) when an
// event is emitted after its broadcaster was shut down, which happens only while the manager
// stops (e.g. leader election's Lease event as a leader exits); it is logged without an error.
const BroadcasterShutDownMessage = "Unable to write event (broadcaster is shut down)"

// StoppingMessage is controller-runtime's message for an error a runnable returns after the
// manager began stopping.
const StoppingMessage = "error received after stop sequence was engaged"

// Expected reports why err, logged with msg, is expected and harmless, or "" when it is not.
// The rules:
//   - an event the API server refuses because its namespace is being deleted (Forbidden with
//     cause NamespaceTerminating) or is gone (NotFound): the object it is about goes away with
//     the namespace, and nobody can read the event anyway;
//   - any error that is context.Canceled: a request or reconcile cut short because the manager
//     is stopping (its contexts are canceled only then);
//   - an error controller-runtime reports after the manager began stopping (e.g. "leader
//     election lost" when a leader releases its Lease on SIGTERM);
//   - an event emitted after its broadcaster was shut down (only while the manager stops).
func Expected(msg string, err error) string {
	if msg == BroadcasterShutDownMessage {
		return "event not recorded: the manager is stopping"
	}
	if err == nil {
		return ""
	}
	if errors.Is(err, context.Canceled) {
		return "cut short: the manager is stopping"
	}
	if msg == StoppingMessage {
		return "while stopping: " + err.Error()
	}
	if msg != RejectedEventMessage {
		return ""
	}
	switch {
	case apierrors.HasStatusCause(err, corev1.NamespaceTerminatingCause):
		return "event not recorded: its namespace is being deleted"
	case apierrors.IsNotFound(err):
		return "event not recorded: its namespace is gone"
	}
	return ""
}

// Wrap returns l, except that an Error call that Expected recognizes is logged as Info at
// verbosity 1 with the reason as its message; an event among the values is shortened to what it
// is about and its reason (client-go logs the whole event, about 850 bytes).
func Wrap(l logr.Logger) logr.Logger {
	if l.GetSink() == nil {
		return l
	}
	return logr.New(&sink{LogSink: l.GetSink()})
}

// sink forwards everything to LogSink but Expected errors.
type sink struct{ logr.LogSink }

func (s *sink) Init(info logr.RuntimeInfo) {
	info.CallDepth++ // our own frame
	s.LogSink.Init(info)
}

func (s *sink) Error(err error, msg string, kv ...any) {
	if why := Expected(msg, err); why != "" {
		if s.LogSink.Enabled(1) {
			kv = shorten(kv)
			if err != nil {
				kv = append([]any{"error", err.Error()}, kv...)
			}
			s.LogSink.Info(1, why, kv...)
		}
		return
	}
	s.LogSink.Error(err, msg, kv...)
}

func (s *sink) WithValues(kv ...any) logr.LogSink {
	return &sink{LogSink: s.LogSink.WithValues(kv...)}
}

func (s *sink) WithName(name string) logr.LogSink {
	return &sink{LogSink: s.LogSink.WithName(name)}
}

// WithCallDepth keeps the caller's file and line right when the wrapped sink reports them.
func (s *sink) WithCallDepth(depth int) logr.LogSink {
	if cd, ok := s.LogSink.(logr.CallDepthLogSink); ok {
		return &sink{LogSink: cd.WithCallDepth(depth)}
	}
	return s
}

// shorten replaces an *eventsv1.Event value in kv by "<kind> <namespace>/<name> <reason>".
func shorten(kv []any) []any {
	out := make([]any, len(kv))
	for i, v := range kv {
		if e, ok := v.(*eventsv1.Event); ok && e != nil {
			v = e.Regarding.Kind + " " + e.Regarding.Namespace + "/" + e.Regarding.Name + " " + e.Reason
		}
		out[i] = v
	}
	return out
}
