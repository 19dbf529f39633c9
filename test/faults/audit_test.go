//go:build faults

package faults

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"time"
)

// auditPolicy makes the API server log one line per write to machines/status (at the end of
// the request), with the requestURI that carries the writer's ?fieldManager=, and nothing else.
const auditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived", "ResponseStarted"]
rules:
- level: Metadata
  resources:
  - group: machinestatus.io
    resources: ["machines/status"]
  verbs: ["patch", "update", "create"]
- level: None
`

// statusWrite is one write to a Machine's status as the API server's audit log records it.
type statusWrite struct {
	Namespace, Name string
	// FieldManager is the writer's ?fieldManager= (empty when it sent none).
	FieldManager string
	// Received is when the API server received the request.
	Received time.Time
	// Code is the HTTP status of the response.
	Code int
}

// auditEvent holds the fields of an audit.k8s.io/v1 Event that the tests read.
type auditEvent struct {
	Verb       string `json:"verb"`
	RequestURI string `json:"requestURI"`
	ObjectRef  *struct {
		Namespace   string `json:"namespace"`
		Name        string `json:"name"`
		Resource    string `json:"resource"`
		Subresource string `json:"subresource"`
	} `json:"objectRef"`
	ResponseStatus *struct {
		Code int `json:"code"`
	} `json:"responseStatus"`
	RequestReceivedTimestamp time.Time `json:"requestReceivedTimestamp"`
}

// readStatusWrites returns every machines/status write in the audit log of namespace ns.
func readStatusWrites(ns string) ([]statusWrite, error) {
	f, err := os.Open(auditLog)
	if err != nil {
		return nil, fmt.Errorf("cannot read the audit log: %w", err)
	}
	defer f.Close()
	var out []statusWrite
	s := bufio.NewScanner(f)
	s.Buffer(make([]byte, 0, 64*1024), 4*1024*1024)
	for s.Scan() {
		var e auditEvent
		if err := json.Unmarshal(s.Bytes(), &e); err != nil {
			return nil, fmt.Errorf("cannot decode an audit event: %w", err)
		}
		if e.ObjectRef == nil || e.ObjectRef.Resource != "machines" || e.ObjectRef.Subresource != "status" || e.ObjectRef.Namespace != ns {
			continue
		}
		w := statusWrite{Namespace: e.ObjectRef.Namespace, Name: e.ObjectRef.Name, Received: e.RequestReceivedTimestamp}
		if u, err := url.Parse(e.RequestURI); err == nil {
			w.FieldManager = u.Query().Get("fieldManager")
		}
		if e.ResponseStatus != nil {
			w.Code = e.ResponseStatus.Code
		}
		out = append(out, w)
	}
	return out, s.Err()
}
