package engine

import (
	"slices"
	"sort"
)

// Before is the order of a world's policies: Less, then by kind (policies of two kinds never share a
// target, so that only makes the order total).
func Before(a, b *Policy) bool {
	if Less(a, b) != Less(b, a) {
		return Less(a, b)
	}
	return a.Kind < b.Kind
}

// WithPolicy is w with the policy of kind named ref read as p (nil: none): the world of w's policies
// with that one changed, in the order Before, sharing w's routes, Services and the indexes derived
// from them, and its indexes of the policies but for the change (persistent maps: w is unchanged).
// A policy's write is indexed at the cost of a copy of the list of policies, not of reading every
// policy and indexing the routes again.
func (w *World) WithPolicy(kind string, ref Ref, p *Policy) *World {
	byTarget := *w.targets()
	k := key{kind, ref}
	old, _ := w.idx.byRef.Get(k)
	n := w.sameRoutes()
	n.Policies = make([]*Policy, 0, len(w.Policies)+1)
	for _, q := range w.Policies {
		if q != old {
			n.Policies = append(n.Policies, q)
		}
	}
	byRef := w.idx.byRef.Delete(k)
	set := func(tk targetKey, ps []*Policy) {
		if len(ps) > 0 {
			byTarget = *byTarget.Set(tk, ps)
		} else {
			byTarget = *byTarget.Delete(tk)
		}
	}
	if old != nil {
		for _, t := range old.Targets {
			tk := targetKey{old.Kind, old.Ref.Namespace, t.Kind, t.Name}
			ps, _ := byTarget.Get(tk)
			set(tk, slices.DeleteFunc(slices.Clone(ps), func(q *Policy) bool { return q == old }))
		}
	}
	if p != nil {
		n.Policies = insert(n.Policies, p)
		byRef = byRef.Set(k, p)
		for _, t := range p.Targets {
			tk := targetKey{p.Kind, p.Ref.Namespace, t.Kind, t.Name}
			ps, _ := byTarget.Get(tk)
			set(tk, insert(slices.Clone(ps), p))
		}
	}
	n.idx.targetOnce.Do(func() { n.idx.byTarget, n.idx.byRef = byTarget, *byRef })
	return n
}

// insert puts p into ps, which are in the order Before, at its place.
func insert(ps []*Policy, p *Policy) []*Policy {
	return slices.Insert(ps, sort.Search(len(ps), func(i int) bool { return !Before(ps[i], p) }), p)
}
