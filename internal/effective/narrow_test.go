package effective

import (
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/topology"
)

// TestNarrowFoldsAgreeWithWholeFolds: on generated worlds (several levels, big merge policies at the
// Gateway and GatewayClass levels, rules that meet and rules that do not, bare rules, defaults and
// overrides of either strategy, when conditions, unsets, sectionName targets), in snapshots and in
// views that write a route policy or a Gateway policy beside the Gateway's own, rewrite or remove a
// policy, the fold of the rules narrowRules picks gives, for every path and every policy on it,
// exactly the events of the whole fold that name the policy, whether or not MentionsPath would take
// that way.
func TestNarrowFoldsAgreeWithWholeFolds(t *testing.T) {
	narrow, narrowNamed, narrowWhole := 0, 0, 0
	eachGenerated(t, func(seed int64, g *mentionsWorld, policies []*policy.Policy, snap *Snapshot) {
		views := map[string]*Snapshot{
			"snapshot":            snap,
			"with a route policy": snap.With(g.routePolicy(g.rnd.Intn(12))),
		}
		for gw := 0; gw < 3; gw++ {
			section := ""
			if g.rnd.Intn(4) == 0 {
				section = "http"
			}
			p := g.policy("infra", "Gateway", "gw-"+string(rune('0'+gw)), section, false)
			views["with "+p.Ref.String()+" on a Gateway"] = snap.With(p)
		}
		if len(policies) > 0 {
			old := policies[g.rnd.Intn(len(policies))]
			again := *g.policy(old.Ref.Namespace, "Gateway", "gw-0", "", false)
			again.Ref, again.Targets = old.Ref, old.Targets
			views["with "+old.Ref.String()+" rewritten"] = snap.With(&again)
			views["without "+old.Ref.String()] = snap.Without(old.Ref)
		}
		for name, s := range views {
			for _, path := range s.Graph.Paths {
				var levels [][]*policy.Policy
				for _, l := range s.Levels(path) {
					levels = append(levels, l.Policies)
				}
				for _, l := range levels {
					for _, p := range l {
						want, _, _, _ := namingFresh(s, path, p.Ref)
						rules, total, blocks := s.narrowRules(levels, p.Ref)
						got := naming(nil, s.foldRules(levels, rules), p.Ref)
						if !reflect.DeepEqual(got, want) {
							t.Fatalf("seed %d, %s, path %v, policy %s, rules %v:\n got %+v\nwant %+v", seed, name, path, p.Ref, rules, got, want)
						}
						if len(rules)*blocks < total/2 && len(want) > 0 {
							narrow++
							for _, e := range want {
								if e.Policy != p.Ref {
									narrowNamed++
								}
								if e.Rule == "" && e.Type == Replaced {
									narrowWhole++
								}
							}
						}
					}
				}
			}
		}
	})
	if narrow < 200 || narrowNamed < 50 || narrowWhole < 10 {
		t.Fatalf("the narrow way was worth taking %d times, with %d events of other policies naming the policy and %d replacements of whole effective policies: too few to test it", narrow, narrowNamed, narrowWhole)
	}
	t.Logf("narrow: %d paths and policies, %d events of other policies, %d whole replacements", narrow, narrowNamed, narrowWhole)
}

// TestChangePathAgreesWithWholeFolds: on the same generated worlds, for views that write a route
// policy or a Gateway policy beside the Gateway's own, rewrite or remove a policy, wherever
// ChangePath answers, its rules are those of the whole folds before and after for every rule it
// follows, every other rule is the same on both sides of the whole folds, and its events after
// name the written policy as the whole fold's do.
func TestChangePathAgreesWithWholeFolds(t *testing.T) {
	answered, changedPaths, refused := 0, 0, 0
	eachGenerated(t, func(seed int64, g *mentionsWorld, policies []*policy.Policy, snap *Snapshot) {
		for _, wr := range changeWrites(g, snap, policies) {
			for i, path := range wr.s.Graph.Paths {
				after, prior, rules, ok := wr.s.change(snap, i)
				if !ok {
					refused++
					continue
				}
				answered++
				at := fmt.Sprintf("seed %d, %s, path %v", seed, wr.name, path)
				if checkChange(t, at, wr, snap, path, after, prior, rules) {
					changedPaths++
				}
			}
		}
	})
	if answered < 500 || changedPaths < 100 || refused < 100 {
		t.Fatalf("ChangePath answered %d times (%d with rules that change) and refused %d times: too few to test it", answered, changedPaths, refused)
	}
	t.Logf("answered %d times, %d with rules that change; refused %d times", answered, changedPaths, refused)
}

// changeWrite is a write ChangePath is asked about: the snapshot after it and the policies it
// writes.
type changeWrite struct {
	name string
	s    *Snapshot
	refs []policy.Ref
}

// changeWrites are the writes of TestChangePathAgreesWithWholeFolds on snap: a route policy, a
// policy on each Gateway (some on a section), and each policy rewritten and removed.
func changeWrites(g *mentionsWorld, snap *Snapshot, policies []*policy.Policy) []changeWrite {
	route := g.routePolicy(g.rnd.Intn(12))
	writes := []changeWrite{{"with a route policy", snap.With(route), []policy.Ref{route.Ref}}}
	for gw := 0; gw < 3; gw++ {
		section := ""
		if g.rnd.Intn(4) == 0 {
			section = "http"
		}
		p := g.policy("infra", "Gateway", "gw-"+string(rune('0'+gw)), section, false)
		writes = append(writes, changeWrite{"with " + p.Ref.String() + " on a Gateway", snap.With(p), []policy.Ref{p.Ref}})
	}
	for _, old := range policies {
		again := *g.policy(old.Ref.Namespace, "Gateway", "gw-0", "", false)
		again.Ref, again.Targets = old.Ref, old.Targets
		writes = append(writes,
			changeWrite{"with " + old.Ref.String() + " rewritten", snap.With(&again), []policy.Ref{old.Ref}},
			changeWrite{"without " + old.Ref.String(), snap.Without(old.Ref), []policy.Ref{old.Ref}})
	}
	return writes
}

// checkChange checks one answer of ChangePath on path (after and prior, following rules) against
// the whole folds of wr.s and snap, and reports whether a followed rule changes.
func checkChange(t *testing.T, at string, wr changeWrite, snap *Snapshot, path topology.Path, after, prior Result, rules []string) bool {
	t.Helper()
	wa, wb := whole(wr.s, path), whole(snap, path)
	for _, side := range []struct {
		name      string
		got, want Result
	}{{"after", after, wa}, {"before", prior, wb}} {
		for _, id := range rules {
			g, gok := side.got.Rules[id]
			w, wok := side.want.Rules[id]
			if gok != wok || !reflect.DeepEqual(g, w) {
				t.Fatalf("%s, %s, rule %s: got %+v (%t), want %+v (%t)", at, side.name, id, g, gok, w, wok)
			}
		}
		if len(side.got.Rules) > len(rules) {
			t.Fatalf("%s, %s: %d rules, more than the %d followed", at, side.name, len(side.got.Rules), len(rules))
		}
	}
	differ := false
	for _, pair := range [][2]Result{{wa, wb}, {wb, wa}} {
		for id, e := range pair[0].Rules {
			if _, followed := slices.BinarySearch(rules, id); followed {
				differ = differ || !reflect.DeepEqual(e, pair[1].Rules[id])
				continue
			}
			if o, ok := pair[1].Rules[id]; !ok || !reflect.DeepEqual(e, o) {
				t.Fatalf("%s: rule %s is not followed but differs: %+v and %+v", at, id, e, o)
			}
		}
	}
	for _, ref := range wr.refs {
		if got, want := naming(nil, after.Events, ref), naming(nil, wa.Events, ref); !reflect.DeepEqual(got, want) {
			t.Fatalf("%s, events naming %s:\n got %+v\nwant %+v", at, ref, got, want)
		}
	}
	return differ
}

// whole is the fold of path with no memo.
func whole(s *Snapshot, path topology.Path) Result {
	var levels []Level
	for _, l := range s.Levels(path) {
		levels = append(levels, Level{Policies: l.Policies})
	}
	return Fold(s.Kind, levels, s.Cond)
}
