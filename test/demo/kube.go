package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/test/harness"
)

// namespace is where the samples are applied (kubectl's default).
const namespace = "default"

// kubectl prints and runs `kubectl args...` against the demo's API server, from the repository
// root (the samples are given relative to it).
func (e *env) kubectl(ctx context.Context, args ...string) error {
	fmt.Printf("$ kubectl %s\n", shellJoin(args))
	cmd := exec.CommandContext(ctx, e.KubectlBin, append([]string{"--kubeconfig", e.Kubeconfig}, args...)...)
	cmd.Dir = e.Root
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		return fmt.Errorf("kubectl %s: %w", shellJoin(args), err)
	}
	return nil
}

// wait polls the Machines until every expectation holds, or fails after timeout with what it
// saw last.
func (e *env) wait(ctx context.Context, timeout time.Duration, want []expect) error {
	return harness.Poll(ctx, timeout, func(ctx context.Context) (bool, string) {
		unmet, err := e.unmet(ctx, want)
		if err != nil {
			return false, err.Error()
		}
		return len(unmet) == 0, "still waiting for:\n" + strings.Join(unmet, "\n")
	})
}

// unmet returns one description per expectation that does not hold yet, with the Machine's
// last seen status.
func (e *env) unmet(ctx context.Context, want []expect) ([]string, error) {
	var out []string
	for _, w := range want {
		m := &v1alpha1.Machine{}
		err := e.Client.Get(ctx, client.ObjectKey{Namespace: namespace, Name: w.name}, m)
		switch {
		case apierrors.IsNotFound(err):
			if !w.gone {
				out = append(out, fmt.Sprintf("Machine %s: want phase %s, the Machine does not exist", w.name, w.phase))
			}
		case err != nil:
			if ctx.Err() != nil {
				return nil, context.Cause(ctx)
			}
			return nil, fmt.Errorf("cannot get Machine %s: %w", w.name, err)
		case w.gone:
			out = append(out, fmt.Sprintf("Machine %s: want it gone; last seen:\n%s", w.name, describe(m)))
		case m.Status.Phase != w.phase:
			out = append(out, fmt.Sprintf("Machine %s: want phase %s; last seen:\n%s", w.name, w.phase, describe(m)))
		}
	}
	return out, nil
}

// describe renders a Machine's status for error messages.
func describe(m *v1alpha1.Machine) string {
	var b strings.Builder
	fmt.Fprintf(&b, "  phase: %q  observedGeneration: %d/%d", m.Status.Phase, m.Status.ObservedGeneration, m.Generation)
	if !m.DeletionTimestamp.IsZero() {
		fmt.Fprintf(&b, "  deletionTimestamp: %s  finalizers: %v", m.DeletionTimestamp.UTC().Format(time.RFC3339), m.Finalizers)
	}
	if op := m.Status.LastOperation; op != nil {
		fmt.Fprintf(&b, "\n  lastOperation: %s %s %q", op.Type, op.State, op.Description)
	}
	if m.Status.NodeRef != nil {
		fmt.Fprintf(&b, "\n  nodeRef: %s", m.Status.NodeRef.Name)
	}
	conds := slices.Clone(m.Status.Conditions)
	sort.Slice(conds, func(i, j int) bool { return conds[i].Type < conds[j].Type })
	b.WriteString("\n  conditions:\n")
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	for _, c := range conds {
		fmt.Fprintf(tw, "    %s\t%s\t%s\t%s\t%s\n", c.Type, c.Status, c.Reason, c.LastTransitionTime.UTC().Format(time.RFC3339), strings.ReplaceAll(c.Message, "\n", " "))
	}
	_ = tw.Flush()
	return strings.TrimRight(b.String(), "\n")
}

// banner prints a step header.
func banner(title string) {
	line := strings.Repeat("=", 100)
	fmt.Printf("\n%s\n%s\n%s\n", line, title, line)
}

// shellJoin quotes the arguments that a shell would split or expand.
func shellJoin(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		if a == "" || strings.ContainsAny(a, " \t\n\"'{}[]$*?;&|<>()\\`!#~") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		out[i] = a
	}
	return strings.Join(out, " ")
}
