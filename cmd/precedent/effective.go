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

	"github.com/precedent-dev/precedent/internal/effective"
	"github.com/precedent-dev/precedent/internal/printable"
	"github.com/precedent-dev/precedent/internal/topology"
	"github.com/precedent-dev/precedent/profiles"
)

func init() { subcommands = append(subcommands, newEffectiveCmd) }

func newEffectiveCmd() *cobra.Command {
	var src sources
	var kind, target, output string
	cmd := &cobra.Command{
		Use:   "effective [-f PATH] --kind KIND [--target KIND/NAMESPACE/NAME] [-o json|yaml|table]",
		Short: "Print the effective policy of every Gateway/Route path that policies of a kind reach",
		Long: `Prints one item per path (gateway, listener, route, rule) reached by policies of KIND, with the
effective policy in bare form and, per rule id, the policy it came from. The listener and the rule are
shown only where a policy targets that section. Without -f, reads the cluster of the kubeconfig (like
kubectl: -n/--namespace limits the paths to routes in that namespace, -A shows all); --target is
looked up in its own namespace, and a target that does not exist is an error (exit 1).

` + kindHelp + "\n\n" + settingsHelp + "\n\n" + uncheckedHelp,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			t, err := optionalTarget(target)
			if err != nil {
				return err
			}
			o, ns, err := src.load(cmd, t.Namespace)
			if err != nil {
				return err
			}
			k, err := o.resolveAny(kind)
			if err != nil {
				return err
			}
			var under *topology.Target
			if target != "" {
				under = &t
			}
			all, err := profiles.For(k.GVK.GroupKind(), o.registry).Effective(o.offline(), k, under)
			if err != nil {
				return &exitError{Code: 2, Err: err} // a model without paths, such as mesh
			}
			o.notes(cmd.ErrOrStderr())
			if under != nil && !o.graph.Exists(t) {
				return targetNotFound(t)
			}
			o.noteUnnamed(cmd.ErrOrStderr())
			if err := warnOrder(cmd.ErrOrStderr(), o, k, under, ns); err != nil {
				return err
			}
			items := inNamespace(all, ns)
			if items == nil {
				items = []effective.Item{}
			}
			return printItems(cmd.OutOrStdout(), output, items)
		},
	}
	src.addOffline(cmd)
	cmd.Flags().StringVar(&kind, "kind", "", "policy kind: Kind or Kind.group, e.g. AuthPolicy or RateLimitPolicy.kuadrant.io")
	cmd.Flags().StringVar(&target, "target", "", "only paths beneath this target: KIND/NAMESPACE/NAME, e.g. httproute/shop/cart")
	cmd.Flags().StringVarP(&output, "output", "o", "table", "output format: json, yaml or table")
	_ = cmd.MarkFlagRequired("kind")
	src.cluster.add(cmd)
	return cmd
}

// kindHelp and settingsHelp are shared by the help of the commands that take --kind.
const (
	kindHelp = `--kind takes Kind or Kind.group (RateLimitPolicy.kuadrant.io), case-insensitive, as kubectl takes
resource.group; a Kind that more than one managed group has is an error listing them.`
	settingsHelp = `Settings (managed kinds, unset switch, ...): --config FILE wins; else, with -f, the PrecedentConfig
in the input; else, without -f, the cluster's PrecedentConfig named cluster; else the defaults. With -f,
objects of a kind whose CRD is in the input (or given with --crd) are first checked against the CRD's
schema and x-kubernetes-validations, as the API server would; those it would reject are left out.`
)

// optionalTarget parses --target when given (the zero Target when not); malformed is exit 2.
func optionalTarget(s string) (topology.Target, error) {
	if s == "" {
		return topology.Target{}, nil
	}
	t, err := parseTarget(s)
	if err != nil {
		return t, &exitError{Code: 2, Err: err}
	}
	return t, nil
}

// targetNotFound is the exit-1 error for a --target that does not exist, as kubectl get says it.
func targetNotFound(t topology.Target) error {
	return &exitError{Code: 1, Err: fmt.Errorf("%s not found", printable.String(t.String()))}
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
	kinds := map[string]string{"gateway": "Gateway", "httproute": "HTTPRoute", "grpcroute": "GRPCRoute", "gatewayclass": "GatewayClass",
		"listenerset": "ListenerSet", "tlsroute": "TLSRoute", "tcproute": "TCPRoute", "udproute": "UDPRoute"}
	k, ok := kinds[strings.ToLower(parts[0])]
	switch {
	case !ok:
		return topology.Target{}, fmt.Errorf("--target %q: kind must be one of gateway, httproute, grpcroute, gatewayclass, listenerset, tlsroute, tcproute, udproute", s)
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
				row(tw, it.Gateway, dash(it.Listener), dash(it.Route), dash(it.Rule), "(none)", "-")
			}
			for _, id := range ids {
				row(tw, it.Gateway, dash(it.Listener), dash(it.Route), dash(it.Rule), id, it.Sources[id])
			}
		}
		return tw.Flush()
	}
	return &exitError{Code: 2, Err: fmt.Errorf("-o %q: want json, yaml or table", format)}
}

// row writes one table row, each cell escaped (names and rule ids come from the objects).
func row(w io.Writer, cells ...string) {
	for i, c := range cells {
		cells[i] = printable.String(c)
	}
	fmt.Fprintln(w, strings.Join(cells, "\t"))
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func sortedRouteTargets(g *topology.Graph) []topology.Target {
	out := g.RouteTargets()
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out
}
