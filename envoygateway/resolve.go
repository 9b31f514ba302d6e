package envoygateway

import (
	"sort"
)

// Result is the effective policy of one kind on one path, and how Envoy Gateway got there.
type Result struct {
	Kind string
	Path Path
	Spec map[string]interface{}
	// Sources maps each field id to the policy (ns/name) it comes from.
	Sources map[string]string
	// Holder is the most specific policy that reaches the path, on Scope.
	Holder *Policy
	Scope  Scope
	// Parent is the policy Holder merged into (mergeType), on ParentScope.
	Parent      *Policy
	ParentScope Scope
	// Replaced are broader policies on the path that Holder displaces (whole-policy replacement, or
	// the parents a one-hop merge does not reach); Skipped is a route-level policy that a rule-level
	// merge skips (no chaining).
	Replaced []Placed
	Skipped  *Placed
}

// Placed is a policy on a scope.
type Placed struct {
	Policy *Policy
	Scope  Scope
}

// lookup gives the policies on a scope, oldest (the holder) first.
type lookup func(sc Scope) []*Policy

func (s *Snapshot) base(kind string) lookup {
	at := s.attach[kind]
	return func(sc Scope) []*Policy { return at[sc] }
}

// overlay is the world after a write: old removed, new added on its scopes.
func (s *Snapshot) overlay(kind string, old *Ref, add *Policy, addAt map[Scope]bool) lookup {
	at := s.attach[kind]
	return func(sc Scope) []*Policy {
		base := at[sc]
		if old == nil && !addAt[sc] {
			return base
		}
		out := make([]*Policy, 0, len(base)+1)
		for _, p := range base {
			if old == nil || p.Ref != *old {
				out = append(out, p)
			}
		}
		if addAt[sc] {
			i := sort.Search(len(out), func(i int) bool { return older(add, out[i]) })
			out = append(out, nil)
			copy(out[i+1:], out[i:])
			out[i] = add
		}
		return out
	}
}

func first(ps []*Policy) *Policy {
	if len(ps) == 0 {
		return nil
	}
	return ps[0]
}

// Compute is the effective policy of kind on path i (a listener index for ClientTrafficPolicy).
func (s *Snapshot) Compute(kind string, i int) (Result, bool) {
	return s.compute(kind, s.pathOf(kind, i), s.base(kind))
}

func (s *Snapshot) pathOf(kind string, i int) Path {
	if kind == ClientTrafficPolicy {
		return s.listeners[i]
	}
	return s.Paths[i]
}

// PathCount is the number of paths of a kind (listeners for ClientTrafficPolicy).
func (s *Snapshot) PathCount(kind string) int {
	if kind == ClientTrafficPolicy {
		return len(s.listeners)
	}
	return len(s.Paths)
}

func (s *Snapshot) compute(kind string, p Path, at lookup) (Result, bool) {
	chain := p.Chain()
	if kind == ClientTrafficPolicy {
		// ClientTrafficPolicy applies to listeners only: section first, then ListenerSet-wide, then
		// Gateway-wide (internal/gatewayapi/clienttrafficpolicy.go ProcessClientTrafficPolicies).
		chain = p.parents()
	}
	r := Result{Kind: kind, Path: p}
	if kind == BackendTrafficPolicy && (p.RouteKind == "TCPRoute" || p.RouteKind == "UDPRoute") {
		return s.fill(r, chain, at)
	}
	hi := -1
	for i, sc := range chain {
		if h := first(at(sc)); h != nil {
			r.Holder, r.Scope, hi = h, sc, i
			break
		}
	}
	if r.Holder == nil {
		return r, false
	}
	broader := chain[hi+1:]
	if kind != ClientTrafficPolicy && r.Holder.MergeType != "" && r.Scope.Level() >= LevelRoute {
		// Merge with the single closest parent among the listener, ListenerSet and Gateway
		// policies; a rule-level merge skips the route-level policy
		// (securitypolicy.go processSecurityPolicyForRoute, "Merge with the closest policy").
		for _, sc := range p.parents() {
			if h := first(at(sc)); h != nil {
				r.Parent, r.ParentScope = h, sc
				break
			}
		}
		if r.Scope.Level() == LevelRule {
			rs := chain[hi+1]
			if h := first(at(rs)); h != nil {
				r.Skipped = &Placed{h, rs}
			}
		}
	}
	for _, sc := range broader {
		h := first(at(sc))
		if h == nil || (r.Parent != nil && sc == r.ParentScope) || (r.Skipped != nil && sc == r.Skipped.Scope) {
			continue
		}
		r.Replaced = append(r.Replaced, Placed{h, sc})
	}
	if r.Parent != nil {
		m := Merge(kind, r.Holder.MergeType, r.Parent, r.Holder)
		r.Spec, r.Sources = m.Spec, m.Sources
		return r, true
	}
	r.Spec, r.Sources = r.Holder.Fields, topLevel(r.Holder)
	return r, true
}

// fill is BackendTrafficPolicy on TCP and UDP routes: each level only sets what a more specific
// policy left unset (backendtrafficpolicy.go applyTrafficFeatureToRoute, setIfNil on x.TCP and
// x.UDP), modelled per top-level field.
func (s *Snapshot) fill(r Result, chain []Scope, at lookup) (Result, bool) {
	r.Spec, r.Sources = map[string]interface{}{}, map[string]string{}
	for _, sc := range chain {
		h := first(at(sc))
		if h == nil {
			continue
		}
		if r.Holder == nil {
			r.Holder, r.Scope = h, sc
		}
		for k, v := range h.Fields {
			if _, ok := r.Spec[k]; !ok {
				r.Spec[k], r.Sources[k] = v, h.Ref.String()
			}
		}
	}
	return r, r.Holder != nil
}
