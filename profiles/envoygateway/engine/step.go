package engine

import (
	"maps"
	"slices"
	"sort"
)

// A Snapshot follows a policy event with a step: WithPolicy resolves the one policy changed and
// edits the indexes of its kind where its old and new scopes are, sharing everything else with the
// snapshot before, so its cost is that of the policy, not of the world.

// Policy returns the stored policy ref of kind.
func (s *Snapshot) Policy(kind string, ref Ref) (*Policy, bool) {
	pp, ok := s.resolved[kind].lookup(ref)
	return pp.policy, ok
}

// WithPolicy returns the snapshot after the stored policy ref of kind became p (nil: deleted, or
// no longer read), as NewSnapshot would build it. s is left as it is.
func (s *Snapshot) WithPolicy(kind string, ref Ref, p *Policy) *Snapshot {
	n := s.next()
	n.setPolicy(kind, ref, p)
	return n
}

// next is a copy of s to step: its per-kind maps copied, the persistent maps in them shared.
func (s *Snapshot) next() *Snapshot {
	n := *s
	n.attach, n.resolved, n.split = maps.Clone(s.attach), maps.Clone(s.resolved), maps.Clone(s.split)
	return &n
}

// setPolicy makes p the stored policy ref of kind (nil: none) in s, a snapshot being stepped.
func (s *Snapshot) setPolicy(kind string, ref Ref, p *Policy) {
	key := policyKey{kind, ref}
	if old, ok := s.resolved[kind].lookup(ref); ok {
		for _, sc := range old.Scopes {
			s.detach(kind, sc, ref)
		}
		s.resolved[kind] = s.resolved[kind].del(ref)
		for _, sc := range namedBy(old.policy) {
			ks := slices.DeleteFunc(slices.Clone(s.named.get(sc)), func(k policyKey) bool { return k == key })
			if len(ks) == 0 {
				s.named = s.named.del(sc)
			} else {
				s.named = s.named.set(sc, ks)
			}
		}
		s.selecting = s.selecting.del(key)
	}
	if p == nil {
		return
	}
	r := s.Resolve(p)
	s.resolved[kind] = s.resolved[kind].set(ref, placedPolicy{policy: p, Resolution: r})
	for _, sc := range r.Scopes {
		s.attachAt(kind, sc, p)
	}
	for _, sc := range namedBy(p) {
		s.named = s.named.set(sc, append(slices.Clone(s.named.get(sc)), key))
	}
	if len(p.Selectors) > 0 {
		s.selecting = s.selecting.set(key, true)
	}
}

// detach removes the policy ref from scope sc of kind.
func (s *Snapshot) detach(kind string, sc Scope, ref Ref) {
	at := s.attach[kind]
	ps := slices.DeleteFunc(slices.Clone(at.get(sc)), func(q *Policy) bool { return q.Ref == ref })
	if len(ps) == 0 {
		s.attach[kind] = at.del(sc)
	} else {
		s.attach[kind] = at.set(sc, ps)
	}
	if k, ok := splitKey(sc); ok {
		if c := s.split[kind].get(k) - 1; c > 0 {
			s.split[kind] = s.split[kind].set(k, c)
		} else {
			s.split[kind] = s.split[kind].del(k)
		}
	}
}

// attachAt adds p to scope sc of kind, in Envoy Gateway's order (older).
func (s *Snapshot) attachAt(kind string, sc Scope, p *Policy) {
	at := s.attach[kind]
	cur := at.get(sc)
	i := sort.Search(len(cur), func(i int) bool { return older(p, cur[i]) })
	s.attach[kind] = at.set(sc, slices.Insert(slices.Clone(cur), i, p))
	if k, ok := splitKey(sc); ok {
		s.split[kind] = s.split[kind].set(k, s.split[kind].get(k)+1)
	}
}

// Stored lists the stored policies of kind, in no order.
func (s *Snapshot) Stored(kind string) []*Policy {
	var out []*Policy
	for _, pp := range s.resolved[kind].all() {
		out = append(out, pp.policy)
	}
	return out
}
