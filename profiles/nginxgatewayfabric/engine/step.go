package engine

import (
	"maps"
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
// from them; its indexes of the policies are w's, copied with the change (w is unchanged). A
// policy's write is indexed at the cost of a copy of those indexes, not of reading every policy and
// indexing the routes again.
func (w *World) WithPolicy(kind string, ref Ref, p *Policy) *World {
	byTarget := w.targets()
	k := key{kind, ref}
	old := w.idx.byRef[k]
	n := w.sameRoutes()
	n.Policies = make([]*Policy, 0, len(w.Policies)+1)
	for _, q := range w.Policies {
		if q != old {
			n.Policies = append(n.Policies, q)
		}
	}
	byRef, targets := maps.Clone(w.idx.byRef), maps.Clone(byTarget)
	delete(byRef, k)
	if old != nil {
		for _, t := range old.Targets {
			tk := targetKey{old.Kind, old.Ref.Namespace, t.Kind, t.Name}
			if l := slices.DeleteFunc(slices.Clone(targets[tk]), func(q *Policy) bool { return q == old }); len(l) > 0 {
				targets[tk] = l
			} else {
				delete(targets, tk)
			}
		}
	}
	if p != nil {
		n.Policies = insert(n.Policies, p)
		byRef[k] = p
		for _, t := range p.Targets {
			tk := targetKey{p.Kind, p.Ref.Namespace, t.Kind, t.Name}
			targets[tk] = insert(slices.Clone(targets[tk]), p)
		}
	}
	n.idx.targetOnce.Do(func() { n.idx.byTarget, n.idx.byRef = targets, byRef })
	return n
}

// insert puts p into ps, which are in the order Before, at its place.
func insert(ps []*Policy, p *Policy) []*Policy {
	return slices.Insert(ps, sort.Search(len(ps), func(i int) bool { return !Before(ps[i], p) }), p)
}
