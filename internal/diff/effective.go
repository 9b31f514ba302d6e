package diff

import (
	"reflect"
	"sort"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/precedent-dev/precedent/internal/effective"
	"github.com/precedent-dev/precedent/internal/topology"
)

// Effective compares the effective policies of one kind in base and head, path by path, and returns
// the rules added, removed, changed (another value) or moved (the same value from another policy),
// sorted (Sort).
//
// When both snapshots share one graph (the topology did not change, see SameTopology), only the paths
// that the changed policies reach, before or after, are folded: the engine's incremental projection.
// Otherwise every path reached in either snapshot is compared, paths matched by their gateway,
// listener, route and rule.
//
// A path is shown with the finer of its two displayed keys (effective.ItemKey): the listener (the
// rule) is shown when base or head shows it, i.e. when a policy targets some listener of the Gateway
// (some rule of the route) on either side. So a new listener-level policy, which splits the paths
// of a Gateway by listener in head, shows its changes per listener; and each line stands for paths
// that had the same policies on both sides, hence the same change.
func Effective(base, head *effective.Snapshot) []Change {
	var pairs [][2]int // base and head path index, -1 when the path is not in that graph
	if base.Graph == head.Graph {
		for _, i := range changedPaths(base, head) {
			pairs = append(pairs, [2]int{i, i})
		}
	} else {
		pairs = matchPaths(base, head)
	}
	kind := head.Kind.GVK.GroupKind()
	seen := map[effective.ItemKey]bool{}
	var out []Change
	for _, pr := range pairs {
		var key effective.ItemKey
		var rb, ra effective.Result
		if pr[0] >= 0 {
			p := base.Graph.Paths[pr[0]]
			key, rb = base.KeyOf(p), base.ComputePath(pr[0])
		}
		if pr[1] >= 0 {
			p := head.Graph.Paths[pr[1]]
			hk := head.KeyOf(p)
			if pr[0] < 0 {
				key = hk
			} else {
				key = finer(key, hk)
			}
			ra = head.ComputePath(pr[1])
		}
		if seen[key] {
			continue
		}
		seen[key] = true
		out = appendRules(out, kind, key, rb.Rules, ra.Rules)
	}
	Sort(out)
	return out
}

// changedPaths returns the indexes of the paths that the policies differing between base and head
// (over one graph) reach, before or after, sorted.
func changedPaths(base, head *effective.Snapshot) []int {
	var idx []int
	for _, p := range head.Policies() {
		old, ok := base.Policy(p.Ref)
		if ok && old.SameAs(p) {
			continue
		}
		idx = effective.UnionPaths(idx, head.PathsOf(p))
		if ok {
			idx = effective.UnionPaths(idx, base.PathsOf(old))
		}
	}
	for _, p := range base.Policies() {
		if _, ok := head.Policy(p.Ref); !ok {
			idx = effective.UnionPaths(idx, base.PathsOf(p))
		}
	}
	return idx
}

// matchPaths pairs the paths reached in base or head by their place in the topology.
func matchPaths(base, head *effective.Snapshot) [][2]int {
	inHead := make(map[topology.Path]int, len(head.Graph.Paths))
	for i, p := range head.Graph.Paths {
		inHead[p] = i
	}
	inBase := make(map[topology.Path]int, len(base.Graph.Paths))
	for i, p := range base.Graph.Paths {
		inBase[p] = i
	}
	var out [][2]int
	paired := map[int]bool{}
	for _, i := range base.Reached(nil) {
		j, ok := inHead[base.Graph.Paths[i]]
		if !ok {
			j = -1
		}
		paired[j] = true
		out = append(out, [2]int{i, j})
	}
	for _, j := range head.Reached(nil) {
		if paired[j] {
			continue
		}
		i, ok := inBase[head.Graph.Paths[j]]
		if !ok {
			i = -1
		}
		out = append(out, [2]int{i, j})
	}
	return out
}

// finer shows a section when either key shows it (the keys are of one path).
func finer(a, b effective.ItemKey) effective.ItemKey {
	if a.Listener == "" {
		a.Listener = b.Listener
	}
	if a.Rule == "" {
		a.Rule = b.Rule
	}
	return a
}

// appendRules appends a change per rule id that differs between before and after.
func appendRules(out []Change, kind schema.GroupKind, k effective.ItemKey, before, after map[string]effective.Entry) []Change {
	ids := make([]string, 0, len(before)+len(after))
	for id := range before {
		ids = append(ids, id)
	}
	for id := range after {
		if _, ok := before[id]; !ok {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	for _, id := range ids {
		b, a := entryValue(before, id), entryValue(after, id)
		t, ok := compare(b, a, sameValue)
		if !ok {
			continue
		}
		out = append(out, Change{Shape: ShapePath, Kind: kind.Kind, APIGroup: kind.Group, Gateway: k.Gateway, Listener: k.Listener, Route: k.Route, Rule: k.Rule,
			RuleID: id, Change: t, Before: b, After: a})
	}
	return out
}

func entryValue(rules map[string]effective.Entry, id string) *Value {
	e, ok := rules[id]
	if !ok {
		return nil
	}
	return &Value{Value: e.Body, From: e.Source.String()}
}

// SameTopology reports whether two topology inputs build the same graph, so that the snapshots of
// base and head may share one (and Effective compare only what the changed policies reach).
func SameTopology(a, b topology.Input) bool {
	return reflect.DeepEqual(a, b)
}
