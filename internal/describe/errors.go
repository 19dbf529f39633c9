package describe

import (
	"fmt"
	"strings"
)

// UsageError says that the command line is wrong (unknown resource type, a name with
// --all-namespaces, an unknown output format). The command exits with ExitUsage.
type UsageError struct {
	// Msg says what is wrong and what to type instead.
	Msg string
}

// Error implements error.
func (e *UsageError) Error() string { return e.Msg }

// NotInstalledError says that the API server does not serve the Machine API(s) asked for:
// the CRD is not installed (or, for Cluster API, not served at v1beta2).
type NotInstalledError struct {
	// Resources are the resources looked for, e.g. "machines.cluster.x-k8s.io".
	Resources []string
	// Hint says what to install, or which version is served instead; may be empty.
	Hint string
}

// Error implements error.
func (e *NotInstalledError) Error() string {
	msg := fmt.Sprintf("the server does not serve %s", strings.Join(e.Resources, " or "))
	if e.Hint != "" {
		msg += ": " + e.Hint
	}
	return msg
}

// NotFoundError says that a Machine named on the command line exists in none of the Machine
// APIs looked in.
type NotFoundError struct {
	// Name and Namespace name the Machine.
	Name, Namespace string
	// Resources are the resources looked in, e.g. "machines.machinestatus.io".
	Resources []string
}

// Error implements error.
func (e *NotFoundError) Error() string {
	return fmt.Sprintf("machine %q not found in namespace %q (looked in %s)",
		e.Name, e.Namespace, strings.Join(e.Resources, " and "))
}
