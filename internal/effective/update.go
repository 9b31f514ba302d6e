package effective

import (
	"slices"
	"sort"

	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/topology"
)

// Versions of a snapshot. Rebase moves a snapshot onto the next version of its graph, Update writes
// or removes one policy: both return a new snapshot and leave the one they start from as it was, for
// the requests that hold it. Neither copies the index of the policies the change does not touch,
// and the memoized folds stay shared (memo.go): a topology change keeps every fold (a fold depends
// on the policies of a path, found anew on the new paths), and a policy change drops only the
// folds of the paths that policy reached.

// idTable holds the policies of each numbered target in a two-level tree of chunks that a version
// shares with the version it was made from: setting an entry copies the short root, one branch and
// one leaf. (A single level copied a spine as long as the targets are many at every update: each
// update cost in proportion to the topology, and a review of every policy grew with its square.)
type idTable struct {
	root []*idBranch
}

const (
	idLeafSize   = 64
	idBranchSize = 64
)

type (
	idLeaf   [idLeafSize][]*policy.Policy
	idBranch [idBranchSize]*idLeaf
)

// idPlace is where target number id sits: its branch in the root, its leaf in the branch, its entry
// in the leaf.
func idPlace(id int32) (branch, leaf, entry int) {
	return int(id) / (idLeafSize * idBranchSize), int(id) / idLeafSize % idBranchSize, int(id) % idLeafSize
}

func (t idTable) get(id int32) []*policy.Policy {
	b, l, e := idPlace(id)
	if b >= len(t.root) || t.root[b] == nil || t.root[b][l] == nil {
		return nil
	}
	return t.root[b][l][e]
}

// with returns t with the given entries set (nil: none), copying the branches and leaves it writes.
func (t idTable) with(set map[int32][]*policy.Policy) idTable {
	if len(set) == 0 {
		return t
	}
	out := idTable{root: slices.Clone(t.root)}
	owned := map[any]bool{} // the branches and leaves out has its own copy of
	for id, ps := range set {
		b, l, e := idPlace(id)
		for b >= len(out.root) {
			out.root = append(out.root, nil)
		}
		if br := out.root[b]; !owned[br] {
			c := new(idBranch)
			if br != nil {
				*c = *br
			}
			out.root[b], owned[c] = c, true
		}
		if lf := out.root[b][l]; !owned[lf] {
			c := new(idLeaf)
			if lf != nil {
				*c = *lf
			}
			out.root[b][l], owned[c] = c, true
		}
		out.root[b][l][e] = ps
	}
	return out
}

// indexIDs numbers the policies of each target of byTarget by g's target numbers.
func indexIDs(g *topology.Graph, byTarget layered[topology.Target, []*policy.Policy]) idTable {
	t := idTable{root: make([]*idBranch, (g.TargetIDs()+idLeafSize*idBranchSize-1)/(idLeafSize*idBranchSize))}
	byTarget.each(func(target topology.Target, ps []*policy.Policy) {
		if id, ok := g.TargetID(target); ok {
			b, l, e := idPlace(id)
			if t.root[b] == nil {
				t.root[b] = new(idBranch)
			}
			if t.root[b][l] == nil {
				t.root[b][l] = new(idLeaf)
			}
			t.root[b][l][e] = ps
		}
	})
	return t
}

// Rebase returns s over graph g, a later version of s's graph (topology.Graph.Extends) or any
// other graph (then the index by target number is made anew). s must not be a view.
func (s *Snapshot) Rebase(g *topology.Graph) *Snapshot {
	if g == s.Graph {
		return s
	}
	c := *s
	c.Graph = g
	if !g.Extends(s.Graph) {
		c.byID = indexIDs(g, s.byTarget)
		return &c
	}
	// The targets numbered since: a policy may target one before it exists.
	var set map[int32][]*policy.Policy
	for id := int32(s.Graph.TargetIDs()); id < int32(g.TargetIDs()); id++ {
		if ps, _ := s.byTarget.get(g.TargetOfID(id)); len(ps) > 0 {
			if set == nil {
				set = map[int32][]*policy.Policy{}
			}
			set[id] = ps
		}
	}
	c.byID = s.byID.with(set)
	return &c
}

// condMemoLimit bounds the condition memo a snapshot's versions share: outcomes read from the rules
// of replaced policies are never taken again, so past the limit the next version starts a new one.
const condMemoLimit = 1 << 14

// Update returns s with policy ref written as p (nil: removed), over the same graph. s must not be a
// view.
func (s *Snapshot) Update(ref policy.Ref, p *policy.Policy) *Snapshot {
	old, had := s.byRef.get(ref)
	if (!had && p == nil) || (had && old == p) {
		return s
	}
	c := *s
	var changed, written []topology.Target
	if had {
		changed = TargetsOf(old)
	}
	if p != nil {
		c.byRef = s.byRef.with(map[policy.Ref]change[*policy.Policy]{ref: {p, true}})
		written = TargetsOf(p)
		changed = append(changed, written...)
	} else {
		c.byRef = s.byRef.with(map[policy.Ref]change[*policy.Policy]{ref: {}})
	}
	set := map[int32][]*policy.Policy{}
	targets := make(map[topology.Target]change[[]*policy.Policy], len(changed))
	for _, t := range changed {
		if _, done := targets[t]; done {
			continue
		}
		var out []*policy.Policy
		at, _ := s.byTarget.get(t)
		for _, q := range at {
			if q.Ref != ref {
				out = append(out, q)
			}
		}
		if slices.Contains(written, t) {
			out = append(out, p)
			sort.Slice(out, func(i, j int) bool { return policy.Less(out[i], out[j]) })
		}
		targets[t] = change[[]*policy.Policy]{out, len(out) > 0}
		if id, ok := s.Graph.TargetID(t); ok {
			set[id] = out
		}
	}
	c.byTarget = s.byTarget.with(targets)
	c.byID = s.byID.with(set)
	if had { // before admitting p, which may have old's identity (offline input)
		c.results.retire(old)
		c.mentions.retire(old)
	}
	if p != nil {
		c.results.admit(p)
		c.mentions.admit(p)
	}
	if c.conds.size() > condMemoLimit {
		c.conds = newCondMemo(nil)
	}
	return &c
}

// Reinstate makes s the newest of its versions again once t, a version Update made from s by
// writing refs (directly or through versions between), is dropped: a source that tries a change
// and puts it back (package memory) goes on with s. The policies t holds at refs are retired from
// the memos the versions share and s's are live again, so the folds naming them are memoized again
// (those Update dropped are folded anew when asked for). t may be s, or unrelated to s's memos.
func (s *Snapshot) Reinstate(t *Snapshot, refs []policy.Ref) {
	for _, ref := range refs {
		sp, _ := s.byRef.get(ref)
		if tp, ok := t.byRef.get(ref); ok && tp != sp { // before admitting sp, which may have tp's identity
			t.results.retire(tp)
			t.mentions.retire(tp)
		}
		if sp != nil {
			s.results.admit(sp)
			s.mentions.admit(sp)
		}
	}
}
