package engine

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// randomWorld builds a small cluster from r: a few Gateways, Backends behind one or more of them,
// Gateway- and Backend-level policies (some on two targets, some repeating a target) whose rules mix
// InlineTools, AllTools and ExternalAuth over a few sources and tools, so that grants repeat, overlap
// and tie.
func randomWorld(r *rand.Rand) ([]Policy, Topology) {
	var topo Topology
	gateways := []string{"gw-a", "gw-b", "gw-c"}
	backends := 3 + r.Intn(12)
	for i := 0; i < backends; i++ {
		for _, gw := range gateways {
			if r.Intn(2) == 0 {
				topo.Link("ns/"+gw, fmt.Sprintf("ns/be-%d", i))
			}
		}
	}
	var ps []Policy
	for i, n := 0, 2+r.Intn(10); i < n; i++ {
		ps = append(ps, randomPolicy(r, fmt.Sprintf("ns/gp-%d", i), true, gateways, backends))
	}
	for i, n := 0, 2+r.Intn(15); i < n; i++ {
		ps = append(ps, randomPolicy(r, fmt.Sprintf("ns/bp-%d", i), false, gateways, backends))
	}
	return ps, topo
}

func randomPolicy(r *rand.Rand, key string, gatewayLevel bool, gateways []string, backends int) Policy {
	target := func() TargetRef {
		if gatewayLevel {
			return gwRef(gateways[r.Intn(len(gateways))])
		}
		return beRef(fmt.Sprintf("be-%d", r.Intn(backends+1))) // one Backend behind no Gateway
	}
	p := policy(key, at(r.Intn(4)), target())
	for n := r.Intn(3); n > 0; n-- {
		p.Targets = append(p.Targets, target())
	}
	sources := []Principal{sa("ns/a"), sa("ns/b"), sa("other/c"), spiffe("spiffe://example.org/d")}
	tools := []string{"x", "y", "z", "w", "v"}
	for i, n := 0, r.Intn(4); i < n; i++ {
		src, name := sources[r.Intn(len(sources))], fmt.Sprintf("r%d", i)
		switch k := r.Intn(10); {
		case k == 0:
			p.Rules = append(p.Rules, anyTool(name, src))
		case k == 1:
			p.Rules = append(p.Rules, external(name, src))
		default:
			var ts []string
			for m := r.Intn(4); m > 0; m-- {
				ts = append(ts, tools[r.Intn(len(tools))])
			}
			p.Rules = append(p.Rules, inline(name, src, ts...))
		}
	}
	return p
}

// TestGrantsMatchReference compares Grants.ProjectWrite and Grants.ProjectDelete with the reference
// ProjectWrite and ProjectDelete on generated worlds: new policies, updates (of rules, of targets,
// of a Backend-level policy turned Gateway-level), deletes, both combine modes and several limits.
func TestGrantsMatchReference(t *testing.T) {
	r := rand.New(rand.NewSource(17))
	checked, warned, capped := 0, 0, 0
	for world := 0; world < 300; world++ {
		ps, topo := randomWorld(r)
		s := DefaultSettings()
		if world%2 == 1 {
			s = withCombine(AllAllow)
		}
		g := NewGrants(ps, &topo, s)
		var writes []Policy
		for i := 0; i < 4; i++ {
			writes = append(writes, randomPolicy(r, fmt.Sprintf("ns/new-%d", i), i%4 != 3, []string{"gw-a", "gw-b", "gw-c"}, 6))
		}
		for i := 0; i < 4; i++ { // updates of stored policies, Gateway-level
			old := ps[r.Intn(len(ps))]
			w := randomPolicy(r, old.Key(), true, []string{"gw-a", "gw-b", "gw-c"}, 6)
			w.CreationTimestamp = old.CreationTimestamp
			writes = append(writes, w, old)
		}
		for _, limit := range []int{0, 1, 2, 3, 5, 100} {
			for _, w := range writes {
				want := ProjectWrite(w, ps, &topo, s, limit)
				if got := g.ProjectWrite(w, limit); !cmp.Equal(want, got) {
					t.Fatalf("world %d, write of %+v, limit %d (-reference +grants):\n%s", world, w, limit, cmp.Diff(want, got))
				}
				checked++
				if len(want) > 0 {
					warned++
				}
				if len(want) == warningLimit(limit) && len(want) < 100 {
					capped++
				}
			}
			for _, d := range ps {
				want := ProjectDelete(d, ps, &topo, s, limit)
				if got := g.ProjectDelete(d, limit); !cmp.Equal(want, got) {
					t.Fatalf("world %d, delete of %+v, limit %d (-reference +grants):\n%s", world, d, limit, cmp.Diff(want, got))
				}
			}
		}
	}
	t.Logf("%d writes compared, %d with warnings, %d at the cap", checked, warned, capped)
	if warned < checked/10 || capped < checked/50 {
		t.Errorf("the generated writes warn too rarely to compare: %d of %d warn, %d at the cap", warned, checked, capped)
	}
}

// TestGrantsMatchReferenceGenerated compares the two on the benchmarks' world, where the warnings are
// many and capped, for a new Gateway-level policy and for the update of a stored one.
func TestGrantsMatchReferenceGenerated(t *testing.T) {
	gw, be, topo := generate(5, 300)
	others := append(gw, be...)
	writes := []Policy{
		policy("gw/lockdown", at(5000), gwRef("edge"), inline("agents", sa("agents-0/agent"), "search")),
		policy("gw/gw-policy-002", at(2), gwRef("edge"), inline("agents", sa("agents-2/agent"), "search")),
		policy("gw/closed", at(5000), gwRef("edge"), inline("nobody", sa("agents-9/agent"))),
	}
	for _, combine := range []string{AnyAllow, AllAllow} {
		s := withCombine(combine)
		g := NewGrants(others, &topo, s)
		for _, w := range writes {
			for _, limit := range []int{0, 1, 20, 1000} {
				want := ProjectWrite(w, others, &topo, s, limit)
				if diff := cmp.Diff(want, g.ProjectWrite(w, limit)); diff != "" {
					t.Errorf("%s: write of %s, limit %d (-reference +grants):\n%s", combine, w.Key(), limit, diff)
				}
				want = ProjectDelete(w, others, &topo, s, limit)
				if diff := cmp.Diff(want, g.ProjectDelete(w, limit)); diff != "" {
					t.Errorf("%s: delete of %s, limit %d (-reference +grants):\n%s", combine, w.Key(), limit, diff)
				}
			}
		}
	}
}

// TestGrantsSamples compares the two on config/samples/access: creating each policy (the others
// stored), re-applying it and deleting it.
func TestGrantsSamples(t *testing.T) {
	policies, topo, s := readSamples(t)
	all := NewGrants(policies, &topo, s)
	for i, p := range policies {
		rest := append(append([]Policy{}, policies[:i]...), policies[i+1:]...)
		if diff := cmp.Diff(ProjectWrite(p, rest, &topo, s, 0), NewGrants(rest, &topo, s).ProjectWrite(p, 0)); diff != "" {
			t.Errorf("create %s (-reference +grants):\n%s", p.Name, diff)
		}
		if diff := cmp.Diff(ProjectWrite(p, policies, &topo, s, 0), all.ProjectWrite(p, 0)); diff != "" {
			t.Errorf("re-apply %s (-reference +grants):\n%s", p.Name, diff)
		}
		if diff := cmp.Diff(ProjectDelete(p, policies, &topo, s, 0), all.ProjectDelete(p, 0)); diff != "" {
			t.Errorf("delete %s (-reference +grants):\n%s", p.Name, diff)
		}
	}
}
