package describe

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	"github.com/machinestatus/machinestatus/api/v1alpha1"
)

// The Machine APIs describe reads, each at the one version it understands.
var (
	// MachinestatusMachines is machines.machinestatus.io, read at v1alpha1.
	MachinestatusMachines = v1alpha1.GroupVersion.WithResource("machines")
	// ClusterAPIMachines is machines.cluster.x-k8s.io, read at v1beta2 (Cluster API v1.11+).
	ClusterAPIMachines = clusterv1.GroupVersion.WithResource("machines")
)

// machineAPIs lists the Machine APIs in the order describe prints them.
var machineAPIs = []schema.GroupVersionResource{MachinestatusMachines, ClusterAPIMachines}

// Target is one thing the command line asks for: a Machine by name, or every Machine, in one
// or more Machine APIs.
type Target struct {
	// APIs are the Machine APIs to look in, each one of machineAPIs, in that order; at least one.
	APIs []schema.GroupVersionResource
	// Name is the Machine's name; empty means every Machine (of the namespace, or of all).
	Name string
}

// ParseArgs turns describe's arguments into targets, the way kubectl reads `TYPE [NAME...]` or
// `TYPE/NAME...`; no argument means every Machine. TYPE is any spelling the API server's
// discovery resolves (through mapper) to Machines: `machine`, `machines` (every Machine API
// served), the short names (`ma` for Cluster API, `msm` for machinestatus), or a qualified
// `machines.cluster.x-k8s.io`, `machines.v1beta2.cluster.x-k8s.io`, `machines.machinestatus.io`.
//
// It returns a *UsageError for a malformed command line or a TYPE that is not a Machine, a
// *NotInstalledError when no Machine API that TYPE names is served (at the version describe
// reads), or the mapper's error when discovery fails.
func ParseArgs(args []string, mapper meta.RESTMapper) ([]Target, error) {
	if len(args) == 0 {
		args = []string{"machines"}
	}
	if strings.Contains(args[0], "/") {
		var targets []Target
		for _, arg := range args {
			typ, name, ok := strings.Cut(arg, "/")
			if !ok || typ == "" || name == "" || strings.Contains(name, "/") {
				return nil, &UsageError{Msg: fmt.Sprintf("%q is not TYPE/NAME: with one TYPE/NAME argument, every argument must be TYPE/NAME", arg)}
			}
			apis, err := resolveType(typ, mapper)
			if err != nil {
				return nil, err
			}
			targets = append(targets, Target{APIs: apis, Name: name})
		}
		return targets, nil
	}
	apis, err := resolveType(args[0], mapper)
	if err != nil {
		return nil, err
	}
	if len(args) == 1 {
		return []Target{{APIs: apis}}, nil
	}
	targets := make([]Target, 0, len(args)-1)
	for _, name := range args[1:] {
		if name == "" || strings.Contains(name, "/") {
			return nil, &UsageError{Msg: fmt.Sprintf("%q is not a Machine name: use either TYPE NAME... or TYPE/NAME...", name)}
		}
		targets = append(targets, Target{APIs: apis, Name: name})
	}
	return targets, nil
}

// resolveType returns the Machine APIs a resource type names, as ParseArgs documents.
func resolveType(typ string, mapper meta.RESTMapper) ([]schema.GroupVersionResource, error) {
	typ = strings.ToLower(typ)
	fullySpecified, groupResource := schema.ParseResourceArg(typ)
	var found []schema.GroupVersionResource
	versioned := false
	if fullySpecified != nil {
		if gvrs, err := mapper.ResourcesFor(*fullySpecified); err == nil && len(gvrs) > 0 {
			found, versioned = gvrs, true
		}
	}
	if !versioned {
		gvrs, err := mapper.ResourcesFor(groupResource.WithVersion(""))
		switch {
		case meta.IsNoMatchError(err) || (err == nil && len(gvrs) == 0):
			return nil, notServed(typ)
		case err != nil:
			return nil, fmt.Errorf("cannot resolve resource type %q: %w", typ, err)
		}
		found = gvrs
	}

	var apis []schema.GroupVersionResource
	var missing []string
	var hints []string
	for _, api := range machineAPIs {
		var versions []string
		for _, gvr := range found {
			if gvr.GroupResource() == api.GroupResource() && !slices.Contains(versions, gvr.Version) {
				versions = append(versions, gvr.Version)
			}
		}
		switch {
		case len(versions) == 0:
			continue
		case slices.Contains(versions, api.Version):
			apis = append(apis, api)
		case versioned:
			return nil, &UsageError{Msg: fmt.Sprintf("describe reads %s at %s only, not %s",
				api.GroupResource(), api.Version, strings.Join(versions, ", "))}
		default:
			missing = append(missing, api.GroupResource().String())
			hints = append(hints, fmt.Sprintf("%s is served at %s, describe reads %s", api.GroupResource(),
				strings.Join(versions, ", "), api.Version))
		}
	}
	switch {
	case len(apis) > 0:
		return apis, nil
	case len(missing) > 0:
		return nil, &NotInstalledError{Resources: missing, Hint: strings.Join(hints, "; ")}
	}
	var names []string
	for _, gvr := range found {
		if name := gvr.GroupResource().String(); !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	return nil, &UsageError{Msg: fmt.Sprintf("%q is %s, not a Machine: describe reads %s",
		typ, strings.Join(names, ", "), strings.Join(apiNames(machineAPIs), " and "))}
}

// notServed returns the error for a type that discovery does not know: a *NotInstalledError
// when typ is a spelling of a Machine API (so the CRD is missing), else a *UsageError.
func notServed(typ string) error {
	apis := spelledAPIs(typ)
	if len(apis) == 0 {
		return &UsageError{Msg: fmt.Sprintf("unknown resource type %q: describe reads Machines: machine/NAME, machines.cluster.x-k8s.io/NAME or machines.machinestatus.io NAME", typ)}
	}
	return notInstalled(apis)
}

// notInstalled returns the *NotInstalledError for apis, saying what to install.
func notInstalled(apis []schema.GroupVersionResource) *NotInstalledError {
	hints := make([]string, 0, len(apis))
	for _, api := range apis {
		switch api {
		case MachinestatusMachines:
			hints = append(hints, "install the machinestatus CRD (make install)")
		case ClusterAPIMachines:
			hints = append(hints, "install Cluster API v1.11 or later")
		}
	}
	return &NotInstalledError{Resources: apiNames(apis), Hint: strings.Join(hints, ", or ")}
}

// spelledAPIs returns the Machine APIs a lower-case resource type names without asking the
// server: machine(s) names both, a group or short name one of them.
func spelledAPIs(typ string) []schema.GroupVersionResource {
	resource, group, _ := strings.Cut(typ, ".")
	// Drop a version in front of the group, as in machines.v1beta2.cluster.x-k8s.io.
	for _, api := range machineAPIs {
		if strings.HasSuffix(group, "."+api.Group) {
			group = api.Group
		}
	}
	switch {
	case resource == "ma" && (group == "" || group == ClusterAPIMachines.Group):
		return []schema.GroupVersionResource{ClusterAPIMachines}
	case resource == "msm" && (group == "" || group == MachinestatusMachines.Group):
		return []schema.GroupVersionResource{MachinestatusMachines}
	case resource != "machine" && resource != "machines":
		return nil
	case group == "":
		return machineAPIs
	}
	for _, api := range machineAPIs {
		if group == api.Group {
			return []schema.GroupVersionResource{api}
		}
	}
	return nil
}

// apiNames returns each API's resource.group, e.g. "machines.cluster.x-k8s.io".
func apiNames(apis []schema.GroupVersionResource) []string {
	out := make([]string, len(apis))
	for i, api := range apis {
		out[i] = api.GroupResource().String()
	}
	return out
}
