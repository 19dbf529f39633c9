package quietlog

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/go-logr/logr/funcr"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// terminating is the API server's answer to an event created in a namespace being deleted.
func terminating() error {
	err := apierrors.NewForbidden(schema.GroupResource{Group: "events.k8s.io", Resource: "events"}, "m.123",
		errors.New("unable to create new content in namespace ns because it is being terminated"))
	err.ErrStatus.Details.Causes = []metav1.StatusCause{{Type: corev1.NamespaceTerminatingCause, Field: "metadata.namespace"}}
	return err
}

func TestExpected(t *testing.T) {
	gr := schema.GroupResource{Group: "events.k8s.io", Resource: "events"}
	tests := []struct {
		name string
		msg  string
		err  error
		want string
	}{
		{"namespace terminating", RejectedEventMessage, terminating(), "event not recorded: its namespace is being deleted"},
		{"namespace gone", RejectedEventMessage, apierrors.NewNotFound(schema.GroupResource{Resource: "namespaces"}, "ns"), "event not recorded: its namespace is gone"},
		{"RBAC forbids events: an operator must act", RejectedEventMessage, apierrors.NewForbidden(gr, "m.123", errors.New("no")), ""},
		{"invalid event: a bug", RejectedEventMessage, apierrors.NewInvalid(schema.GroupKind{Kind: "Event"}, "m.123", nil), ""},
		{"another message", "Reconciler error", terminating(), ""},
		{"reconcile cut short by shutdown", "Reconciler error", fmt.Errorf("cannot apply the status: %w", context.Canceled), "cut short: the manager is stopping"},
		{"leader election released on SIGTERM", StoppingMessage, errors.New("leader election lost"), "while stopping: leader election lost"},
		{"deadline: an operator may have to act", "Reconciler error", context.DeadlineExceeded, ""},
		{"no error", RejectedEventMessage, nil, ""},
		{"event after the broadcaster shut down (a leader exiting), logged without an error", BroadcasterShutDownMessage, nil, "event not recorded: the manager is stopping"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Expected(tt.msg, tt.err); got != tt.want {
				t.Errorf("Expected = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestWrap: an expected rejection is logged at V(1) without the whole event; other errors stay
// errors; names and values pass through.
func TestWrap(t *testing.T) {
	var out bytes.Buffer
	l := Wrap(funcr.New(func(prefix, args string) { fmt.Fprintln(&out, prefix, args) }, funcr.Options{Verbosity: 1}))
	ev := &eventsv1.Event{Reason: "MachineDeleting", Note: strings.Repeat("x", 800),
		Regarding: corev1.ObjectReference{Kind: "Machine", Namespace: "ns", Name: "m"}}
	l.WithName("events").Error(terminating(), RejectedEventMessage, "event", ev)
	l.WithValues("k", "v").Error(errors.New("boom"), "Reconciler error")
	l.Error(nil, BroadcasterShutDownMessage, "event", ev) // client-go logs it without an error
	got := out.String()
	for _, want := range []string{
		`"level"=1 "msg"="event not recorded: the manager is stopping"`,
		`"level"=1 "msg"="event not recorded: its namespace is being deleted"`,
		`"event"="Machine ns/m MachineDeleting"`,
		`"msg"="Reconciler error" "error"="boom" "k"="v"`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("log lacks %s:\n%s", want, got)
		}
	}
	if strings.Contains(got, "xxxx") || strings.Count(got, `"error"=`) != 2 {
		t.Errorf("log:\n%s", got)
	}
}
