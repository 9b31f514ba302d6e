package validate

import (
	"slices"
	"strconv"

	"github.com/precedent-dev/precedent/internal/effective"
	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/printable"
	"github.com/precedent-dev/precedent/internal/topology"
	"github.com/precedent-dev/precedent/internal/warning"
)

var codeFallsBack = warning.Register(warning.Code{ID: "PRC-W026", Severity: warning.SeverityWarning,
	Title:   "rules in effect fall back on delete",
	Meaning: "the deleted policy had rules in effect on the routes named: once it is gone, another policy's rule of the same id takes effect there instead, or none does",
	Fix:     "check that those routes should lose the rules or take the other policy's; keep the policy, or move the rules to one that stays"})

var codeChangeFallsBack = warning.Register(warning.Code{ID: "PRC-W027", Severity: warning.SeverityWarning,
	Title: "rules in effect fall back on update",
	Meaning: "the updated policy, a Gateway-level one or one moved from or to a Gateway, had rules in effect on the routes named that it no longer holds there after the change (a rule removed, a target changed, overrides made defaults): " +
		"another policy's rule of the same id takes effect there instead, or none does",
	Fix: "check that those routes should lose the rules or take the other policy's; keep the rules in the policy, or move them to one that applies there"})

// fallbacks says what takes the place of the rules of old (the policy a delete removes) that are in
// effect on the routes it reaches: per policy that takes over (or none), the rule ids and how many
// routes, one warning each, those left with nothing first. Nothing when none of its rules is in
// effect anywhere (a default every route replaces, say): the plain count of changed routes is the
// summary note's.
func fallbacks(before *effective.Snapshot, old *policy.Policy) []string {
	after := before.Without(old.Ref)
	var t fallTally
	for _, i := range before.PathsOf(old) {
		p := before.Graph.Paths[i]
		if p.RouteKind == "" {
			continue
		}
		// The rules of old are among those ChangePath follows: their falls are the same as from
		// the whole folds.
		ra, rb, ok := after.ChangePath(before, i)
		if !ok || !narrowFolds {
			rb, ra = before.ComputePath(i), after.Compute(p)
		}
		for _, f := range fallsOf(rb, ra, old.Ref) {
			t.add(f, p.Route)
		}
	}
	return t.lines(codeFallsBack, "removing this policy", before.Kind.GVK.Kind)
}

// taker is what takes the place of a rule in effect: the policy whose rule of the same id is in
// effect instead (any), or nothing (any false).
type taker struct {
	by  policy.Ref
	any bool
}

// fall is a rule of a policy in effect on a path before a write, and what takes its place after.
type fall struct {
	taker
	id string
}

// fallsOf lists the rules of ref in effect in before that ref no longer holds in after.
func fallsOf(before, after effective.Result, ref policy.Ref) []fall {
	var out []fall
	for id, e := range before.Rules {
		if e.Source != ref {
			continue
		}
		ae, ok := after.Rules[id]
		switch {
		case ok && ae.Source == ref:
			continue
		case ok:
			out = append(out, fall{taker{by: ae.Source, any: true}, id})
		default:
			out = append(out, fall{id: id})
		}
	}
	return out
}

// fallTally gathers falls over routes: per taker, the rule ids and the routes.
type fallTally struct {
	rules  map[taker]map[string]bool
	routes map[taker]map[topology.Key]bool
}

func (t *fallTally) add(f fall, route topology.Key) {
	if t.rules == nil {
		t.rules, t.routes = map[taker]map[string]bool{}, map[taker]map[topology.Key]bool{}
	}
	if t.rules[f.taker] == nil {
		t.rules[f.taker], t.routes[f.taker] = map[string]bool{}, map[topology.Key]bool{}
	}
	t.rules[f.taker][f.id] = true
	t.routes[f.taker][route] = true
}

// lines are the warnings of the tally, with code and subject ("removing this policy"): one per
// taker, those left with nothing first, then by policy.
func (t *fallTally) lines(code *warning.Code, subject, kind string) []string {
	takers := make([]taker, 0, len(t.rules))
	for k := range t.rules {
		takers = append(takers, k)
	}
	slices.SortFunc(takers, func(x, y taker) int {
		switch {
		case x.any != y.any:
			if !x.any {
				return -1
			}
			return 1
		case x.by.String() < y.by.String():
			return -1
		case x.by.String() > y.by.String():
			return 1
		}
		return 0
	})
	out := make([]string, 0, len(takers))
	for _, k := range takers {
		ids := make([]string, 0, len(t.rules[k]))
		for id := range t.rules[k] {
			ids = append(ids, id)
		}
		n := len(t.routes[k])
		on := strconv.Itoa(n) + " route" + plural(n)
		if !k.any {
			out = append(out, code.Line(subject+" leaves "+ruleList(ids)+" with no rule in effect on "+on))
			continue
		}
		out = append(out, code.Line(subject+" puts "+kind+" "+printable.String(k.by.String())+"'s "+ruleList(ids)+" in effect instead on "+on))
	}
	return out
}
