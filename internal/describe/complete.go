package describe

import (
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/resource"
)

// Shell completion, through cobra's __complete (the shells' scripts from `completion SHELL`,
// and kubectl for the plugin through kubectl_complete-machinestatus): resource types, then the
// names of the Machines (or Clusters, after cluster/) of the namespace; flag values of -n,
// --group-by and --color (-o: kubectl's print flags).

// resourceTypes are the TYPE spellings completed, in this order.
var resourceTypes = []string{"machines", "machine", "ma", "msm", "machines.cluster.x-k8s.io", "machines.machinestatus.io"}

// completeArgs completes get's and describe's arguments (verb: "get" or "describe").
func completeArgs(config *genericclioptions.ConfigFlags, verb string) cobra.CompletionFunc {
	return func(_ *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		types := slices.Clone(resourceTypes)
		if verb == "describe" {
			types = append(types, "cluster")
		}
		switch {
		case len(args) == 0 && strings.Contains(toComplete, "/"):
			typ, prefix, _ := strings.Cut(toComplete, "/")
			var names []string
			for _, n := range completeNames(config, typ, prefix) {
				names = append(names, typ+"/"+n)
			}
			return names, cobra.ShellCompDirectiveNoFileComp
		case len(args) == 0:
			types = slices.DeleteFunc(types, func(t string) bool { return !strings.HasPrefix(t, toComplete) })
			return types, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
		case !strings.Contains(args[0], "/"):
			names := completeNames(config, args[0], toComplete)
			names = slices.DeleteFunc(names, func(n string) bool { return slices.Contains(args[1:], n) })
			return names, cobra.ShellCompDirectiveNoFileComp
		}
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
}

// completeNames returns the names, starting with prefix, of the objects of type typ in the
// namespace the flags name: Machines of the APIs typ names, or Clusters for "cluster".
func completeNames(config *genericclioptions.ConfigFlags, typ, prefix string) []string {
	apis := []schema.GroupVersionResource{clusterAPIClusters}
	if typ != "cluster" && typ != "clusters" {
		mapper, err := config.ToRESTMapper()
		if err != nil {
			return nil
		}
		if apis, err = resolveType(typ, mapper); err != nil {
			return nil
		}
	}
	types := make([]string, len(apis))
	for i, api := range apis {
		types[i] = api.Resource + "." + api.Version + "." + api.Group
	}
	names := listNames(config, strings.Join(types, ","), prefix)
	slices.Sort(names)
	return slices.Compact(names)
}

// listNames returns the names, starting with prefix, of the objects of the resource types (as
// kubectl get reads TYPE[,TYPE...]) in the namespace the flags name, as far as they can be read.
func listNames(config *genericclioptions.ConfigFlags, types, prefix string) []string {
	namespace, _, err := config.ToRawKubeConfigLoader().Namespace()
	if err != nil {
		return nil
	}
	infos, _ := resource.NewBuilder(config).Unstructured().NamespaceParam(namespace).DefaultNamespace().
		ResourceTypeOrNameArgs(true, types).ContinueOnError().Flatten().Do().Infos()
	var names []string
	for _, info := range infos {
		if strings.HasPrefix(info.Name, prefix) {
			names = append(names, info.Name)
		}
	}
	return names
}

// registerFlagCompletions completes -n (the namespaces) and --color.
func registerFlagCompletions(cmd *cobra.Command, config *genericclioptions.ConfigFlags) {
	_ = cmd.RegisterFlagCompletionFunc("color", cobra.FixedCompletions(
		[]string{ColorAuto, ColorAlways, ColorNever}, cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("namespace", func(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		return listNames(config, "namespaces", toComplete), cobra.ShellCompDirectiveNoFileComp
	})
}

// registerGroupByCompletion completes get's --group-by (kubectl's print flags complete -o).
func registerGroupByCompletion(cmd *cobra.Command) {
	_ = cmd.RegisterFlagCompletionFunc("group-by", cobra.FixedCompletions([]string{
		groupByPool, groupByCluster, groupByOwner, groupByLabel + "=",
	}, cobra.ShellCompDirectiveNoFileComp))
}
