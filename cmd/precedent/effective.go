package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"sigs.k8s.io/yaml"

	"github.com/precedent-dev/precedent/internal/effective"
	"github.com/precedent-dev/precedent/internal/picture"
	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/printable"
	"github.com/precedent-dev/precedent/internal/topology"
	"github.com/precedent-dev/precedent/profiles"
)

func init() { subcommands = append(subcommands, newEffectiveCmd) }

func newEffectiveCmd() *cobra.Command {
	var src sources
	var kind, target, output string
	cmd := &cobra.Command{
		Use:   "effective [[-f] PATH ...] [--kind KIND] [--target KIND/[NAMESPACE/]NAME] [-o json|yaml|table|wide|dot|mermaid]",
		Short: "Print the effective policy of every Gateway/Route path that policies of a kind reach",
		Long: `Prints one item per path (gateway, listener, route, rule) reached by policies of KIND (without
--kind, of every managed kind that has an effective policy per path, with a KIND column), with the
effective policy in bare form and, per rule id, the policy it came from. The listener and the rule are
shown only where a policy targets that section. Without -f, reads the cluster of the kubeconfig (like
kubectl: -n/--namespace limits the paths to routes in that namespace, -A shows all, and every kubectl
connection flag works: --context, --as, --as-group, --request-timeout, ...); --target
KIND/NAMESPACE/NAME is looked up in its own namespace, KIND/NAME in the namespace of -n (else the
context's), and a target that does not exist is an error (exit 1). Paths given as arguments count
as -f.

` + kindHelp + "\n\n" + settingsHelp + "\n\n" + uncheckedHelp,
		Example: `  # every managed kind, from files
  precedent effective config/samples/rfc
  # one kind beneath one route, as JSON
  precedent effective -f config/samples/rfc --kind AuthPolicy --target httproute/c1/route -o json
  # a picture of the hierarchy: which policy wins where
  precedent effective -f config/samples/rfc --kind AuthPolicy -o dot
  # from the cluster: routes in namespace c1, TYPE/NAME as kubectl takes it
  precedent effective --kind AuthPolicy -n c1 --target httproute/route`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			paths, err := splitArgs(args, &target)
			if err != nil {
				return err
			}
			src.files = append(src.files, paths...)
			t, err := optionalTarget(target, &src)
			if err != nil {
				return err
			}
			src.cluster.kind = kind
			o, ns, err := src.load(cmd, t.Namespace)
			if err != nil {
				return err
			}
			kinds, err := effectiveKinds(o, kind)
			if err != nil {
				return err
			}
			o.leaveOutUnaccepted(kind)
			o.keepUnacceptedIn(ns)
			var under *topology.Target
			if target != "" {
				under = &t
			}
			var all []effective.Item
			for _, k := range kinds {
				items, err := profiles.For(k.GVK.GroupKind(), o.registry).Effective(o.offline(), k, under)
				switch {
				case err != nil && kind == "":
					continue // a model without paths, such as mesh: not among "every kind"
				case err != nil:
					return &exitError{Code: 2, Err: err}
				}
				all = append(all, withGroup(items, k)...)
			}
			o.notes(cmd.ErrOrStderr(), src.opts.notes())
			if under != nil && !o.topology().Exists(t) {
				return targetNotFound(t)
			}
			o.noteUnnamed(cmd.ErrOrStderr(), src.opts.notes(), ns)
			for _, k := range kinds {
				if !slices.ContainsFunc(all, func(it effective.Item) bool { return it.Kind == k.GVK.Kind }) {
					continue // no effective policy of this kind: no order to depend on
				}
				if err := warnOrder(cmd.ErrOrStderr(), o, k, under, ns); err != nil {
					return err
				}
			}
			items := inNamespace(all, ns)
			if items == nil {
				items = []effective.Item{}
			}
			switch output {
			case "dot":
				return picture.DOT(cmd.OutOrStdout(), drawing(o, kinds, items))
			case "mermaid":
				return picture.Mermaid(cmd.OutOrStdout(), drawing(o, kinds, items))
			}
			if len(items) == 0 && (output == "table" || output == "wide" || output == "") {
				noResources(cmd.ErrOrStderr(), ns, len(src.files) > 0)
				return nil
			}
			return printItems(cmd.OutOrStdout(), output, items, kind == "", twins(o))
		},
	}
	src.addOffline(cmd)
	cmd.Flags().StringVar(&kind, "kind", "", "policy kind: Kind or Kind.group, e.g. AuthPolicy or RateLimitPolicy.kuadrant.io")
	cmd.Flags().StringVar(&target, "target", "", "only paths beneath this target: KIND/NAMESPACE/NAME, e.g. httproute/shop/cart")
	cmd.Flags().StringVarP(&output, "output", "o", "table", "output format: json, yaml, table, wide (the table with each rule's value), or a picture of the hierarchy: dot (Graphviz) or mermaid")
	src.cluster.add(cmd, true)
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

// splitArgs separates the positional arguments as kubectl reads them: TYPE/NAME (or
// TYPE/NAMESPACE/NAME) of a Gateway API kind, when no file or folder of that name exists, is the
// target; the others are paths (-f). A second target, or one beside --target, is an exit-2 error.
func splitArgs(args []string, target *string) (paths []string, err error) {
	for _, a := range args {
		if _, statErr := os.Stat(a); statErr == nil || a == "-" || !strings.Contains(a, "/") {
			paths = append(paths, a)
			continue
		}
		if _, perr := parseTarget(a); perr != nil {
			paths = append(paths, a) // not a target: a path, which reading reports if missing
			continue
		}
		if *target != "" {
			return nil, &exitError{Code: 2, Err: fmt.Errorf("%s: a target is given already (%s): give one", a, *target)}
		}
		*target = a
	}
	return paths, nil
}

// optionalTarget parses --target when given (the zero Target when not); malformed is exit 2. A
// TYPE/NAME target (kubectl's form) is looked up in the namespace of src: -n, else the context's.
func optionalTarget(s string, src *sources) (topology.Target, error) {
	if s == "" {
		return topology.Target{}, nil
	}
	t, err := parseTarget(s)
	if err != nil {
		return t, &exitError{Code: 2, Err: err}
	}
	if t.Namespace == "" && t.Kind != "GatewayClass" {
		if t.Namespace, err = src.namespace(); err != nil {
			return t, &exitError{Code: 2, Err: err}
		}
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

// targetKinds are the topology kinds a target names, by kubectl's singular and plural resource names.
var targetKinds = map[string]string{
	"gateway": "Gateway", "gateways": "Gateway", "gatewayclass": "GatewayClass", "gatewayclasses": "GatewayClass",
	"httproute": "HTTPRoute", "httproutes": "HTTPRoute", "grpcroute": "GRPCRoute", "grpcroutes": "GRPCRoute",
	"listenerset": "ListenerSet", "listenersets": "ListenerSet", "tlsroute": "TLSRoute", "tlsroutes": "TLSRoute",
	"tcproute": "TCPRoute", "tcproutes": "TCPRoute", "udproute": "UDPRoute", "udproutes": "UDPRoute",
}

// parseTarget reads KIND/NAMESPACE/NAME, KIND/NAME (Namespace left "" for the caller to fill) or
// gatewayclass/NAME, kind case-insensitive, singular or plural, with or without the group.
func parseTarget(s string) (topology.Target, error) {
	parts := strings.Split(s, "/")
	word := strings.TrimSuffix(strings.ToLower(parts[0]), "."+topology.Group)
	k, ok := targetKinds[word]
	switch {
	case !ok:
		return topology.Target{}, fmt.Errorf("--target %q: kind must be one of gateway, httproute, grpcroute, gatewayclass, listenerset, tlsroute, tcproute, udproute", s)
	case len(parts) == 2 && parts[1] != "":
		return topology.Target{Kind: k, Name: parts[1]}, nil // cluster-scoped, or in the namespace of -n
	case k == "GatewayClass" || len(parts) != 3 || parts[1] == "" || parts[2] == "":
		return topology.Target{}, fmt.Errorf("--target %q: want KIND/NAME or KIND/NAMESPACE/NAME", s)
	}
	return topology.Target{Kind: k, Namespace: parts[1], Name: parts[2]}, nil
}

// noResources says there is nothing to show, as kubectl get says it (on stderr).
func noResources(w io.Writer, ns string, files bool) {
	if ns == "" || files {
		fmt.Fprintln(w, "No resources found")
		return
	}
	fmt.Fprintf(w, "No resources found in %s namespace.\n", printable.String(ns))
}

// effectiveKinds are the kinds named by --kind, or every managed kind when it is "".
func effectiveKinds(o *input, kind string) ([]policy.Kind, error) {
	if kind != "" {
		k, err := o.resolveAny(kind)
		return []policy.Kind{k}, err
	}
	return o.registry.Kinds(), nil
}

// writeItemsJSON writes {"items": items} as a json.Encoder indenting by two spaces writes it, one
// item at a time: the encoder makes the whole document, then its indented copy, before it writes
// (at 10x, docs/performance.md, 63 MB of output held three times over at the end of the run).
func writeItemsJSON(w io.Writer, items []effective.Item) error {
	if len(items) == 0 { // [] or null, as the encoder writes them
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(map[string]interface{}{"items": items})
	}
	bw := bufio.NewWriter(w)
	bw.WriteString("{\n  \"items\": [\n")
	for i := range items {
		b, err := json.MarshalIndent(&items[i], "    ", "  ")
		if err != nil {
			return err
		}
		bw.WriteString("    ")
		bw.Write(b)
		if i < len(items)-1 {
			bw.WriteByte(',')
		}
		bw.WriteByte('\n')
	}
	bw.WriteString("  ]\n}\n")
	return bw.Flush()
}

// printItems prints the items; withKind adds a KIND column to the table (several kinds shown).
func printItems(w io.Writer, format string, items []effective.Item, withKind bool, twins map[string]bool) error {
	wide := format == "wide"
	doc := map[string]interface{}{"items": items}
	switch format {
	case "json":
		return writeItemsJSON(w, items)
	case "yaml":
		b, err := yaml.Marshal(doc)
		if err != nil {
			return err
		}
		_, err = w.Write(b)
		return err
	case "table", "", "wide":
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		head := []string{"GATEWAY", "LISTENER", "ROUTE", "RULE", "RULE ID", "FROM"}
		if wide {
			head = append(head, "VALUE")
		}
		if withKind {
			head = append([]string{"KIND"}, head...)
		}
		fmt.Fprintln(tw, strings.Join(head, "\t"))
		for _, it := range items {
			ids := make([]string, 0, len(it.Sources))
			for id := range it.Sources {
				ids = append(ids, id)
			}
			sort.Strings(ids)
			if len(ids) == 0 {
				ids = append(ids, "")
			}
			for _, id := range ids {
				cells := []string{it.Gateway, dash(it.Listener), dash(it.Route), dash(it.Rule), id, it.Sources[id]}
				if id == "" {
					cells[4], cells[5] = "(none)", "-"
				}
				if wide {
					cells = append(cells, "-")
					if id != "" {
						cells[len(cells)-1] = ruleValue(it.Spec, id)
					}
				}
				if withKind {
					cells = append([]string{qualified(it.Kind, it.Group, twins)}, cells...)
				}
				row(tw, cells...)
			}
		}
		return tw.Flush()
	}
	return &exitError{Code: 2, Err: fmt.Errorf("-o %q: want json, yaml, table, wide, dot or mermaid", format)}
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
