package effective_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/precedent-dev/precedent/internal/effective"
	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/topology"
	"github.com/precedent-dev/precedent/test/gen"
)

// TestFoldedAndRefold: Folded names the paths whose folds a snapshot memoized; a policy update
// drops those of the paths it reaches; Refold on the new version memoizes them again, with the
// folds a new snapshot makes from scratch.
func TestFoldedAndRefold(t *testing.T) {
	w := gen.Generate(gen.Size{Gateways: 4, Routes: 40, Policies: 20})
	g := topology.Build(w.Input)
	s := effective.NewSnapshot(w.Kind, g, w.Policies, nil)
	gwPolicy := w.Policies[0] // gen's Gateway policies come first
	paths := s.PathsOf(gwPolicy)
	if len(paths) == 0 {
		t.Fatal("the Gateway policy reaches no path")
	}
	if got := s.Folded(paths); len(got) != 0 {
		t.Fatalf("folded before any fold: %v", got)
	}
	for _, i := range paths {
		s.ComputePath(i)
	}
	if diff := cmp.Diff(paths, s.Folded(paths)); diff != "" {
		t.Fatalf("folded after folding every path (-want +got):\n%s", diff)
	}
	cp := *gwPolicy
	cp.Generation++
	next := s.Update(cp.Ref, &cp)
	if got := next.Folded(paths); len(got) != 0 {
		t.Fatalf("folded after the update, before a refold: %v", got)
	}
	next.Refold(paths)
	if diff := cmp.Diff(paths, next.Folded(paths)); diff != "" {
		t.Fatalf("folded after the refold (-want +got):\n%s", diff)
	}
	policies := append([]*policy.Policy{}, w.Policies...)
	policies[0] = &cp
	fresh := effective.NewSnapshot(w.Kind, g, policies, nil)
	for _, i := range paths {
		p := g.Paths[i]
		if diff := cmp.Diff(fresh.ItemFor(fresh.KeyOf(p), fresh.ComputePath(i)), next.ItemFor(next.KeyOf(p), next.ComputePath(i))); diff != "" {
			t.Errorf("path %d: (-from scratch +refolded):\n%s", i, diff)
		}
	}
}
