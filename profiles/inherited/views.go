package inherited

import (
	"github.com/precedent-dev/precedent/internal/diff"
	"github.com/precedent-dev/precedent/internal/effective"
	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/profile"
	"github.com/precedent-dev/precedent/internal/topology"
)

// Effective folds the paths the policies of k reach on the input's snapshot.
func (Folded) Effective(in *profile.Offline, k policy.Kind, target *topology.Target) ([]effective.Item, error) {
	snap := in.Snapshot(k)
	return snap.Items(snap.Reached(target)), nil
}

// Diff compares the effective policies of the profile's kinds between base and head.
func (e Folded) Diff(base, head *profile.Offline, kind string) ([]diff.Change, bool, error) {
	var out []diff.Change
	matched := false
	for _, k := range profile.KindsOf(e.Model, head.Registry) {
		if profile.Names(kind, k.GVK.GroupKind()) {
			matched = true
			out = append(out, Diff(base, head, k)...)
		}
	}
	return out, matched, nil
}

// Diff compares the effective policies of kind k (as head's settings define it) in base and
// head; when the topology did not change, both snapshots share base's graph, so that only the paths
// the changed policies reach are compared.
func Diff(base, head *profile.Offline, k policy.Kind) []diff.Change {
	var bp []*policy.Policy
	if bk, ok := base.Registry.Lookup(k.GVK.GroupKind()); ok {
		bp = base.Inv.Views(bk)
	}
	bs := effective.NewSnapshot(k, base.Graph, bp, base.Cond)
	graph := head.Graph
	if diff.SameTopology(base.Inv.Topology, head.Inv.Topology) {
		graph = base.Graph
	}
	return diff.Effective(bs, effective.NewSnapshot(k, graph, head.Inv.Views(k), head.Cond))
}
