package main

import (
	"fmt"
	"io"
	"sort"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/precedent-dev/precedent/internal/effective"
	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/printable"
	"github.com/precedent-dev/precedent/internal/reconcile"
)

// policyExplanation is `explain --policy -o json` (a CLI contract other tools parse: docs/cli.md): what the reconciler
// writes, or would write, for one policy, and the fate of each of its rules.
type policyExplanation struct {
	Kind     string          `json:"kind"`
	Policy   string          `json:"policy"`
	Accepted conditionResult `json:"accepted"`
	Enforced conditionResult `json:"enforced"`
	Rules    []ruleFate      `json:"rules"`
}

type conditionResult struct {
	Status  string `json:"status"`
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

type ruleFate struct {
	ID    string `json:"id"`
	State string `json:"state"`
	By    string `json:"by"`
	Paths int    `json:"paths"`
}

// Rule states of the contract.
const (
	stateInEffect   = "in-effect"
	stateOverridden = "overridden"
	stateReplaced   = "replaced"
	stateUnset      = "unset"
	stateClipped    = "clipped"
	statePartly     = "partly"
)

// explainPolicy computes the conditions with the reconciler's own functions (reconcile.Invalid and
// reconcile.Compute over the same snapshot) and the rules' fates from effective.RuleStatuses; a
// policy not accepted has no rules in effect, and none listed.
func explainPolicy(o *input, k policy.Kind, snap *effective.Snapshot, p *policy.Policy) policyExplanation {
	var invalid field.ErrorList
	for _, it := range o.allItems(k) {
		if it.Policy.Ref == p.Ref {
			invalid = append(invalid, it.Errs...) // what reading the object found, as the reconciler's view does
		}
	}
	invalid = append(invalid, reconcile.Invalid(snap, p, o.settings)...)
	st := reconcile.Compute(snap, p, invalid, o.settings)
	out := policyExplanation{Kind: k.GVK.Kind, Policy: p.Ref.String(), Rules: []ruleFate{}}
	for _, c := range st.Conditions {
		switch c.Type {
		case reconcile.TypeAccepted:
			out.Accepted = result(c)
		case reconcile.TypeEnforced:
			out.Enforced = result(c)
		}
	}
	if out.Accepted.Status != string(metav1.ConditionTrue) {
		return out // a policy not accepted holds nothing: no rule of it is in effect anywhere
	}
	decided := decisions(snap, p)
	for _, r := range snap.RuleStatuses(p) {
		out.Rules = append(out.Rules, fate(r, decided))
	}
	return out
}

func result(c metav1.Condition) conditionResult {
	return conditionResult{Status: string(c.Status), Reason: c.Reason, Message: c.Message}
}

// pathRule is one rule on one path.
type pathRule struct {
	path effective.ItemKey
	rule string
}

// decision is what a fold event says about a rule of p on one path: that another policy overrode
// or clipped it.
type decision struct {
	clipped bool
	by      string
}

// decisions reads, per path and rule of p, the policy whose override (or constraint) took it, from
// the fold's events as the reconciler's Enforced condition does: RuleStatuses reports a clipped
// rule as overridden, and names no one when an atomic override removed the rule.
func decisions(snap *effective.Snapshot, p *policy.Policy) map[pathRule]decision {
	out := map[pathRule]decision{}
	for _, i := range snap.PathsOf(p) {
		path := snap.Graph.Paths[i]
		for _, ev := range snap.Compute(path).Events {
			if (ev.Type == effective.Clipped || ev.Type == effective.Overridden) && ev.Other != nil && *ev.Other == p.Ref {
				out[pathRule{snap.KeyOf(path), ev.Rule}] = decision{clipped: ev.Type == effective.Clipped, by: ev.Policy.String()}
			}
		}
	}
	return out
}

// fate reads one rule's state from its status: in-effect on every path it reaches, partly when on
// some, else its fate on most paths; by is the policy that decided it on most paths where it is
// not in effect.
func fate(r effective.RuleStatus, decided map[pathRule]decision) ruleFate {
	f := ruleFate{ID: r.Rule, State: stateInEffect, Paths: len(r.InEffect) + len(r.Replaced)}
	if len(r.Replaced) == 0 {
		return f
	}
	states, by := map[string]int{}, map[string]int{}
	for _, at := range r.Replaced {
		s, who := stateOf(at.How), ""
		if at.By != nil {
			who = at.By.String()
		}
		if d, ok := decided[pathRule{at.Path, r.Rule}]; ok && at.How == effective.Overridden {
			who = d.by
			if d.clipped {
				s = stateClipped
			}
		}
		states[s]++
		if who != "" {
			by[who]++
		}
	}
	f.State, f.By = most(states), most(by)
	if len(r.InEffect) > 0 {
		f.State = statePartly
	}
	return f
}

// stateOf maps what RuleStatuses says happened on one path to a state of the contract. A block
// whose when is false or fails did not apply: its rules count as replaced.
func stateOf(how effective.EventType) string {
	switch how {
	case effective.Unset:
		return stateUnset
	case effective.Replaced, effective.Kept, effective.ConditionFalse, effective.ConditionError:
		return stateReplaced
	case effective.Clipped:
		return stateClipped
	}
	return stateOverridden
}

// most returns the key with the highest count, the smallest key on a tie ("" for none).
func most(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	best := ""
	for _, k := range keys {
		if best == "" || m[k] > m[best] {
			best = k
		}
	}
	return best
}

// printPolicyExplanation is the text form: the two conditions, then each rule's paths.
func printPolicyExplanation(w io.Writer, pe policyExplanation, st []effective.RuleStatus) {
	fmt.Fprintf(w, "%s %s\n", pe.Kind, printable.String(pe.Policy))
	for _, c := range []struct {
		name string
		c    conditionResult
	}{{reconcile.TypeAccepted, pe.Accepted}, {reconcile.TypeEnforced, pe.Enforced}} {
		fmt.Fprintf(w, "  %s: %s %s: %s\n", c.name, c.c.Status, c.c.Reason, printable.String(c.c.Message))
	}
	printRuleStatus(w, printable.String(pe.Policy), st)
}
