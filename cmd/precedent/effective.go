package main

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"sigs.k8s.io/yaml"

	"github.com/precedent-dev/precedent/config"
	"github.com/precedent-dev/precedent/effective"
	"github.com/precedent-dev/precedent/topology"
)

func init() { subcommands = append(subcommands, newEffectiveCmd) }

func newEffectiveCmd() *cobra.Command {
	var files []string
	var kind, target, output string
	var cf clusterFlags
	cmd := &cobra.Command{
		Use:   "effective [-f PATH] --kind KIND [--target KIND/NAMESPACE/NAME] [-o json|yaml|table]",
		Short: "Print the effective policy of every Gateway/Route path that policies of a kind reach",
		Long: `Prints one item per path (gateway, listener, route, rule) reached by policies of KIND, with the
effective policy in bare form and, per rule id, the policy it came from. The listener and the rule are
shown only where a policy targets that section. Without -f, reads the cluster of the kubeconfig (like
kubectl: -n/--namespace limits the paths to routes in that namespace, -A shows all).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o, ns, err := load(cmd, files, &cf)
			if err != nil {
				return err
			}
			k, ok := o.registry.ByName(kind)
			if !ok {
				return &exitError{code: 2, err: fmt.Errorf("--kind %q is not a managed policy kind", kind)}
			}
			var t *topology.Target
			if target != "" {
				tt, err := parseTarget(target)
				if err != nil {
					return &exitError{code: 2, err: err}
				}
				t = &tt
			}
			o.noteUnnamed(cmd.ErrOrStderr())
			snap := o.snapshot(k)
			items := inNamespace(snap.Items(snap.Reached(t)), ns)
			if items == nil {
				items = []effective.Item{}
			}
			return printItems(cmd.OutOrStdout(), output, items)
		},
	}
	cmd.Flags().StringArrayVarP(&files, "filename", "f", nil, "file or folder of manifests (repeatable)")
	cmd.Flags().StringVar(&kind, "kind", "", "policy kind, e.g. AuthPolicy")
	cmd.Flags().StringVar(&target, "target", "", "only paths beneath this target: KIND/NAMESPACE/NAME, e.g. httproute/shop/cart")
	cmd.Flags().StringVarP(&output, "output", "o", "table", "output format: json, yaml or table")
	_ = cmd.MarkFlagRequired("kind")
	cf.add(cmd)
	return cmd
}

// load reads the files, or the cluster when there are none. ns is the namespace filter ("" = all).
func load(cmd *cobra.Command, files []string, cf *clusterFlags) (*input, string, error) {
	s := config.Defaults()
	if len(files) > 0 {
		o, err := loadFiles(files, s)
		return o, "", err
	}
	return loadCluster(cmd.Context(), cf, s, cmd.ErrOrStderr())
}

// inNamespace keeps the items whose route (or, for listener-only items, Gateway) is in ns.
func inNamespace(items []effective.Item, ns string) []effective.Item {
	if ns == "" {
		return items
	}
	var out []effective.Item
	for _, it := range items {
		where := it.Route
		if where == "" {
			where = it.Gateway
		}
		if strings.HasPrefix(where, ns+"/") {
			out = append(out, it)
		}
	}
	return out
}

// parseTarget reads KIND/NAMESPACE/NAME (or gatewayclass/NAME), kind case-insensitive.
func parseTarget(s string) (topology.Target, error) {
	parts := strings.Split(s, "/")
	kinds := map[string]string{"gateway": "Gateway", "httproute": "HTTPRoute", "grpcroute": "GRPCRoute", "gatewayclass": "GatewayClass"}
	k, ok := kinds[strings.ToLower(parts[0])]
	switch {
	case !ok:
		return topology.Target{}, fmt.Errorf("--target %q: kind must be one of gateway, httproute, grpcroute, gatewayclass", s)
	case k == "GatewayClass" && len(parts) == 2:
		return topology.Target{Kind: k, Name: parts[1]}, nil
	case len(parts) != 3 || parts[1] == "" || parts[2] == "":
		return topology.Target{}, fmt.Errorf("--target %q: want KIND/NAMESPACE/NAME", s)
	}
	return topology.Target{Kind: k, Namespace: parts[1], Name: parts[2]}, nil
}

func printItems(w io.Writer, format string, items []effective.Item) error {
	doc := map[string]interface{}{"items": items}
	switch format {
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(doc)
	case "yaml":
		b, err := yaml.Marshal(doc)
		if err != nil {
			return err
		}
		_, err = w.Write(b)
		return err
	case "table", "":
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "GATEWAY\tLISTENER\tROUTE\tRULE\tRULE ID\tFROM")
		for _, it := range items {
			ids := make([]string, 0, len(it.Sources))
			for id := range it.Sources {
				ids = append(ids, id)
			}
			sort.Strings(ids)
			if len(ids) == 0 {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", it.Gateway, dash(it.Listener), dash(it.Route), dash(it.Rule), "(none)", "-")
			}
			for _, id := range ids {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", it.Gateway, dash(it.Listener), dash(it.Route), dash(it.Rule), id, it.Sources[id])
			}
		}
		return tw.Flush()
	}
	return &exitError{code: 2, err: fmt.Errorf("-o %q: want json, yaml or table", format)}
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func sortedRouteTargets(g *topology.Graph) []topology.Target {
	out := make([]topology.Target, 0, len(g.Routes))
	for t := range g.Routes {
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out
}
