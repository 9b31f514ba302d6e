package effective

import (
	"math/rand"
	"reflect"
	"slices"
	"testing"

	"github.com/precedent-dev/precedent/cel"
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
	ev, err := cel.New(0)
	if err != nil {
		t.Fatal(err)
	}
	narrow, narrowNamed, narrowWhole := 0, 0, 0
	for seed := int64(1); seed <= 20; seed++ {
		g := &mentionsWorld{rnd: rand.New(rand.NewSource(seed))}
		w := g.generate(3, 12)
		graph := topology.Build(w.Input)
		for _, cond := range []*cel.Evaluator{ev, nil} {
			snap := NewSnapshot(w.Kind, graph, w.Policies, cond)
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
			if len(w.Policies) > 0 {
				old := w.Policies[g.rnd.Intn(len(w.Policies))]
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
		}
	}
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
	ev, err := cel.New(0)
	if err != nil {
		t.Fatal(err)
	}
	answered, changedPaths, refused := 0, 0, 0
	for seed := int64(1); seed <= 20; seed++ {
		g := &mentionsWorld{rnd: rand.New(rand.NewSource(seed))}
		w := g.generate(3, 12)
		graph := topology.Build(w.Input)
		for _, cond := range []*cel.Evaluator{ev, nil} {
			snap := NewSnapshot(w.Kind, graph, w.Policies, cond)
			type write struct {
				name string
				s    *Snapshot
				refs []policy.Ref
			}
			route := g.routePolicy(g.rnd.Intn(12))
			writes := []write{{"with a route policy", snap.With(route), []policy.Ref{route.Ref}}}
			for gw := 0; gw < 3; gw++ {
				section := ""
				if g.rnd.Intn(4) == 0 {
					section = "http"
				}
				p := g.policy("infra", "Gateway", "gw-"+string(rune('0'+gw)), section, false)
				writes = append(writes, write{"with " + p.Ref.String() + " on a Gateway", snap.With(p), []policy.Ref{p.Ref}})
			}
			for _, old := range w.Policies {
				again := *g.policy(old.Ref.Namespace, "Gateway", "gw-0", "", false)
				again.Ref, again.Targets = old.Ref, old.Targets
				writes = append(writes,
					write{"with " + old.Ref.String() + " rewritten", snap.With(&again), []policy.Ref{old.Ref}},
					write{"without " + old.Ref.String(), snap.Without(old.Ref), []policy.Ref{old.Ref}})
			}
			for _, wr := range writes {
				for i, path := range wr.s.Graph.Paths {
					after, prior, rules, ok := wr.s.change(snap, i)
					if !ok {
						refused++
						continue
					}
					answered++
					wa, wb := whole(wr.s, path), whole(snap, path)
					for _, side := range []struct {
						name      string
						got, want Result
					}{{"after", after, wa}, {"before", prior, wb}} {
						for _, id := range rules {
							g, gok := side.got.Rules[id]
							w, wok := side.want.Rules[id]
							if gok != wok || !reflect.DeepEqual(g, w) {
								t.Fatalf("seed %d, %s, path %v, %s, rule %s: got %+v (%t), want %+v (%t)", seed, wr.name, path, side.name, id, g, gok, w, wok)
							}
						}
						if len(side.got.Rules) > len(rules) {
							t.Fatalf("seed %d, %s, path %v, %s: %d rules, more than the %d followed", seed, wr.name, path, side.name, len(side.got.Rules), len(rules))
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
								t.Fatalf("seed %d, %s, path %v: rule %s is not followed but differs: %+v and %+v", seed, wr.name, path, id, e, o)
							}
						}
					}
					if differ {
						changedPaths++
					}
					for _, ref := range wr.refs {
						if got, want := naming(nil, after.Events, ref), naming(nil, wa.Events, ref); !reflect.DeepEqual(got, want) {
							t.Fatalf("seed %d, %s, path %v, events naming %s:\n got %+v\nwant %+v", seed, wr.name, path, ref, got, want)
						}
					}
				}
			}
		}
	}
	if answered < 500 || changedPaths < 100 || refused < 100 {
		t.Fatalf("ChangePath answered %d times (%d with rules that change) and refused %d times: too few to test it", answered, changedPaths, refused)
	}
	t.Logf("answered %d times, %d with rules that change; refused %d times", answered, changedPaths, refused)
}

// whole is the fold of path with no memo.
func whole(s *Snapshot, path topology.Path) Result {
	var levels []Level
	for _, l := range s.Levels(path) {
		levels = append(levels, Level{Policies: l.Policies})
	}
	return Fold(s.Kind, levels, s.Cond)
}
