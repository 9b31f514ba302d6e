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

// fallbacks says what takes the place of the rules of old (the policy a delete removes) that are in
// effect on the routes it reaches: per policy that takes over (or none), the rule ids and how many
// routes, one warning each, those left with nothing first. Nothing when none of its rules is in
// effect anywhere (a default every route replaces, say): the plain count of changed routes is the
// summary note's.
func fallbacks(before *effective.Snapshot, old *policy.Policy) []string {
	after := before.Without(old.Ref)
	type taker struct {
		by  policy.Ref
		any bool // false: no rule of the id is in effect once old is gone
	}
	rules := map[taker]map[string]bool{}
	routes := map[taker]map[topology.Key]bool{}
	for _, i := range before.PathsOf(old) {
		p := before.Graph.Paths[i]
		if p.RouteKind == "" {
			continue
		}
		b, a := before.Compute(p), after.Compute(p)
		for id, e := range b.Rules {
			if e.Source != old.Ref {
				continue
			}
			var k taker
			if ae, ok := a.Rules[id]; ok {
				k = taker{by: ae.Source, any: true}
			}
			if rules[k] == nil {
				rules[k], routes[k] = map[string]bool{}, map[topology.Key]bool{}
			}
			rules[k][id] = true
			routes[k][p.Route] = true
		}
	}
	takers := make([]taker, 0, len(rules))
	for k := range rules {
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
	kind := before.Kind.GVK.Kind
	out := make([]string, 0, len(takers))
	for _, k := range takers {
		ids := make([]string, 0, len(rules[k]))
		for id := range rules[k] {
			ids = append(ids, id)
		}
		n := len(routes[k])
		on := strconv.Itoa(n) + " route" + plural(n)
		if !k.any {
			out = append(out, codeFallsBack.Line("removing this policy leaves "+ruleList(ids)+" with no rule in effect on "+on))
			continue
		}
		out = append(out, codeFallsBack.Line("removing this policy puts "+kind+" "+printable.String(k.by.String())+"'s "+ruleList(ids)+" in effect instead on "+on))
	}
	return out
}
