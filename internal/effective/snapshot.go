package effective

import (
	"encoding/binary"
	"slices"
	"sort"

	"github.com/precedent-dev/precedent/cel"
	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/topology"
)

// Snapshot is the state one computation runs over: the topology and the policies of one kind,
// indexed by target. It is immutable; With and Without return a view with one policy written or
// removed, without copying the index, so projecting a write costs work proportional to the paths
// that policy reaches.
type Snapshot struct {
	Kind  policy.Kind
	Graph *topology.Graph
	Cond  *cel.Evaluator
	// controllers are the GatewayClass controllers the kind applies to (policy.Kind.Controllers;
	// nil: any): paths through Gateways of other classes are not the kind's (PathsFor).
	controllers []string

	byTarget layered[topology.Target, []*policy.Policy]
	byRef    layered[policy.Ref, *policy.Policy]
	byID     idTable // byTarget by the graph's target numbers, for per-path lookups

	// overlay: one policy written (or removed) on top of the index. overlayAt holds the policies of
	// each target the overlay changes (the written policy's targets and its earlier version's), made
	// once per view.
	overlayRef policy.Ref
	overlay    *policy.Policy // nil with hasOverlay: removed
	hasOverlay bool
	overlayAt  map[topology.Target][]*policy.Policy
	overlayIDs []idPolicies // overlayAt by target number (the targets that lie on paths)
	// removed are more policies removed by the overlay (WithoutAll), besides overlayRef.
	removed map[policy.Ref]bool

	// results memoizes folds by the policies that reach a path (see compute): a fold depends on
	// nothing else, so paths with the same policies (the rules of a route without rule-level
	// policies, the routes of a Gateway that have no policies of their own) share one fold, and a
	// snapshot, being immutable, folds each set once. Views made by With/Without get their own
	// (per-request) memo, since the written policy changes the results.
	results *memo[Result]
	// mentions memoizes Mentions by fold key and policy, as results does folds. On a snapshot (not a
	// view) it fills only for policies re-applied unchanged, and holds at most each event of its
	// folds twice (an event names two policies at most).
	mentions *memo[*Mentions]
	// conds memoizes condition outcomes (condmemo.go); a view's reads through to its base's.
	conds *condMemo
}

// idPolicies are the policies of one numbered target.
type idPolicies struct {
	id       int32
	policies []*policy.Policy
}

// NewSnapshot indexes policies (of kind k) over graph.
func NewSnapshot(k policy.Kind, graph *topology.Graph, policies []*policy.Policy, cond *cel.Evaluator) *Snapshot {
	s := &Snapshot{Kind: k, Graph: graph, Cond: cond, controllers: k.Controllers(), results: newTrackedMemo[Result](), mentions: newTrackedMemo[*Mentions](), conds: newCondMemo(nil)}
	byTarget := map[topology.Target][]*policy.Policy{}
	byRef := make(map[policy.Ref]*policy.Policy, len(policies))
	for _, p := range policies {
		s.results.admit(p)
		s.mentions.admit(p)
		byRef[p.Ref] = p
		for _, t := range TargetsOf(p) {
			byTarget[t] = append(byTarget[t], p)
		}
	}
	for t := range byTarget {
		ps := byTarget[t]
		sort.Slice(ps, func(i, j int) bool { return policy.Less(ps[i], ps[j]) })
	}
	s.byTarget, s.byRef = layered[topology.Target, []*policy.Policy]{base: byTarget}, layered[policy.Ref, *policy.Policy]{base: byRef}
	s.byID = indexIDs(graph, s.byTarget)
	return s
}

// TargetsOf maps a policy's target refs (local, in the policy's namespace) to topology targets.
// References outside the Gateway API group are skipped (validation rejects them).
func TargetsOf(p *policy.Policy) []topology.Target {
	out := make([]topology.Target, 0, len(p.Targets))
	for _, r := range p.Targets {
		if t, ok := TargetOf(p, r); ok && !slices.Contains(out, t) { // a policy has a handful of targets at most
			out = append(out, t)
		}
	}
	return out
}

// TargetOf maps one target ref of p to its topology target; false outside the Gateway API group.
func TargetOf(p *policy.Policy, r policy.TargetRef) (topology.Target, bool) {
	if r.Group != topology.Group {
		return topology.Target{}, false
	}
	t := topology.Target{Kind: r.Kind, Namespace: p.Ref.Namespace, Name: r.Name, Section: r.SectionName}
	if r.Kind == "GatewayClass" {
		t.Namespace = ""
	}
	return t, true
}

// With returns a view in which p is written (created or replaced by namespace/name).
func (s *Snapshot) With(p *policy.Policy) *Snapshot {
	return s.view(p.Ref, p)
}

// Without returns a view in which the policy ref is removed.
func (s *Snapshot) Without(ref policy.Ref) *Snapshot {
	return s.view(ref, nil)
}

// WithoutAll returns a view in which the policies refs are removed. On a snapshot (not a view) it
// costs work proportional to the targets of the removed policies, as Without does; on a view it
// indexes the view's other policies anew.
func (s *Snapshot) WithoutAll(refs []policy.Ref) *Snapshot {
	switch {
	case len(refs) == 0:
		return s
	case len(refs) == 1:
		return s.Without(refs[0])
	case s.hasOverlay:
		gone := map[policy.Ref]bool{}
		for _, r := range refs {
			gone[r] = true
		}
		var kept []*policy.Policy
		for _, p := range s.Policies() {
			if !gone[p.Ref] {
				kept = append(kept, p)
			}
		}
		return NewSnapshot(s.Kind, s.Graph, kept, s.Cond)
	}
	removed := make(map[policy.Ref]bool, len(refs)-1)
	for _, r := range refs[1:] {
		removed[r] = true
	}
	return s.viewRemoving(refs[0], nil, removed)
}

// view makes the view with ref written as p (nil: removed) over s's index, precomputing the policies
// of the targets that change, so At stays a lookup.
func (s *Snapshot) view(ref policy.Ref, p *policy.Policy) *Snapshot {
	return s.viewRemoving(ref, p, nil)
}

// viewRemoving is view, with the policies of removed removed too.
func (s *Snapshot) viewRemoving(ref policy.Ref, p *policy.Policy, removed map[policy.Ref]bool) *Snapshot {
	c := *s
	c.removed = removed
	c.overlayRef, c.overlay, c.hasOverlay = ref, p, true
	c.results = newMemo[Result]()
	c.mentions = newMemo[*Mentions]()
	base := s.conds
	if s.hasOverlay && base != nil {
		base = base.parent // a view of a view reads through to the base snapshot only
	}
	c.conds = newCondMemo(base)
	c.overlayAt = map[topology.Target][]*policy.Policy{}
	c.overlayIDs = nil
	var changed, written []topology.Target
	if old, ok := s.byRef.get(ref); ok {
		changed = TargetsOf(old)
	}
	for r := range removed {
		if old, ok := s.byRef.get(r); ok {
			changed = append(changed, TargetsOf(old)...)
		}
	}
	if p != nil {
		written = TargetsOf(p)
		changed = append(changed, written...)
	}
	for _, t := range changed {
		if _, done := c.overlayAt[t]; done {
			continue
		}
		var out []*policy.Policy
		at, _ := s.byTarget.get(t)
		for _, q := range at {
			if q.Ref != ref && !removed[q.Ref] {
				out = append(out, q)
			}
		}
		if slices.Contains(written, t) {
			out = append(out, p)
			sort.Slice(out, func(i, j int) bool { return policy.Less(out[i], out[j]) })
		}
		c.overlayAt[t] = out
		if id, ok := s.Graph.TargetID(t); ok {
			c.overlayIDs = append(c.overlayIDs, idPolicies{id, out})
		}
	}
	return &c
}

// Policy returns the policy with ref in this view.
func (s *Snapshot) Policy(ref policy.Ref) (*policy.Policy, bool) {
	if s.hasOverlay && ref == s.overlayRef {
		return s.overlay, s.overlay != nil
	}
	if s.removed[ref] {
		return nil, false
	}
	return s.byRef.get(ref)
}

// Policies lists every policy of this view, in precedence order.
func (s *Snapshot) Policies() []*policy.Policy {
	out := make([]*policy.Policy, 0, s.byRef.size()+1)
	s.byRef.each(func(ref policy.Ref, p *policy.Policy) {
		if (!s.hasOverlay || ref != s.overlayRef) && !s.removed[ref] {
			out = append(out, p)
		}
	})
	if s.hasOverlay && s.overlay != nil {
		out = append(out, s.overlay)
	}
	sort.Slice(out, func(i, j int) bool { return policy.Less(out[i], out[j]) })
	return out
}

// At returns the policies attached to a target in this view, in precedence order. The slice is
// shared: callers must not modify it.
func (s *Snapshot) At(t topology.Target) []*policy.Policy {
	if s.hasOverlay {
		if ps, ok := s.overlayAt[t]; ok {
			return ps
		}
	}
	ps, _ := s.byTarget.get(t)
	return ps
}

// atID is At for a numbered target.
func (s *Snapshot) atID(id int32) []*policy.Policy {
	if s.hasOverlay {
		for _, o := range s.overlayIDs {
			if o.id == id {
				return o.policies
			}
		}
	}
	return s.byID.get(id)
}

// PathsOf returns the indexes of the paths that a policy's targets reach, in path order
// (topology.Graph.ComparePaths), without duplicates.
// The slice may be the graph's own: callers must not modify it.
func (s *Snapshot) PathsOf(p *policy.Policy) []int {
	var out []int
	for _, t := range TargetsOf(p) {
		out = s.Graph.Union(out, s.PathsFor(t)) // each already in path order, without duplicates
	}
	return out
}

// PathsFor returns the paths beneath target t that are the kind's: those through Gateways of a
// GatewayClass whose controller the kind applies to (topology.Graph.ServedPaths). The slice may be
// the graph's own: callers must not modify it.
func (s *Snapshot) PathsFor(t topology.Target) []int {
	return s.Graph.ServedPaths(s.Graph.PathsFor(t), s.controllers)
}

// PathIndexes returns the live paths of the graph that are the kind's (PathsFor).
func (s *Snapshot) PathIndexes() []int {
	return s.Graph.ServedPaths(s.Graph.PathIndexes(), s.controllers)
}

// Unserved returns the paths beneath t that are not the kind's: through Gateways of a GatewayClass
// whose controller the kind does not apply to.
func (s *Snapshot) Unserved(t topology.Target) []int {
	if s.controllers == nil {
		return nil
	}
	var out []int
	for _, i := range s.Graph.PathsFor(t) {
		if !s.Graph.Serves(s.Graph.Paths[i].Class, s.controllers) {
			out = append(out, i)
		}
	}
	return out
}

// UnionPaths merges two sorted lists of path indexes without duplicates. Index order is path order
// on a built graph only: over a graph that may be updated, use topology.Graph.Union. When one is empty or both
// are equal, one of them is returned as is (it may be the graph's own: read only).
func UnionPaths(a, b []int) []int {
	switch {
	case len(a) == 0:
		return b
	case len(b) == 0 || slices.Equal(a, b):
		return a
	}
	out := make([]int, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case j == len(b) || (i < len(a) && a[i] < b[j]):
			out = append(out, a[i])
			i++
		case i == len(a) || b[j] < a[i]:
			out = append(out, b[j])
			j++
		default: // equal
			out = append(out, a[i])
			i, j = i+1, j+1
		}
	}
	return out
}

// Levels returns the levels of one path, most specific first, with the policies at each.
func (s *Snapshot) Levels(path topology.Path) []LeveledPolicies {
	ts, n := path.LevelTargets()
	out := make([]LeveledPolicies, 0, n)
	for j := n - 1; j >= 0; j-- {
		if ps := s.At(ts[j].Target); len(ps) > 0 {
			out = append(out, LeveledPolicies{Level: ts[j].Level, Target: ts[j].Target, Policies: ps})
		}
	}
	return out
}

// LeveledPolicies is the set of policies attached at one level of a path.
type LeveledPolicies struct {
	Level    topology.Level
	Target   topology.Target
	Policies []*policy.Policy
}

// Compute folds the effective policy of one path. The result is shared: callers must not modify it.
func (s *Snapshot) Compute(path topology.Path) Result {
	ts, _ := path.LevelTargets()
	lvls, n := path.Levels()
	return s.compute(&lvls, n, func(j int) []*policy.Policy { return s.At(ts[j].Target) })
}

// ComputePath is Compute for the path with index i in the graph, the fast way: its levels are
// looked up by target number.
func (s *Snapshot) ComputePath(i int) Result {
	r, _ := s.ComputePathKey(nil, i)
	return r
}

// ComputePathKey is ComputePath that also appends the path's fold key (FoldKeyPath) to b.
func (s *Snapshot) ComputePathKey(b []byte, i int) (Result, []byte) {
	var lv [topology.MaxTargets][]*policy.Policy
	var buf [1024]byte
	key, m := s.pathLevels(buf[:0], &lv, i)
	if b != nil {
		b = append(b, key...)
	}
	return s.computeKeyed(key, lv[:m]), b
}

// FoldKey appends to b the fold key of path: the policies of its levels, by identity
// (policy.Policy.AppendID), most specific first. Paths of one snapshot with the same fold key have
// the same effective policy, and the same Mentions of any policy.
func (s *Snapshot) FoldKey(b []byte, path topology.Path) []byte {
	ts, _ := path.LevelTargets()
	lvls, n := path.Levels()
	var lv [topology.MaxTargets][]*policy.Policy
	key, _ := gather(b, &lv, &lvls, n, func(j int) []*policy.Policy { return s.At(ts[j].Target) })
	return key
}

// FoldKeyPath is FoldKey for the path with index i in the graph.
func (s *Snapshot) FoldKeyPath(b []byte, i int) []byte {
	var lv [topology.MaxTargets][]*policy.Policy
	key, _ := s.pathLevels(b, &lv, i)
	return key
}

// pathLevels puts into lv the levels of the path with index i that hold policies (looked up by
// target number), most specific first, appends their fold key to key and returns it with their
// number.
func (s *Snapshot) pathLevels(key []byte, lv *[topology.MaxTargets][]*policy.Policy, i int) ([]byte, int) {
	ids := s.Graph.PathTargetIDs(i)
	lvls, n := s.Graph.Paths[i].Levels()
	return gather(key, lv, &lvls, n, func(j int) []*policy.Policy { return s.atID(ids[j]) })
}

// compute folds the path whose j-th level target (in LevelTargets order, n of them, of level
// lvls[j]) holds the policies at(j), through the memo: the fold key is the policies of each level that has some, by
// identity, most specific first, which is also the order they are folded in. Nothing is allocated
// unless the path must be folded.
func (s *Snapshot) compute(lvls *[topology.MaxTargets]topology.Level, n int, at func(j int) []*policy.Policy) Result {
	var lv [topology.MaxTargets][]*policy.Policy
	var buf [1024]byte
	key, m := gather(buf[:0], &lv, lvls, n, at)
	return s.computeKeyed(key, lv[:m])
}

// computeKeyed folds levels (most specific first) through the memo, under their fold key.
func (s *Snapshot) computeKeyed(key []byte, levels [][]*policy.Policy) Result {
	if s.results != nil {
		if r, ok := s.results.load(key, levels); ok {
			return r
		}
	}
	r := fold(s.Kind, levels, s.Cond, s.conds)
	if s.results != nil {
		r = s.results.store(key, r, levels)
	}
	return r
}

// gather puts into lv the levels of a path that hold policies (n level targets, the j-th of level
// lvls[j] holding at(j)), most specific first, appends their fold key to key and returns it with
// their number.
func gather(key []byte, lv *[topology.MaxTargets][]*policy.Policy, lvls *[topology.MaxTargets]topology.Level, n int, at func(j int) []*policy.Policy) ([]byte, int) {
	m := 0
	for j := n - 1; j >= 0; j-- {
		if ps := at(j); len(ps) > 0 {
			lv[m] = ps
			m++
			key = appendLevel(key, lvls[j], ps)
		}
	}
	return key, m
}

// appendLevel appends one level of a fold key: the level, then its policies by identity
// (policy.Policy.AppendID).
func appendLevel(b []byte, l topology.Level, ps []*policy.Policy) []byte {
	b = binary.LittleEndian.AppendUint64(b, ^uint64(l))
	for _, p := range ps {
		b = p.AppendID(b)
	}
	return b
}
