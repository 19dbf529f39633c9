package clusterapi

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	"github.com/machinestatus/machinestatus/aggregate"
	"github.com/machinestatus/machinestatus/api/v1alpha1"
	"github.com/machinestatus/machinestatus/test/internal/fleet"
)

// auditPolicy makes the API server log every write to a Cluster API Machine with its request
// and response bodies (the response's resourceVersion tells an effective write from a no-op;
// the request of a patch is its body), and every write to an Event (both APIs) with its
// metadata; nothing else.
const auditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
- level: RequestResponse
  verbs: ["create", "update", "patch", "delete"]
  resources:
  - group: cluster.x-k8s.io
    resources: ["machines", "machines/status"]
- level: Metadata
  verbs: ["create", "update", "patch"]
  resources:
  - group: ""
    resources: ["events"]
  - group: events.k8s.io
    resources: ["events"]
- level: None
`

// auditFlags writes the audit policy into dir and returns the kube-apiserver flags that log by
// it to the returned path.
func auditFlags(dir string) (map[string]string, string, error) {
	policy := filepath.Join(dir, "audit-policy.yaml")
	if err := os.WriteFile(policy, []byte(auditPolicy), 0o600); err != nil {
		return nil, "", fmt.Errorf("cannot write the audit policy: %w", err)
	}
	log := filepath.Join(dir, "audit.log")
	// The API server appends: a log of an earlier run in the same directory goes first.
	if err := os.Remove(log); err != nil && !os.IsNotExist(err) {
		return nil, "", err
	}
	return map[string]string{
		"audit-policy-file": policy,
		"audit-log-path":    log,
		// Whole entries, never truncated or rotated, written before the response.
		"audit-log-maxsize": "0",
		"audit-log-mode":    "blocking",
	}, log, nil
}

// The writers the suite tells apart, besides each Cluster API reconciler (its user agent
// without agentPrefix, e.g. "machineset-controller").
const (
	// writerOurs is our manager (bin/manager, authenticated as fleet.ManagerUser).
	writerOurs = "machinestatus"
	// writerSuite is the suite itself (the test's client): deletions, finalizers, hooks.
	writerSuite = "suite"
	// suiteAgent is the user agent of the suite's own client.
	suiteAgent = "clusterapi-suite"
)

// writerOf names who sent a request: our manager by its user, Cluster API's reconcilers and
// the suite by their user agents, anyone else by the first word of theirs.
func writerOf(user, userAgent string) string {
	switch {
	case user == fleet.ManagerUser:
		return writerOurs
	case strings.HasPrefix(userAgent, agentPrefix):
		return strings.TrimPrefix(userAgent, agentPrefix)
	case userAgent == suiteAgent:
		return writerSuite
	}
	first, _, _ := strings.Cut(userAgent, " ")
	return first
}

// isClusterAPI says whether a writer is one of Cluster API's reconcilers.
func isClusterAPI(writer string) bool { return strings.HasSuffix(writer, "-controller") }

// auditEntry is the part of an audit.k8s.io/v1 Event the suite reads.
type auditEntry struct {
	Stage string `json:"stage"`
	Verb  string `json:"verb"`
	User  struct {
		Username string `json:"username"`
	} `json:"user"`
	UserAgent string `json:"userAgent"`
	ObjectRef *struct {
		Resource    string `json:"resource"`
		Namespace   string `json:"namespace"`
		Name        string `json:"name"`
		APIGroup    string `json:"apiGroup"`
		Subresource string `json:"subresource"`
	} `json:"objectRef"`
	ResponseStatus *struct {
		Code int `json:"code"`
	} `json:"responseStatus"`
	RequestObject            json.RawMessage  `json:"requestObject"`
	ResponseObject           json.RawMessage  `json:"responseObject"`
	RequestReceivedTimestamp metav1.MicroTime `json:"requestReceivedTimestamp"`
	StageTimestamp           metav1.MicroTime `json:"stageTimestamp"`
}

// machineWrite is one write request to a Cluster API Machine (or its status).
type machineWrite struct {
	Machine     types.NamespacedName
	Writer      string
	Verb        string
	Subresource string
	Code        int
	// RV is the resourceVersion of the response's object ("" when it has none).
	RV string
	// Body is the request's body (a patch's).
	Body string
	// Response is the Machine the response returned (nil when none).
	Response           *clusterv1.Machine
	Received, Complete time.Time
	// Effective is true when the write produced a resourceVersion no earlier write of the
	// Machine had produced; a successful write that is not effective changed nothing.
	Effective bool
}

func (w machineWrite) ok() bool { return w.Code >= 200 && w.Code < 300 }

// eventWrite is one write request to an Event.
type eventWrite struct {
	Writer, Verb string
	Code         int
}

// auditLog is what the audit log recorded: Machine writes (per Machine, in the order the API
// server received them) and Event writes.
type auditLog struct {
	Machines map[types.NamespacedName][]machineWrite
	Events   []eventWrite
}

// readAuditLog reads the audit log at path.
func readAuditLog(path string) (*auditLog, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read the audit log: %w", err)
	}
	defer func() { _ = f.Close() }()
	return parseAuditLog(f)
}

// parseAuditLog reads audit events, one JSON object a line, and marks each Machine write
// effective or not.
func parseAuditLog(r io.Reader) (*auditLog, error) {
	a := &auditLog{Machines: map[types.NamespacedName][]machineWrite{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1024*1024), 64*1024*1024)
	for sc.Scan() {
		var e auditEntry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			return nil, fmt.Errorf("cannot read an audit entry: %w", err)
		}
		if e.Stage != "ResponseComplete" || e.ObjectRef == nil || e.ResponseStatus == nil {
			continue
		}
		writer := writerOf(e.User.Username, e.UserAgent)
		switch {
		case e.ObjectRef.Resource == "events":
			a.Events = append(a.Events, eventWrite{Writer: writer, Verb: e.Verb, Code: e.ResponseStatus.Code})
		case e.ObjectRef.Resource == "machines" && e.ObjectRef.APIGroup == clusterv1.GroupVersion.Group:
			w := machineWrite{
				Machine: types.NamespacedName{Namespace: e.ObjectRef.Namespace, Name: e.ObjectRef.Name},
				Writer:  writer, Verb: e.Verb, Subresource: e.ObjectRef.Subresource, Code: e.ResponseStatus.Code,
				Body: string(e.RequestObject), Received: e.RequestReceivedTimestamp.Time, Complete: e.StageTimestamp.Time,
			}
			if len(e.ResponseObject) > 0 {
				m := &clusterv1.Machine{}
				if err := json.Unmarshal(e.ResponseObject, m); err == nil && m.Kind == "Machine" {
					w.Response, w.RV = m, m.ResourceVersion
					if w.Machine.Name == "" { // a create names the object in its body
						w.Machine.Name = m.Name
					}
				}
			}
			a.Machines[w.Machine] = append(a.Machines[w.Machine], w)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("cannot read the audit log: %w", err)
	}
	for _, ws := range a.Machines {
		markEffective(ws)
	}
	return a, nil
}

// markEffective sorts the writes of one Machine by the order the API server received them and
// marks as effective each successful one whose response carries a resourceVersion no earlier
// write produced. (A no-op returns the version current when it read the object, which a write
// received earlier produced.)
func markEffective(ws []machineWrite) {
	slices.SortStableFunc(ws, func(a, b machineWrite) int { return a.Received.Compare(b.Received) })
	byVersion := make([]int, 0, len(ws))
	for i := range ws {
		if ws[i].ok() && ws[i].RV != "" {
			byVersion = append(byVersion, i)
		}
	}
	// The first write (by reception) to return a version produced it.
	slices.SortStableFunc(byVersion, func(a, b int) int {
		return compareVersions(ws[a].RV, ws[b].RV)
	})
	seen := map[string]bool{}
	for _, i := range byVersion {
		if !seen[ws[i].RV] {
			seen[ws[i].RV], ws[i].Effective = true, true
		}
	}
}

func compareVersions(a, b string) int {
	x, errA := strconv.ParseUint(a, 10, 64)
	y, errB := strconv.ParseUint(b, 10, 64)
	if errA != nil || errB != nil {
		return strings.Compare(a, b)
	}
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

// ourPatch is one annotation patch of our manager, read from its body.
type ourPatch struct {
	machineWrite
	// Value is the annotation's value the patch set ("" when the body sets none).
	Value string
	Kept  keptOperation
}

// ourPatches returns our manager's patches of a Machine's writes, in order.
func ourPatches(ws []machineWrite) []ourPatch {
	var out []ourPatch
	for _, w := range ws {
		if w.Writer != writerOurs {
			continue
		}
		p := ourPatch{machineWrite: w}
		var body struct {
			Metadata struct {
				Annotations map[string]*string `json:"annotations"`
			} `json:"metadata"`
		}
		if json.Unmarshal([]byte(w.Body), &body) == nil {
			if v := body.Metadata.Annotations[aggregate.LastOperationAnnotation]; v != nil {
				p.Value = *v
				p.Kept, _ = decodeKept(*v)
			}
		}
		out = append(out, p)
	}
	return out
}

// writeCounts counts one writer's writes of one Machine.
type writeCounts struct {
	Requests, Effective, NoOps, Failed int
}

func (c *writeCounts) add(w machineWrite) {
	c.Requests++
	switch {
	case w.Effective:
		c.Effective++
	case w.ok():
		c.NoOps++
	default:
		c.Failed++
	}
}

func (c *writeCounts) plus(o writeCounts) {
	c.Requests += o.Requests
	c.Effective += o.Effective
	c.NoOps += o.NoOps
	c.Failed += o.Failed
}

// machineWrites is the account of one Machine's writes.
type machineWrites struct {
	Machine types.NamespacedName
	// By counts the writes of each writer.
	By map[string]writeCounts
	// Changes is how many times the (type, state) our patches set changed (the first patch is a
	// change from none); Extra counts our patches that changed no (type, state); Identical
	// counts our patches whose body equals our previous patch's to the same Machine.
	Changes, Extra, Identical int
	// Results are the operation results (state Successful or Failed) our patches entered, in
	// order: each needs its event.
	Results []typeState
	// Sequence is the (type, state) of each of our patches, for messages.
	Sequence []string
}

// account counts the writes of one Machine.
func account(m types.NamespacedName, ws []machineWrite) machineWrites {
	acc := machineWrites{Machine: m, By: map[string]writeCounts{}}
	for _, w := range ws {
		c := acc.By[w.Writer]
		c.add(w)
		acc.By[w.Writer] = c
	}
	var previous *ourPatch
	for _, p := range ourPatches(ws) {
		ts := typeState{p.Kept.Type, p.Kept.State}
		acc.Sequence = append(acc.Sequence, ts.String())
		switch {
		case previous == nil || ts != (typeState{previous.Kept.Type, previous.Kept.State}):
			acc.Changes++
			if ts.State != v1alpha1.MachineOperationStateProcessing && ts.State != "" {
				acc.Results = append(acc.Results, ts)
			}
		default:
			acc.Extra++
		}
		if previous != nil && p.Body == previous.Body {
			acc.Identical++
		}
		previous = &p
	}
	return acc
}

// clusterAPIEffective is the sum of the effective writes of Cluster API's reconcilers.
func (a machineWrites) clusterAPIEffective() int {
	n := 0
	for w, c := range a.By {
		if isClusterAPI(w) {
			n += c.Effective
		}
	}
	return n
}

// eventCounts counts successful Event writes (creates and patches: one per occurrence, or
// per series update) per writer.
func (a *auditLog) eventCounts() map[string]int {
	out := map[string]int{}
	for _, e := range a.Events {
		if e.Code >= 200 && e.Code < 300 {
			out[e.Writer]++
		}
	}
	return out
}
