package main

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/precedent-dev/precedent/effective"
	"github.com/precedent-dev/precedent/policy"
)

func init() { subcommands = append(subcommands, newExplainCmd) }

type explainFlags struct {
	files   []string
	kind    string
	output  string
	cluster clusterFlags
	target  string
	rule    string
	policy  string
	reach   bool
}

func newExplainCmd() *cobra.Command {
	var f explainFlags
	cmd := &cobra.Command{
		Use:   "explain [-f PATH] --kind KIND (--target KIND/NS/NAME --rule ID | --policy NS/NAME | --reach --rule ID [--policy NS/NAME])",
		Short: "Say why an effective policy has (or lacks) a rule, what became of a policy's rules, or where a rule reaches",
		Long: `Three views of the same engine:
  --target T --rule ID     for each path beneath T, the chain of policies in fold order and what each
                           did to rule ID (added, kept, replaced, overridden, unset, clipped)
  --policy NS/NAME         every rule of that policy: the paths where it is in effect, and where a
                           more specific or overriding policy replaced it (view-policy-rule-status)
  --reach --rule ID        every path whose effective policy holds rule ID, and from which policy
                           (view-policy-rule-reach; with --policy, only that policy's rule)
Without -f, reads the cluster of the kubeconfig.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return f.run(cmd) },
	}
	cmd.Flags().StringArrayVarP(&f.files, "filename", "f", nil, "file or folder of manifests (repeatable)")
	cmd.Flags().StringVar(&f.kind, "kind", "", "policy kind, e.g. AuthPolicy")
	cmd.Flags().StringVar(&f.target, "target", "", "KIND/NAMESPACE/NAME, e.g. httproute/shop/cart")
	cmd.Flags().StringVar(&f.rule, "rule", "", "rule id, e.g. authorization.b or a limit name")
	cmd.Flags().StringVar(&f.policy, "policy", "", "NAMESPACE/NAME of a policy of KIND")
	cmd.Flags().BoolVar(&f.reach, "reach", false, "list the paths that rule --rule reaches")
	cmd.Flags().StringVarP(&f.output, "output", "o", "text", "output format: text or json")
	_ = cmd.MarkFlagRequired("kind")
	f.cluster.add(cmd)
	return cmd
}

func (f *explainFlags) run(cmd *cobra.Command) error {
	o, _, err := load(cmd, f.files, &f.cluster)
	if err != nil {
		return err
	}
	k, ok := o.registry.ByName(f.kind)
	if !ok {
		return &exitError{code: 2, err: fmt.Errorf("--kind %q is not a managed policy kind", f.kind)}
	}
	snap := o.snapshot(k)
	var ref *policy.Ref
	if f.policy != "" {
		ns, name, ok := strings.Cut(f.policy, "/")
		if !ok || ns == "" || name == "" {
			return &exitError{code: 2, err: fmt.Errorf("--policy %q: want NAMESPACE/NAME", f.policy)}
		}
		ref = &policy.Ref{Namespace: ns, Name: name}
	}
	w := cmd.OutOrStdout()
	switch {
	case f.reach:
		if f.rule == "" {
			return &exitError{code: 2, err: fmt.Errorf("--reach needs --rule")}
		}
		return f.print(w, snap.Reach(f.rule, ref), func() { printReach(w, f.rule, snap.Reach(f.rule, ref)) })
	case f.target != "":
		if f.rule == "" {
			return &exitError{code: 2, err: fmt.Errorf("--target needs --rule")}
		}
		t, err := parseTarget(f.target)
		if err != nil {
			return &exitError{code: 2, err: err}
		}
		var exs []effective.Explanation
		seen := map[effective.ItemKey]bool{}
		for _, i := range snap.Graph.PathsFor(t) {
			path := snap.Graph.Paths[i]
			if k := snap.KeyOf(path); !seen[k] {
				seen[k] = true
				exs = append(exs, snap.Explain(path, f.rule))
			}
		}
		if len(exs) == 0 {
			return &exitError{code: 1, err: fmt.Errorf("%s: no Gateway/Route path beneath it", t)}
		}
		return f.print(w, exs, func() { printExplanations(w, exs) })
	case ref != nil:
		p, ok := snap.Policy(*ref)
		if !ok {
			return &exitError{code: 1, err: fmt.Errorf("%s %s not found", k.GVK.Kind, ref)}
		}
		st := snap.RuleStatuses(p)
		return f.print(w, st, func() { printRuleStatus(w, *ref, st) })
	}
	return &exitError{code: 2, err: fmt.Errorf("give --target with --rule, --policy, or --reach with --rule")}
}

func (f *explainFlags) print(w io.Writer, v interface{}, text func()) error {
	switch f.output {
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	case "text", "":
		text()
		return nil
	}
	return &exitError{code: 2, err: fmt.Errorf("-o %q: want text or json", f.output)}
}

func pathString(k effective.ItemKey) string {
	s := "gateway " + k.Gateway
	if k.Listener != "" {
		s += " listener " + k.Listener
	}
	if k.Route != "" {
		s = "route " + k.Route + " (" + s + ")"
	}
	if k.Rule != "" {
		s += " rule " + k.Rule
	}
	return s
}

func printExplanations(w io.Writer, exs []effective.Explanation) {
	for _, ex := range exs {
		fmt.Fprintln(w, pathString(ex.Path))
		if ex.From != nil {
			fmt.Fprintf(w, "  %s is in effect, from %s\n", ex.Rule, ex.From)
		} else {
			fmt.Fprintf(w, "  %s is not in the effective policy\n", ex.Rule)
		}
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		for i, st := range ex.Steps {
			other := ""
			if st.Other != nil {
				other = st.Other.String()
			}
			fmt.Fprintf(tw, "  %d.\t%s\t%s\t%s\t%s\t%s\n", i+1, st.Level, st.Policy, st.Block, st.Action, other)
		}
		tw.Flush()
	}
}

func printRuleStatus(w io.Writer, ref policy.Ref, st []effective.RuleStatus) {
	for _, r := range st {
		fmt.Fprintf(w, "%s %s: in effect on %d path%s, replaced on %d\n", ref, r.Rule, len(r.InEffect), plural(len(r.InEffect)), len(r.Replaced))
		rep := append([]effective.ReplacedRuleAt(nil), r.Replaced...)
		sort.SliceStable(rep, func(i, j int) bool { return pathString(rep[i].Path) < pathString(rep[j].Path) })
		for _, at := range rep {
			by := ""
			if at.By != nil {
				by = " by " + at.By.String()
			}
			fmt.Fprintf(w, "  %s on %s%s\n", at.How, pathString(at.Path), by)
		}
	}
}

func printReach(w io.Writer, rule string, rs []effective.ReachedPath) {
	fmt.Fprintf(w, "%s reaches %d path%s\n", rule, len(rs), plural(len(rs)))
	for _, r := range rs {
		fmt.Fprintf(w, "  %s from %s\n", pathString(r.Path), r.From)
	}
}
