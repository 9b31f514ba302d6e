package effective_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/precedent-dev/precedent/internal/effective"
	"github.com/precedent-dev/precedent/internal/topology"
	"github.com/precedent-dev/precedent/test/gen"
)

// TestRebaseMatchesNewSnapshot: a snapshot moved onto the next version of its graph, onto a
// compacted graph (numbered afresh) or updated with a policy folds every path as a snapshot made
// from scratch over the same graph and policies.
func TestRebaseMatchesNewSnapshot(t *testing.T) {
	w := gen.Generate(gen.Size{Gateways: 4, Routes: 40, Policies: 20})
	g := topology.Build(w.Input)
	s := effective.NewSnapshot(w.Kind, g, w.Policies, nil)
	r := w.Input.HTTPRoutes[5].DeepCopy()
	r.Spec.ParentRefs[0].Name = gwv1.ObjectName("gw-2")
	next := g.SetHTTPRoute(r)
	moved := w.Policies[len(w.Policies)-1]
	cp := *moved
	cp.Targets = append(cp.Targets[:0:0], cp.Targets...)
	cp.Targets[0].Name = "route-6"
	policies := append(w.Policies[:len(w.Policies)-1:len(w.Policies)-1], &cp)
	tests := []struct {
		name string
		got  *effective.Snapshot
		want *effective.Snapshot
	}{
		{"next version", s.Rebase(next), effective.NewSnapshot(w.Kind, next, w.Policies, nil)},
		{"compacted", s.Rebase(next.Compact()), effective.NewSnapshot(w.Kind, next.Compact(), w.Policies, nil)},
		{"policy moved", s.Rebase(next).Update(cp.Ref, &cp), effective.NewSnapshot(w.Kind, next, policies, nil)},
		{"policy removed", s.Update(moved.Ref, nil), effective.NewSnapshot(w.Kind, g, w.Policies[:len(w.Policies)-1], nil)},
	}
	for _, tt := range tests {
		fold := func(s *effective.Snapshot) map[topology.Path][]effective.Item {
			out := map[topology.Path][]effective.Item{}
			for _, i := range s.Graph.PathIndexes() {
				p := s.Graph.Paths[i]
				out[p] = append(out[p], s.ItemFor(s.KeyOf(p), s.ComputePath(i)))
			}
			return out
		}
		if diff := cmp.Diff(fold(tt.want), fold(tt.got)); diff != "" {
			t.Errorf("%s: (-from scratch +brought forward):\n%s", tt.name, diff)
		}
	}
}
