package describe

import (
	"context"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/dynamic"
)

// Shell completion, through cobra's __complete (the shells' scripts from `completion SHELL`,
// and kubectl for the plugin through kubectl_complete-machinestatus): resource types, then the
// names of the Machines (or Clusters, after cluster/) of the namespace; flag values of -n,
// --group-by and --color (-o: kubectl's print flags).

// resourceTypes are the TYPE spellings completed, in this order.
var resourceTypes = []string{"machines", "machine", "ma", "msm", "machines.cluster.x-k8s.io", "machines.machinestatus.io"}

// completeArgs completes get's and describe's arguments (verb: "get" or "describe").
func completeArgs(config *genericclioptions.ConfigFlags, verb string) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		types := slices.Clone(resourceTypes)
		if verb == "describe" {
			types = append(types, "cluster")
		}
		switch {
		case len(args) == 0 && strings.Contains(toComplete, "/"):
			typ, prefix, _ := strings.Cut(toComplete, "/")
			var names []string
			for _, n := range completeNames(cmd.Context(), config, typ, prefix) {
				names = append(names, typ+"/"+n)
			}
			return names, cobra.ShellCompDirectiveNoFileComp
		case len(args) == 0:
			var out []string
			for _, t := range types {
				if strings.HasPrefix(t, toComplete) {
					out = append(out, t)
				}
			}
			return out, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
		case !strings.Contains(args[0], "/"):
			names := completeNames(cmd.Context(), config, args[0], toComplete)
			names = slices.DeleteFunc(names, func(n string) bool { return slices.Contains(args[1:], n) })
			return names, cobra.ShellCompDirectiveNoFileComp
		}
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
}

// completeNames returns the names, starting with prefix, of the objects of type typ in the
// namespace the flags name: Machines of the APIs typ names, or Clusters for "cluster".
func completeNames(ctx context.Context, config *genericclioptions.ConfigFlags, typ, prefix string) []string {
	if ctx == nil {
		ctx = context.Background()
	}
	var apis []schema.GroupVersionResource
	if typ == "cluster" || typ == "clusters" {
		apis = []schema.GroupVersionResource{clusterAPIClusters}
	} else {
		apis = spelledAPIs(strings.ToLower(typ))
		if mapper, err := config.ToRESTMapper(); err == nil {
			if resolved, err := resolveType(typ, mapper); err == nil {
				apis = resolved
			}
		}
	}
	restConfig, err := config.ToRESTConfig()
	if err != nil {
		return nil
	}
	client, err := dynamic.NewForConfig(restConfig)
	if err != nil {
		return nil
	}
	namespace, _, err := config.ToRawKubeConfigLoader().Namespace()
	if err != nil {
		return nil
	}
	var names []string
	for _, api := range apis {
		list, err := client.Resource(api).Namespace(namespace).List(ctx, metav1.ListOptions{Limit: 1000})
		if err != nil {
			continue
		}
		for _, u := range list.Items {
			if n := u.GetName(); strings.HasPrefix(n, prefix) && !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
	}
	slices.Sort(names)
	return names
}

// registerFlagCompletions completes -n (the namespaces) and --color.
func registerFlagCompletions(cmd *cobra.Command, config *genericclioptions.ConfigFlags) {
	_ = cmd.RegisterFlagCompletionFunc("color", cobra.FixedCompletions(
		[]string{ColorAuto, ColorAlways, ColorNever}, cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("namespace", func(cmd *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		restConfig, err := config.ToRESTConfig()
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		client, err := dynamic.NewForConfig(restConfig)
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		list, err := client.Resource(schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}).List(cmd.Context(), metav1.ListOptions{})
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		var out []string
		for _, u := range list.Items {
			if strings.HasPrefix(u.GetName(), toComplete) {
				out = append(out, u.GetName())
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	})
}

// registerGroupByCompletion completes get's --group-by (kubectl's print flags complete -o).
func registerGroupByCompletion(cmd *cobra.Command) {
	_ = cmd.RegisterFlagCompletionFunc("group-by", cobra.FixedCompletions([]string{
		groupByPool, groupByCluster, groupByOwner, groupByLabel + "=",
	}, cobra.ShellCompDirectiveNoFileComp))
}
