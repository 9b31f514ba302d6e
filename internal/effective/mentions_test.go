package effective

import (
	"fmt"
	"math/rand"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/precedent-dev/precedent/cel"
	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/topology"
	"github.com/precedent-dev/precedent/test/gen"
)

// mentionsWorld is a generated topology with random policies at every level: rule ids drawn from a
// small pool so that they meet, bare rules, defaults and overrides of either strategy, when
// conditions, unsets, and big policies (hundreds of merge rules) at the GatewayClass and Gateway
// levels, which are rule-wise more often than not.
type mentionsWorld struct {
	rnd  *rand.Rand
	kind policy.Kind
	n    int
}

var mentionsConds = []string{
	"self.limits.size() > 3",
	"has(self.limits.r1)",
	"has(self.limits.r2) && self.limits.r2.rates[0].limit > 10",
}

func (g *mentionsWorld) rules(n int, prefix string) map[string]interface{} {
	out := make(map[string]interface{}, n)
	for len(out) < n {
		id := fmt.Sprintf("r%d", g.rnd.Intn(8))
		if prefix != "" && g.rnd.Intn(4) > 0 {
			id = fmt.Sprintf("%s%d", prefix, len(out))
		}
		out[id] = map[string]interface{}{"rates": []interface{}{map[string]interface{}{"limit": int64(g.rnd.Intn(30)), "window": "1m"}}}
	}
	return out
}

func (g *mentionsWorld) block(n int, prefix string, mergeChance, whenChance float64) *policy.Block {
	b := &policy.Block{Strategy: policy.StrategyAtomic, Rules: g.rules(n, prefix)}
	if g.rnd.Float64() < mergeChance {
		b.Strategy = policy.StrategyMerge
	}
	if g.rnd.Float64() < whenChance {
		b.When = mentionsConds[g.rnd.Intn(len(mentionsConds))]
	}
	return b
}

// policy makes a random policy on target (kind, name, section); high says whether it is above
// routes, where blocks are mostly rule-wise and big.
func (g *mentionsWorld) policy(ns, kind, name, section string, high bool) *policy.Policy {
	g.n++
	p := &policy.Policy{
		Kind: g.kind, Ref: policy.Ref{Namespace: ns, Name: fmt.Sprintf("p-%d", g.n)},
		Created: time.Unix(int64(g.rnd.Intn(5)), 0), // ties, broken by name
		Targets: []policy.TargetRef{{Group: topology.Group, Kind: kind, Name: name, SectionName: section}},
	}
	size, prefix, merge, when := 1+g.rnd.Intn(4), "", 0.5, 0.3
	if high {
		merge, when = 0.85, 0.25
		if g.rnd.Intn(3) == 0 {
			size, prefix = 100+g.rnd.Intn(200), fmt.Sprintf("big%d-", g.n)
		}
	}
	switch g.rnd.Intn(4) {
	case 0:
		p.Bare = &policy.Block{Strategy: policy.StrategyAtomic, Rules: g.rules(size, prefix)}
	case 1:
		p.Defaults = g.block(size, prefix, merge, when)
	case 2:
		p.Overrides = g.block(1+g.rnd.Intn(3), "", merge, when)
	default:
		p.Defaults = g.block(size, prefix, merge, when)
		p.Overrides = g.block(1+g.rnd.Intn(3), "", merge, when)
	}
	if !high || g.rnd.Intn(3) == 0 {
		for j := g.rnd.Intn(3); j > 0; j-- {
			if id := fmt.Sprintf("r%d", g.rnd.Intn(8)); !slices.Contains(p.RuleIDs(), id) {
				p.Unset = append(p.Unset, id)
			}
		}
	}
	return p
}

// routePolicy is a random policy on route r (or its rule "main").
func (g *mentionsWorld) routePolicy(r int) *policy.Policy {
	section := ""
	if g.rnd.Intn(3) == 0 {
		section = "main"
	}
	return g.policy(gen.RouteNamespace(r), "HTTPRoute", fmt.Sprintf("route-%d", r), section, false)
}

func (g *mentionsWorld) generate(gateways, routes int) gen.World {
	w := gen.Generate(gen.Size{Gateways: gateways, Routes: routes})
	g.kind = w.Kind
	w.Policies = nil
	for j := g.rnd.Intn(3); j > 0; j-- {
		w.Policies = append(w.Policies, g.policy("", "GatewayClass", "example", "", true))
	}
	for gw := 0; gw < gateways; gw++ {
		for j := g.rnd.Intn(3); j > 0; j-- {
			section := ""
			if g.rnd.Intn(4) == 0 {
				section = "http"
			}
			w.Policies = append(w.Policies, g.policy("infra", "Gateway", fmt.Sprintf("gw-%d", gw), section, true))
		}
	}
	for r := 0; r < routes; r++ {
		for j := g.rnd.Intn(3); j > 0; j-- {
			w.Policies = append(w.Policies, g.routePolicy(r))
		}
	}
	return w
}

// namingFresh is what MentionsPath must give: the events of a fresh fold of the path, with no memo,
// that name ref.
// It also says whether the levels above ref's are rule-wise, how many of the events come from
// policies there, and whether a condition there is evaluated.
func namingFresh(s *Snapshot, path topology.Path, ref policy.Ref) ([]Event, bool, int, bool) {
	var levels []Level
	var ps [][]*policy.Policy
	for _, l := range s.Levels(path) {
		levels = append(levels, Level{Policies: l.Policies})
		ps = append(ps, l.Policies)
	}
	k := -1
	for j, l := range ps {
		for _, p := range l {
			if p.Ref == ref {
				k = j
			}
		}
	}
	_, ruleWise := s.ruleWise(ps[k+1:])
	fast := k >= 0 && k < len(ps)-1 && ruleWise
	out := naming(nil, Fold(s.Kind, levels, s.Cond).Events, ref)
	above := 0
	for _, e := range out {
		for _, l := range ps[k+1:] {
			if slices.ContainsFunc(l, func(p *policy.Policy) bool { return p.Ref == e.Policy }) {
				above++
			}
		}
	}
	conds := false
	for _, l := range ps[k+1:] {
		for _, p := range l {
			for _, b := range []*policy.Block{p.DefaultsBlock(), p.Overrides} {
				conds = conds || (b != nil && b.When != "" && s.Cond != nil)
			}
		}
	}
	return out, fast, above, conds
}

// TestMentionsMatchFreshFolds: on generated worlds, for every path and every policy on it (and
// policies on none), in snapshots and in views that write a route policy, rewrite or remove a policy
// of any level, MentionsPath gives exactly the events of a fresh fold that name the policy, whether
// its levels above are folded rule by rule or whole.
func TestMentionsMatchFreshFolds(t *testing.T) {
	fast, fastNamed, fastConds := 0, 0, 0
	eachGenerated(t, func(seed int64, g *mentionsWorld, policies []*policy.Policy, snap *Snapshot) {
		views := map[string]*Snapshot{"snapshot": snap}
		written := g.routePolicy(g.rnd.Intn(12))
		views["with a route policy"] = snap.With(written)
		if len(policies) > 0 {
			old := policies[g.rnd.Intn(len(policies))]
			again := *g.routePolicy(0)
			again.Ref, again.Targets = old.Ref, old.Targets
			views["with "+old.Ref.String()+" rewritten"] = snap.With(&again)
			views["without "+old.Ref.String()] = snap.Without(old.Ref)
		}
		for name, s := range views {
			for round := 0; round < 2; round++ { // the second round is served from the memos
				for i, path := range s.Graph.Paths {
					refs := []policy.Ref{written.Ref, {Namespace: "nowhere", Name: "none"}}
					for _, l := range s.Levels(path) {
						for _, p := range l.Policies {
							refs = append(refs, p.Ref)
						}
					}
					for _, ref := range refs {
						want, isFast, above, conds := namingFresh(s, path, ref)
						got := s.MentionsPath(i, ref).Events
						if !reflect.DeepEqual(got, want) {
							t.Fatalf("seed %d, %s, round %d, path %v, policy %s (rule-wise above: %t):\n got %+v\nwant %+v", seed, name, round, path, ref, isFast, got, want)
						}
						if isFast && round == 0 {
							fast++
							fastNamed += above
							if conds && above > 0 {
								fastConds++
							}
						}
					}
				}
			}
		}
	})
	if fast < 100 || fastNamed < 50 || fastConds < 20 {
		t.Fatalf("the worlds took the rule-wise way %d times, with %d events from the levels above, %d times with events and conditions there: too few to test it", fast, fastNamed, fastConds)
	}
	t.Logf("rule-wise: %d paths and policies, %d events from the levels above, %d with conditions there", fast, fastNamed, fastConds)
}

// eachGenerated calls f with the snapshot of each of 20 generated worlds (mentionsWorld, its seed
// and its policies), with a CEL evaluator and without.
func eachGenerated(t *testing.T, f func(seed int64, g *mentionsWorld, policies []*policy.Policy, snap *Snapshot)) {
	t.Helper()
	ev, err := cel.New(0)
	if err != nil {
		t.Fatal(err)
	}
	for seed := int64(1); seed <= 20; seed++ {
		g := &mentionsWorld{rnd: rand.New(rand.NewSource(seed))}
		w := g.generate(3, 12)
		graph := topology.Build(w.Input)
		for _, cond := range []*cel.Evaluator{ev, nil} {
			f(seed, g, w.Policies, NewSnapshot(w.Kind, graph, w.Policies, cond))
		}
	}
}
