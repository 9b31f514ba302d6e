package effective_test

import (
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/precedent-dev/precedent/cel"
	"github.com/precedent-dev/precedent/internal/effective"
	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/topology"
	"github.com/precedent-dev/precedent/test/gen"
)

// memoWorld is a small generated world whose route policies differ in the body of the rule the
// Gateway policies' when reads (limit 5 or 50 against "> 10"), plus a Gateway policy whose when reads
// every rule, so memoized condition outcomes are put to the test in both directions.
func memoWorld(t *testing.T) (gen.World, *cel.Evaluator) {
	t.Helper()
	w := gen.Generate(gen.Size{Gateways: 4, Routes: 40, Policies: 24})
	for i, p := range w.Policies {
		if p.Bare != nil && i%8 == 2 { // route-policy-j with j a multiple of 8, on gw-0 (route j attaches to gw j mod 4)
			p.Bare.Rules["expensive"] = map[string]interface{}{"rates": []interface{}{map[string]interface{}{"limit": int64(5), "window": "1m"}}}
		}
	}
	whole := gen.GatewayPolicy(w.Kind, 99, 1)
	whole.Overrides.When = "self.limits.size() > 3"
	w.Policies = append(w.Policies, whole)
	ev, err := cel.New(0)
	if err != nil {
		t.Fatal(err)
	}
	return w, ev
}

// unmemoized folds one path afresh, with no memo of folds or conditions.
func unmemoized(s *effective.Snapshot, path topology.Path) effective.Result {
	var levels []effective.Level
	for _, l := range s.Levels(path) {
		levels = append(levels, effective.Level{Policies: l.Policies})
	}
	return effective.Fold(s.Kind, levels, s.Cond)
}

// TestMemoizedFoldsMatchFreshOnes: ComputePath and Compute, with their fold and condition memos,
// give on every path exactly what a fresh fold gives, on a snapshot and on views that write or
// remove a Gateway policy (whose condition outcomes differ from route to route).
func TestMemoizedFoldsMatchFreshOnes(t *testing.T) {
	w, ev := memoWorld(t)
	snap := effective.NewSnapshot(w.Kind, topology.Build(w.Input), w.Policies, ev)
	written := gen.GatewayPolicy(w.Kind, 100, 1)
	written.Overrides.When = "has(self.limits.expensive) && self.limits.expensive.rates[0].limit > 20"
	views := map[string]*effective.Snapshot{
		"snapshot":              snap,
		"with a new policy":     snap.With(written),
		"without gw-policy-1":   snap.Without(policy.Ref{Namespace: "infra", Name: "gw-policy-1"}),
		"with a copy rewritten": snap.With(gen.GatewayPolicy(w.Kind, 0, 0)),
	}
	conditionFalse := 0
	for name, s := range views {
		for round := 0; round < 2; round++ { // the second round is served from the memos
			for i, path := range s.Graph.Paths {
				want := unmemoized(s, path)
				if got := s.ComputePath(i); !reflect.DeepEqual(got, want) {
					t.Fatalf("%s, round %d, path %v: ComputePath differs from a fresh fold:\n got %+v\nwant %+v", name, round, path, got, want)
				}
				if got := s.Compute(path); !reflect.DeepEqual(got, want) {
					t.Fatalf("%s, round %d, path %v: Compute differs from a fresh fold", name, round, path)
				}
				for _, e := range want.Events {
					if e.Type == effective.ConditionFalse {
						conditionFalse++
					}
				}
			}
		}
	}
	if conditionFalse == 0 {
		t.Fatal("no condition was false anywhere: the world does not exercise both outcomes")
	}
}

// TestConditionMemoTellsBodiesApart: two routes whose policies hold different bodies for the rule a
// Gateway policy's when reads get different outcomes, whichever is folded first.
func TestConditionMemoTellsBodiesApart(t *testing.T) {
	w, ev := memoWorld(t)
	snap := effective.NewSnapshot(w.Kind, topology.Build(w.Input), w.Policies, ev)
	outcome := func(route string) string {
		for i, p := range snap.Graph.Paths {
			if p.Route.Name == route {
				for _, e := range snap.ComputePath(i).Events {
					if e.Policy.Name == "gw-policy-0" && e.Block == "overrides" {
						return fmt.Sprint(e.Type)
					}
				}
				return "applied"
			}
		}
		t.Fatalf("route %s has no path", route)
		return ""
	}
	// Routes 0 and 4 attach to gw-0: route-policy-0 has expensive at limit 5 (not > 10),
	// route-policy-4 at limit 50.
	for _, order := range [][2]string{{"route-0", "route-4"}, {"route-4", "route-0"}} {
		snap = effective.NewSnapshot(w.Kind, topology.Build(w.Input), w.Policies, ev) // fresh memos
		first, second := outcome(order[0]), outcome(order[1])
		if first == second {
			t.Fatalf("%s then %s: both get %q from gw-policy-0's when, though their expensive limits are 5 and 50", order[0], order[1], first)
		}
	}
}

// TestConcurrentFoldsShareOneResult: folds of one path computed at the same time (two admission
// requests on a fresh snapshot) all return the result kept in the memo, the same rule map, which
// the projection compares by identity.
func TestConcurrentFoldsShareOneResult(t *testing.T) {
	w, ev := memoWorld(t)
	snap := effective.NewSnapshot(w.Kind, topology.Build(w.Input), w.Policies, ev)
	const workers = 8
	got := make([][]uintptr, workers)
	done := make(chan int)
	for g := 0; g < workers; g++ {
		go func(g int) {
			for i := range snap.Graph.Paths {
				got[g] = append(got[g], reflect.ValueOf(snap.ComputePath(i).Rules).Pointer())
			}
			done <- g
		}(g)
	}
	for g := 0; g < workers; g++ {
		<-done
	}
	for i := range snap.Graph.Paths {
		want := reflect.ValueOf(snap.ComputePath(i).Rules).Pointer()
		for g := 0; g < workers; g++ {
			if got[g][i] != want {
				t.Fatalf("path %d: worker %d got another rule map than the memo keeps", i, g)
			}
		}
	}
}

// TestWithoutAllMatchesAFreshSnapshot: a view removing several policies (of a snapshot, and of a
// view) holds, folds and lists exactly what a snapshot built from the other policies does.
func TestWithoutAllMatchesAFreshSnapshot(t *testing.T) {
	w, ev := memoWorld(t)
	graph := topology.Build(w.Input)
	snap := effective.NewSnapshot(w.Kind, graph, w.Policies, ev)
	gone := []policy.Ref{{Namespace: "infra", Name: "gw-policy-1"}, w.Policies[2].Ref, w.Policies[5].Ref, w.Policies[len(w.Policies)-1].Ref}
	var kept []*policy.Policy
	for _, p := range w.Policies {
		if !slices.Contains(gone, p.Ref) {
			kept = append(kept, p)
		}
	}
	if len(kept) != len(w.Policies)-len(gone) {
		t.Fatalf("the world holds %d of the %d policies to remove", len(w.Policies)-len(kept), len(gone))
	}
	want := effective.NewSnapshot(w.Kind, graph, kept, ev)
	written := gen.GatewayPolicy(w.Kind, 100, 1)
	views := map[string]*effective.Snapshot{
		"of a snapshot": snap.WithoutAll(gone),
		"of a view":     snap.With(written).WithoutAll(append(gone, written.Ref)),
	}
	for name, got := range views {
		if g, w := refsOf(got.Policies()), refsOf(want.Policies()); !reflect.DeepEqual(g, w) {
			t.Fatalf("%s: Policies() = %v, want %v", name, g, w)
		}
		for _, r := range gone {
			if _, ok := got.Policy(r); ok {
				t.Errorf("%s: Policy(%s) is still there", name, r)
			}
		}
		for i, path := range graph.Paths {
			if g, w := got.ComputePath(i), want.ComputePath(i); !reflect.DeepEqual(g, w) {
				t.Fatalf("%s, path %v: the fold differs from a fresh snapshot's:\n got %+v\nwant %+v", name, path, g, w)
			}
		}
	}
}

func refsOf(ps []*policy.Policy) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Ref.String()
	}
	return out
}
