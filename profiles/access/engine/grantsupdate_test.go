package engine

import (
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestGrantsUpdateMatchesFullBuild applies random sequences of policy creates, updates (of rules, of
// targets, between levels) and deletes with Grants.Update and, after every step, compares the
// warnings of probe writes and deletes with those of Grants built whole from the same policies. The
// version before each step must answer as before the step.
func TestGrantsUpdateMatchesFullBuild(t *testing.T) {
	gateways := []string{"gw-a", "gw-b", "gw-c"}
	steps, warned := 0, 0
	for seed := int64(0); seed < 40; seed++ {
		r := rand.New(rand.NewSource(seed))
		ps, topo := randomWorld(r)
		sortByKey(ps)
		s := DefaultSettings()
		if seed%2 == 1 {
			s = withCombine(AllAllow)
		}
		g := NewGrants(ps, &topo, s)
		for step := 0; step < 25; step++ {
			key := fmt.Sprintf("ns/p-%d", r.Intn(12))
			if r.Intn(2) == 0 && len(ps) > 0 {
				key = ps[r.Intn(len(ps))].Key()
			}
			var p *Policy
			next := slices.DeleteFunc(slices.Clone(ps), func(q Policy) bool { return q.Key() == key })
			if r.Intn(4) != 0 {
				q := randomPolicy(r, key, r.Intn(2) == 0, gateways, 6)
				p = &q
				next = append(next, q)
				sortByKey(next)
			}
			probes := probeWrites(r, ps, gateways)
			before := answers(g, probes, ps)
			ng := g.Update(key, p)
			if diff := cmp.Diff(before, answers(g, probes, ps)); diff != "" {
				t.Fatalf("seed %d step %d: the version before the update changed (-before +after):\n%s", seed, step, diff)
			}
			ps, g = next, ng
			probes = probeWrites(r, ps, gateways)
			want := answers(NewGrants(ps, &topo, s), probes, ps)
			if diff := cmp.Diff(want, answers(g, probes, ps)); diff != "" {
				t.Fatalf("seed %d step %d, update of %s (-full build +incremental):\n%s", seed, step, key, diff)
			}
			steps++
			for _, w := range want {
				if len(w) > 0 {
					warned++
				}
			}
		}
	}
	t.Logf("%d steps compared, %d probe answers with warnings", steps, warned)
	if warned < steps {
		t.Errorf("the probes warn too rarely to compare: %d answers with warnings over %d steps", warned, steps)
	}
}

func sortByKey(ps []Policy) {
	slices.SortFunc(ps, func(a, b Policy) int { return strings.Compare(a.Key(), b.Key()) })
}

// probeWrites returns new Gateway-level policies and updates of stored ones, at both levels.
func probeWrites(r *rand.Rand, ps []Policy, gateways []string) []Policy {
	var out []Policy
	for i := 0; i < 3; i++ {
		out = append(out, randomPolicy(r, fmt.Sprintf("ns/probe-%d", i), i != 2, gateways, 6))
	}
	for i := 0; i < 3 && len(ps) > 0; i++ {
		old := ps[r.Intn(len(ps))]
		w := randomPolicy(r, old.Key(), i != 2, gateways, 6)
		w.CreationTimestamp = old.CreationTimestamp
		out = append(out, w)
	}
	return out
}

// answers are g's warnings for each probe write and for the delete of each stored policy.
func answers(g *Grants, probes, stored []Policy) [][]string {
	var out [][]string
	for _, w := range probes {
		out = append(out, g.ProjectWrite(w, 5))
	}
	for _, d := range stored {
		out = append(out, g.ProjectDelete(d, 5))
	}
	return out
}
