package main

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/precedent-dev/precedent/internal/effective"
	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/printable"
	"github.com/precedent-dev/precedent/internal/profile"
	"github.com/precedent-dev/precedent/internal/topology"
	"github.com/precedent-dev/precedent/profiles"
)

func init() { subcommands = append(subcommands, newExplainCmd) }

type explainFlags struct {
	src    sources
	kind   string
	output string
	target string
	rule   string
	policy string
	reach  bool
}

func newExplainCmd() *cobra.Command {
	var f explainFlags
	cmd := &cobra.Command{
		Use:   "explain [[-f] PATH ...] --kind KIND (--target KIND/[NS/]NAME --rule ID | --policy [NS/]NAME | --reach --rule ID [--policy [NS/]NAME])",
		Short: "Say why an effective policy has (or lacks) a rule, what became of a policy's rules, or where a rule reaches",
		Long: `Three views of the same engine:
  --target T --rule ID     for each path beneath T, the chain of policies in fold order and what each
                           did to rule ID (added, kept, replaced, overridden, unset, clipped)
  --policy NS/NAME         what the reconciler writes, or would write, for that policy (its Accepted and
                           Enforced conditions, computed by the reconciler's own code, also for kinds
                           whose status Precedent does not write), and every rule of it: the paths where
                           it is in effect, and where a more specific or overriding policy replaced it
  --reach --rule ID        every path whose effective policy holds rule ID, and from which policy
                           (view-policy-rule-reach; with --policy, only that policy's rule)
Without -f, reads the cluster of the kubeconfig; --target is looked up in its own namespace. A target
or policy that does not exist, or a rule that no policy of KIND declares, is an error (exit 1).

--policy -o json prints {"kind", "policy", "accepted": {"status", "reason", "message"}, "enforced":
{...}, "rules": [{"id", "state", "by", "paths"}]}: state is the rule's fate where it is not in effect on
any path (the fate on most of those paths: overridden, replaced, unset or clipped), in-effect when it is
in effect on every path it reaches, partly when on some but not all; by is the policy that decided it
on most of those paths ("" when none); paths is the number of paths the rule reaches.

` + kindHelp + "\n\n" + settingsHelp + "\n\n" + uncheckedHelp,
		Example: `  precedent explain -f config/samples/rfc --kind AuthPolicy --policy c1/route-policy
  precedent explain -f config/samples/rfc --kind AuthPolicy --target httproute/c1/route --rule authorization.b
  precedent explain -f config/samples/rfc --kind AuthPolicy --reach --rule authorization.b`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			paths, err := splitArgs(args, &f.target) // TYPE/NAME is the target, paths count as -f
			if err != nil {
				return err
			}
			f.src.files = append(f.src.files, paths...)
			return f.run(cmd)
		},
	}
	f.src.addOffline(cmd)
	cmd.Flags().StringVar(&f.kind, "kind", "", "policy kind: Kind or Kind.group, e.g. AuthPolicy or RateLimitPolicy.kuadrant.io")
	cmd.Flags().StringVar(&f.target, "target", "", "KIND/NAMESPACE/NAME, e.g. httproute/shop/cart")
	cmd.Flags().StringVar(&f.rule, "rule", "", "rule id, e.g. authorization.b or a limit name")
	cmd.Flags().StringVar(&f.policy, "policy", "", "a policy of KIND: NAMESPACE/NAME, or NAME in the namespace of -n")
	cmd.Flags().BoolVar(&f.reach, "reach", false, "list the paths that rule --rule reaches")
	cmd.Flags().StringVarP(&f.output, "output", "o", "text", "output format: text or json")
	_ = cmd.MarkFlagRequired("kind")
	f.src.cluster.add(cmd, true)
	return cmd
}

func (f *explainFlags) run(cmd *cobra.Command) error {
	t, err := optionalTarget(f.target, &f.src)
	if err != nil {
		return err
	}
	ref, err := f.policyRef()
	if err != nil {
		return err
	}
	f.src.cluster.kind = f.kind
	o, _, err := f.src.load(cmd, t.Namespace)
	if err != nil {
		return err
	}
	o.leaveOutUnaccepted(f.kind)
	if done, err := f.runProfile(cmd, o, t, ref); done {
		return err
	}
	k, err := o.resolve(f.kind)
	if err != nil {
		return err
	}
	o.notes(cmd.ErrOrStderr(), f.src.opts.notes())
	if err := warnOrder(cmd.ErrOrStderr(), o, k, nil, ""); err != nil {
		return err
	}
	snap := o.snapshot(k)
	var p *policy.Policy
	judged := snap // the snapshot the reconciler judges p on: with p even when the views leave it out
	if ref != nil {
		var ok bool
		if p, ok = snap.Policy(*ref); !ok {
			if p, judged, ok = o.leftOutPolicy(k, *ref); !ok {
				return &exitError{Code: 1, Err: fmt.Errorf("%s %s not found", qualifiedKind(k), printable.String(ref.String()))}
			}
		}
	}
	if f.rule != "" && !declared(o.allViews(k), f.rule) {
		return &exitError{Code: 1, Err: fmt.Errorf("no %s declares rule %q", qualifiedKind(k), f.rule)}
	}
	w := cmd.OutOrStdout()
	switch {
	case f.reach:
		rs := snap.Reach(f.rule, ref)
		return f.print(w, rs, func() { printReach(w, f.rule, rs) })
	case f.target != "":
		if !o.topology().Exists(t) {
			return targetNotFound(t)
		}
		return f.explainTarget(w, snap, t)
	}
	pe := explainPolicy(o, k, judged, p)
	var statuses []effective.RuleStatus
	if len(pe.Rules) > 0 {
		statuses = judged.RuleStatuses(p)
	}
	return f.print(w, pe, func() { printPolicyExplanation(w, pe, statuses) })
}

// policyRef reads --policy (nil when not given) and checks which flags go together.
func (f *explainFlags) policyRef() (*policy.Ref, error) {
	var ref *policy.Ref
	if f.policy != "" {
		ns, name, ok := strings.Cut(f.policy, "/")
		if !ok { // NAME: in the namespace of -n, else the context's, as kubectl takes a name
			var err error
			if ns, err = f.src.namespace(); err != nil {
				return nil, &exitError{Code: 2, Err: err}
			}
			name = f.policy
		}
		if ns == "" || name == "" || strings.Contains(name, "/") {
			return nil, &exitError{Code: 2, Err: fmt.Errorf("--policy %q: want NAME or NAMESPACE/NAME", f.policy)}
		}
		ref = &policy.Ref{Namespace: ns, Name: name}
	}
	switch {
	case f.reach && f.rule == "":
		return nil, &exitError{Code: 2, Err: fmt.Errorf("--reach needs --rule")}
	case !f.reach && f.target != "" && f.rule == "":
		return nil, &exitError{Code: 2, Err: fmt.Errorf("--target needs --rule")}
	case !f.reach && f.target == "" && ref == nil:
		return nil, &exitError{Code: 2, Err: fmt.Errorf("give --target with --rule, --policy, or --reach with --rule")}
	}
	return ref, nil
}

// runProfile explains a kind whose profile folds outside the engine, when its profile explains
// what the flags ask; done is false when the engine's explanation is the one to give.
func (f *explainFlags) runProfile(cmd *cobra.Command, o *input, t topology.Target, ref *policy.Ref) (done bool, err error) {
	k, err := o.resolveAny(f.kind)
	if err != nil || k.Effective() {
		return false, nil
	}
	p := profiles.For(k.GVK.GroupKind(), o.registry)
	if ex, ok := p.(profile.RuleExplainer); ok && (f.reach || f.target != "") {
		return true, f.explainRule(cmd, o, k, ex, t, ref)
	}
	if ex, ok := p.(profile.PolicyExplainer); ok {
		return true, f.explainOther(cmd, o, k, ex, ref)
	}
	return false, nil
}

// explainTarget explains rule --rule on each path beneath target t, once per item.
func (f *explainFlags) explainTarget(w io.Writer, snap *effective.Snapshot, t topology.Target) error {
	var exs []effective.Explanation
	seen := map[effective.ItemKey]bool{}
	for _, i := range snap.PathsFor(t) {
		path := snap.Graph.Paths[i]
		if k := snap.KeyOf(path); !seen[k] {
			seen[k] = true
			exs = append(exs, snap.Explain(path, f.rule))
		}
	}
	if len(exs) == 0 {
		return &exitError{Code: 1, Err: fmt.Errorf("%s: no Gateway/Route path beneath it", printable.String(t.String()))}
	}
	return f.print(w, exs, func() { printExplanations(w, exs) })
}

// declared reports whether any of the policies declares rule id.
func declared(ps []*policy.Policy, id string) bool {
	for _, p := range ps {
		for _, r := range p.RuleIDs() {
			if r == id {
				return true
			}
		}
	}
	return false
}

// qualifiedKind names a kind as --kind takes it unambiguously.
func qualifiedKind(k policy.Kind) string { return k.GVK.Kind + "." + k.GVK.Group }

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
	return &exitError{Code: 2, Err: fmt.Errorf("-o %q: want text or json", f.output)}
}

// pathString names a path, escaped.
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
	return printable.String(s)
}

func printExplanations(w io.Writer, exs []effective.Explanation) {
	for _, ex := range exs {
		fmt.Fprintln(w, pathString(ex.Path))
		if ex.From != nil {
			fmt.Fprintf(w, "  %s is in effect, from %s\n", printable.String(ex.Rule), printable.String(ex.From.String()))
		} else {
			fmt.Fprintf(w, "  %s is not in the effective policy\n", printable.String(ex.Rule))
		}
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		for i, st := range ex.Steps {
			other := ""
			if st.Other != nil {
				other = st.Other.String()
			}
			row(tw, fmt.Sprintf("  %d.", i+1), st.Level, st.Policy.String(), st.Block, string(st.Action), other)
		}
		tw.Flush()
	}
}

func printRuleStatus(w io.Writer, ref string, st []effective.RuleStatus) {
	for _, r := range st {
		fmt.Fprintf(w, "%s %s: in effect on %d path%s, replaced on %d\n", ref, printable.String(r.Rule), len(r.InEffect), plural(len(r.InEffect)), len(r.Replaced))
		rep := append([]effective.ReplacedRuleAt(nil), r.Replaced...)
		sort.SliceStable(rep, func(i, j int) bool { return pathString(rep[i].Path) < pathString(rep[j].Path) })
		for _, at := range rep {
			by := ""
			if at.By != nil {
				by = " by " + at.By.String()
			}
			fmt.Fprintf(w, "  %s on %s%s\n", at.How, pathString(at.Path), printable.String(by))
		}
	}
}

func printReach(w io.Writer, rule string, rs []effective.ReachedPath) {
	paths := map[effective.ItemKey]bool{} // a merged field lists its path once per policy
	for _, r := range rs {
		paths[r.Path] = true
	}
	fmt.Fprintf(w, "%s reaches %d path%s\n", printable.String(rule), len(paths), plural(len(paths)))
	for _, r := range rs {
		fmt.Fprintf(w, "  %s from %s\n", pathString(r.Path), printable.String(r.From.String()))
	}
}

// explainRule is --target and --reach for a kind whose profile folds outside the engine and explains
// its own rules (Envoy Gateway's).
func (f *explainFlags) explainRule(cmd *cobra.Command, o *input, k policy.Kind, ex profile.RuleExplainer, t topology.Target, ref *policy.Ref) error {
	o.notes(cmd.ErrOrStderr(), f.src.opts.notes())
	w := cmd.OutOrStdout()
	if f.reach {
		rs, err := ex.Reach(o.offline(), k, f.rule, ref)
		if err != nil {
			return &exitError{Code: 1, Err: err}
		}
		return f.print(w, rs, func() { printReach(w, f.rule, rs) })
	}
	if !o.topology().Exists(t) {
		return targetNotFound(t)
	}
	exs, err := ex.ExplainRule(o.offline(), k, t, f.rule)
	if err != nil {
		return &exitError{Code: 1, Err: err}
	}
	if len(exs) == 0 {
		return &exitError{Code: 1, Err: fmt.Errorf("%s: no Gateway/Route path beneath it that a %s reaches", printable.String(t.String()), qualifiedKind(k))}
	}
	return f.print(w, exs, func() { printExplanations(w, exs) })
}

// explainOther explains a policy of a kind whose profile folds outside the engine and explains its
// own policies (Envoy Gateway's): --policy.
func (f *explainFlags) explainOther(cmd *cobra.Command, o *input, k policy.Kind, ex profile.PolicyExplainer, ref *policy.Ref) error {
	if ref == nil || f.reach || f.target != "" {
		return &exitError{Code: 2, Err: fmt.Errorf("--kind %s: give --policy, --target with --rule, or --reach with --rule", qualifiedKind(k))}
	}
	o.notes(cmd.ErrOrStderr(), f.src.opts.notes())
	pe, err := ex.ExplainPolicy(o.offline(), k, *ref)
	if err != nil {
		return &exitError{Code: 1, Err: err}
	}
	w := cmd.OutOrStdout()
	return f.print(w, pe, func() {
		fmt.Fprintf(w, "%s %s\n  Accepted: %s (%s) %s\n  Enforced: %s (%s) %s\n", pe.Kind, printable.String(pe.Policy),
			pe.Accepted.Status, pe.Accepted.Reason, printable.String(pe.Accepted.Message), pe.Enforced.Status, pe.Enforced.Reason, printable.String(pe.Enforced.Message))
		for _, r := range pe.Rules {
			by := ""
			if r.By != "" {
				by = " by " + printable.String(r.By)
			}
			fmt.Fprintf(w, "  %s: %s%s on %d paths\n", printable.String(r.ID), r.State, by, r.Paths)
		}
	})
}
