package engine

import (
	"sort"
	"strings"
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
	return func(sc Scope) []*Policy { return at.get(sc) }
}

// overlay is the world after a write: old removed, new added on its scopes (a few: compared in
// a slice, cheaper than hashing a scope).
func (s *Snapshot) overlay(kind string, old *Ref, add *Policy, addScopes []Scope) lookup {
	at := s.attach[kind]
	return func(sc Scope) []*Policy {
		base := at.get(sc)
		added := false
		for _, a := range addScopes {
			if a == sc {
				added = true
				break
			}
		}
		if !added && (old == nil || !holds(base, *old)) {
			return base
		}
		out := make([]*Policy, 0, len(base)+1)
		for _, p := range base {
			if old == nil || p.Ref != *old {
				out = append(out, p)
			}
		}
		if added {
			i := sort.Search(len(out), func(i int) bool { return older(add, out[i]) })
			out = append(out, nil)
			copy(out[i+1:], out[i:])
			out[i] = add
		}
		return out
	}
}

func holds(ps []*Policy, r Ref) bool {
	for _, p := range ps {
		if p.Ref == r {
			return true
		}
	}
	return false
}

func first(ps []*Policy) *Policy {
	if len(ps) == 0 {
		return nil
	}
	return ps[0]
}

// Compute is the effective policy of kind on path i (a listener index for ClientTrafficPolicy).
func (s *Snapshot) Compute(kind string, i int) (Result, bool) {
	p, live := s.index(kind).at(i)
	if !live {
		return Result{}, false
	}
	return s.compute(kind, p, s.base(kind), nil)
}

// merges memoizes the merges of one computation (the rules of a route share their policies).
type merges map[[2]*Policy]Merged

func (s *Snapshot) pathOf(kind string, i int) Path {
	p, _ := s.index(kind).at(i)
	return p
}

// index is the paths of a kind: the listeners for ClientTrafficPolicy.
func (s *Snapshot) index(kind string) pathIndex {
	if kind == ClientTrafficPolicy {
		return s.listeners
	}
	return s.paths
}

// PathCount is the number of paths of a kind (listeners for ClientTrafficPolicy), dead ones
// included: Compute says false for those.
func (s *Snapshot) PathCount(kind string) int { return s.index(kind).len() }

func (s *Snapshot) compute(kind string, p Path, at lookup, memo merges) (Result, bool) {
	c, n := p.chain()
	chain := c[:n]
	if kind == ClientTrafficPolicy {
		// ClientTrafficPolicy applies to listeners only: section first, then ListenerSet-wide, then
		// Gateway-wide (internal/gatewayapi/clienttrafficpolicy.go ProcessClientTrafficPolicies).
		chain = chain[n-len(p.parents()):]
	}
	r := Result{Kind: kind, Path: p}
	if kind == BackendTrafficPolicy && (p.RouteKind == "TCPRoute" || p.RouteKind == "UDPRoute") {
		return s.fill(r, chain, at)
	}
	hs, hi := holders(chain, at)
	if hi < 0 {
		return r, false
	}
	r.Holder, r.Scope = hs[hi], chain[hi]
	r.placeBroader(chain, hs[:], hi)
	if r.Parent != nil {
		m := merged(kind, r.Parent, r.Holder, memo)
		r.Spec, r.Sources = m.Spec, m.Sources
		return r, true
	}
	r.Spec, r.Sources = r.Holder.Fields, r.Holder.sourceMap()
	if kind == SecurityPolicy && p.RouteKind == "TCPRoute" && r.Scope.Level() < LevelRoute {
		r.Spec, r.Sources = authorizationOnly(r.Spec, r.Sources)
	}
	return r, true
}

// holders looks up the holder of each scope of the chain, most specific first (one lookup per
// scope); hi is the index of the most specific scope held, -1 when none is.
func holders(chain []Scope, at lookup) (hs [5]*Policy, hi int) {
	hi = -1
	for i, sc := range chain {
		hs[i] = first(at(sc))
		if hs[i] != nil && hi < 0 {
			hi = i
		}
	}
	return hs, hi
}

// placeBroader records what becomes of the policies held on the chain's scopes broader than the
// holder's (hs[hi]): the parent a mergeable route or rule policy merges into, the route-level
// policy a rule-level merge skips, and the rest replaced.
func (r *Result) placeBroader(chain []Scope, hs []*Policy, hi int) {
	parent, skipped := -1, -1
	if r.Kind != ClientTrafficPolicy && r.Holder.MergeType != "" && r.Scope.Level() >= LevelRoute {
		// Merge with the single closest parent among the listener, ListenerSet and Gateway
		// policies; a rule-level merge skips the route-level policy
		// (securitypolicy.go processSecurityPolicyForRoute, "Merge with the closest policy").
		for i := hi + 1; i < len(chain); i++ {
			if chain[i].Level() < LevelRoute && hs[i] != nil {
				parent = i
				r.Parent, r.ParentScope = hs[i], chain[i]
				break
			}
		}
		if r.Scope.Level() == LevelRule && hs[hi+1] != nil {
			skipped = hi + 1
			r.Skipped = &Placed{hs[hi+1], chain[hi+1]}
		}
	}
	for i := hi + 1; i < len(chain); i++ {
		if hs[i] != nil && i != parent && i != skipped {
			r.Replaced = append(r.Replaced, Placed{hs[i], chain[i]})
		}
	}
}

// merged is holder merged into parent, memoized in memo when memo is not nil.
func merged(kind string, parent, holder *Policy, memo merges) Merged {
	key := [2]*Policy{parent, holder}
	m, ok := memo[key]
	if !ok {
		m = Merge(kind, holder.MergeType, parent, holder)
		if memo != nil {
			memo[key] = m
		}
	}
	return m
}

// authorizationOnly keeps the authorization of a listener- or Gateway-level SecurityPolicy on a
// TCP route: Envoy Gateway applies only that to TCP listeners' routes and accepts the policy
// (securitypolicy.go translateSecurityPolicyForListeners, "Apply to TCP listeners (Authorization
// only)"; validateSecurityPolicyForTCP runs for TCPRoute targets only).
func authorizationOnly(spec map[string]interface{}, sources map[string]string) (map[string]interface{}, map[string]string) {
	outSpec, outSources := map[string]interface{}{}, map[string]string{}
	if v, ok := spec["authorization"]; ok {
		outSpec["authorization"] = v
	}
	for id, from := range sources {
		if id == "authorization" || strings.HasPrefix(id, "authorization.") || strings.HasPrefix(id, "authorization[") {
			outSources[id] = from
		}
	}
	return outSpec, outSources
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
