package engine

import (
	"slices"

	"github.com/precedent-dev/precedent/internal/warning"
)

// DefaultWarningLimit is the number of warnings ProjectWrite returns at most when no limit is given.
const DefaultWarningLimit = 10

// ProjectWrite returns the admission warnings for a write of policy written, given every other
// AccessPolicy in the cluster (others; an entry with written's namespace/name is the stored version,
// which the write replaces) and the topology. For a Gateway-level write: the grants of Backend-level
// policies behind the Gateway that were reachable before the write and are not after it. For a
// Backend-level write: the grants of written that a Gateway in front of its Backend denies. A grant
// is a (source, tool) an allow rule lets through; ExternalAuth outcomes are unknown and assumed to
// allow. Warnings name policies, sources and tools only; they are deduplicated and at most limit
// (DefaultWarningLimit when limit <= 0), the last one saying how many more there are. A target's
// sectionName (a Gateway listener) is not modelled: the policy counts for the whole Gateway. Re-applying
// an unchanged Gateway-level policy warns about nothing, since it makes nothing newly unreachable.
func ProjectWrite(written Policy, others []Policy, topo *Topology, s Settings, limit int) []string {
	s = s.withDefaults()
	pr := projector{allAllow: s.Combine == AllAllow, seen: map[string]bool{}}
	if topo == nil {
		topo = &Topology{}
	}
	var old *Policy
	rest := make([]*Policy, 0, len(others))
	for i := range others {
		if others[i].Namespace == written.Namespace && others[i].Name == written.Name {
			old = &others[i]
			continue
		}
		rest = append(rest, &others[i])
	}
	if written.Level() == LevelGateway {
		gateways := targetKeys(&written, GatewayGroup, GatewayKind)
		if old != nil {
			gateways = append(gateways, targetKeys(old, GatewayGroup, GatewayKind)...)
		}
		slices.Sort(gateways)
		gateways = slices.Compact(gateways)
		backends := backendIndex(rest, s)
		for _, gw := range gateways {
			before := gatewayPolicies(rest, old, gw)
			after := gatewayPolicies(rest, &written, gw)
			pr.gatewayWrite(gw, newLevelCheck(before), newLevelCheck(after), topo.BackendsBehind(gw), backends)
		}
	} else {
		for _, b := range targetKeys(&written, s.BackendGroup, s.BackendKind) {
			for _, gw := range topo.GatewaysInFront(b) {
				check := newLevelCheck(gatewayPolicies(rest, nil, gw))
				pr.grants(gw, &written, check, nil)
			}
			pr.backendWrite(b, &written, old, rest, s)
		}
	}
	return capWarnings(pr.warnings, limit)
}

// backendWrite warns about the grants of the other policies of backend b (in rest) that its level
// let through before the write (old, the stored version, or nil) and not after (written): under
// combine allAllow, a policy whose allow rules leave out a source's tools denies them for every
// policy of the backend.
func (pr *projector) backendWrite(b string, written, old *Policy, rest []*Policy, s Settings) {
	var others []*Policy
	for _, p := range rest {
		if targetsKey(p, s.BackendGroup, s.BackendKind, b) && p.hasAllowRules() {
			others = append(others, p)
		}
	}
	if len(others) == 0 {
		return // nothing granted by another policy here
	}
	slices.SortStableFunc(others, byPrecedence) // warned in precedence order
	level := func(p *Policy) *levelCheck {
		ps := make([]Policy, 0, len(others)+1)
		for _, o := range others {
			ps = append(ps, *o)
		}
		if p != nil && targetsKey(p, s.BackendGroup, s.BackendKind, b) {
			ps = append(ps, *p)
		}
		SortByPrecedence(ps)
		return newCheckAt(LevelBackend, ps)
	}
	before, after := level(old), level(written)
	for _, o := range others {
		pr.revoked(b, o, before, after)
	}
}

// ProjectDelete returns the admission warnings for the deletion of policy deleted, given every other
// AccessPolicy in the cluster (an entry with deleted's namespace/name is ignored) and the topology:
// the level it leaves without allow rules, which then lets every source through ("opened"), and
// the grants that were reachable before and are not after. For a Gateway-level policy these are
// the grants of the Backend-level policies behind its Gateways, as ProjectWrite computes them; for a
// Backend-level policy, its own grants that no rule left on the Backend allows. Warnings are capped
// as ProjectWrite's.
func ProjectDelete(deleted Policy, others []Policy, topo *Topology, s Settings, limit int) []string {
	s = s.withDefaults()
	pr := projector{allAllow: s.Combine == AllAllow, seen: map[string]bool{}}
	if topo == nil {
		topo = &Topology{}
	}
	rest := make([]*Policy, 0, len(others))
	for i := range others {
		if others[i].Namespace != deleted.Namespace || others[i].Name != deleted.Name {
			rest = append(rest, &others[i])
		}
	}
	backends := backendIndex(rest, s)
	if deleted.Level() == LevelGateway {
		for _, gw := range targetKeys(&deleted, GatewayGroup, GatewayKind) {
			before, after := newLevelCheck(gatewayPolicies(rest, &deleted, gw)), newLevelCheck(gatewayPolicies(rest, nil, gw))
			if before.restricts() && !after.restricts() {
				n, plural := len(topo.BackendsBehind(gw)), "s"
				if n == 1 {
					plural = ""
				}
				pr.add(codeLeftOpen.Linef("removing this policy leaves gateway %s without allow rules: every source may call every tool of the %d backend%s behind it", gw, n, plural))
			}
			pr.gatewayWrite(gw, before, after, topo.BackendsBehind(gw), backends)
		}
		return capWarnings(pr.warnings, limit)
	}
	for _, b := range targetKeys(&deleted, s.BackendGroup, s.BackendKind) {
		left := make([]Policy, 0, len(backends[b]))
		for _, p := range backends[b] {
			left = append(left, *p)
		}
		withDeleted := append(append([]Policy(nil), left...), deleted)
		SortByPrecedence(withDeleted)
		before, after := newCheckAt(LevelBackend, withDeleted), newCheckAt(LevelBackend, left)
		if before.restricts() && !after.restricts() {
			pr.add(codeLeftOpen.Linef("removing this policy leaves backend %s without allow rules: every source that passes the gateways in front of it may call every tool", b))
			continue
		}
		pr.revoked(b, &deleted, before, after)
	}
	return capWarnings(pr.warnings, limit)
}

// revoked warns about each grant of p (deleted, or another policy of the backend) that passed backend b's level before and does not after.
func (pr *projector) revoked(b string, p *Policy, before, after *levelCheck) {
	for i := range p.Rules {
		r := &p.Rules[i]
		switch r.Type {
		case AllTools:
			if _, was := before.reachableAny(r.Source, pr.allAllow); was {
				if reason, ok := after.reachableAny(r.Source, pr.allAllow); !ok {
					pr.add(codeUnreachable.Linef("all tools granted to %s by %s are no longer granted at backend %s: %s", r.Source, p.Key(), b, reason))
				}
			}
		case InlineTools:
			for _, t := range r.Tools {
				if _, was := before.reachable(r.Source, t, pr.allAllow); was {
					if reason, ok := after.reachable(r.Source, t, pr.allAllow); !ok {
						pr.add(codeUnreachable.Linef("tool `%s` granted to %s by %s is no longer granted at backend %s: %s", t, r.Source, p.Key(), b, reason))
					}
				}
			}
		}
	}
}

type projector struct {
	allAllow bool
	seen     map[string]bool
	warnings []string
}

func (pr *projector) gatewayWrite(gw string, before, after *levelCheck, behind []string, backends map[string][]*Policy) {
	for _, b := range behind {
		for _, bp := range backends[b] {
			pr.grants(gw, bp, after, before)
		}
	}
}

// grants warns about each grant of p that check denies at gateway gw and, when before is given,
// that before let through.
func (pr *projector) grants(gw string, p *Policy, check, before *levelCheck) {
	for i := range p.Rules {
		r := &p.Rules[i]
		switch r.Type {
		case AllTools:
			if reason, ok := check.reachableAny(r.Source, pr.allAllow); !ok {
				if _, was := before.reachableAnyOrTrue(r.Source, pr.allAllow); was {
					pr.add(codeUnreachable.Linef("all tools granted to %s by %s are denied at gateway %s: %s", r.Source, p.Key(), gw, reason))
				}
			}
		case InlineTools:
			for _, t := range r.Tools {
				if reason, ok := check.reachable(r.Source, t, pr.allAllow); !ok {
					if _, was := before.reachableOrTrue(r.Source, t, pr.allAllow); was {
						pr.add(codeUnreachable.Linef("tool `%s` granted to %s by %s is denied at gateway %s: %s", t, r.Source, p.Key(), gw, reason))
					}
				}
			}
		}
	}
}

func (pr *projector) add(w string) {
	if !pr.seen[w] {
		pr.seen[w] = true
		pr.warnings = append(pr.warnings, w)
	}
}

func capWarnings(ws []string, limit int) []string {
	return grantsLimit(limit).Apply(ws)
}

// grantsLimit caps the warnings of a projection at limit (DefaultWarningLimit when limit <= 0),
// the closing line counting the unreachable grants left out.
func grantsLimit(limit int) warning.Limit {
	return warning.Limit{N: warningLimit(limit), More: func(shown, rest int) string {
		if shown == 0 {
			return codeUnreachable.Linef("%d grants become unreachable", rest)
		}
		return codeUnreachable.Linef("and %d more unreachable grants", rest)
	}}
}

// targetKeys returns "namespace/name" of p's targets of group/kind.
func targetKeys(p *Policy, group, kind string) []string {
	var keys []string
	for _, t := range p.Targets {
		if t.Group == group && t.Kind == kind {
			keys = append(keys, p.Namespace+"/"+t.Name)
		}
	}
	return keys
}

// gatewayPolicies returns the policies among rest and extra (when not nil) that target gateway gw,
// in precedence order.
func gatewayPolicies(rest []*Policy, extra *Policy, gw string) []Policy {
	var ps []Policy
	for _, p := range rest {
		if targetsKey(p, GatewayGroup, GatewayKind, gw) {
			ps = append(ps, *p)
		}
	}
	if extra != nil && targetsKey(extra, GatewayGroup, GatewayKind, gw) {
		ps = append(ps, *extra)
	}
	SortByPrecedence(ps)
	return ps
}

// backendIndex maps each backend "namespace/name" to the policies targeting it, in precedence order.
func backendIndex(rest []*Policy, s Settings) map[string][]*Policy {
	idx := map[string][]*Policy{}
	for _, p := range rest {
		for _, k := range targetKeys(p, s.BackendGroup, s.BackendKind) {
			if l := idx[k]; len(l) == 0 || l[len(l)-1] != p {
				idx[k] = append(l, p)
			}
		}
	}
	for _, l := range idx {
		slices.SortStableFunc(l, byPrecedence)
	}
	return idx
}

// byPrecedence orders policies as before does, for slices.SortStableFunc.
func byPrecedence(a, b *Policy) int {
	switch {
	case before(a, b):
		return -1
	case before(b, a):
		return 1
	}
	return 0
}

func targetsKey(p *Policy, group, kind, key string) bool {
	for _, t := range p.Targets {
		if t.Group == group && t.Kind == kind && len(key) == len(p.Namespace)+1+len(t.Name) &&
			key[:len(p.Namespace)] == p.Namespace && key[len(p.Namespace)] == '/' && key[len(p.Namespace)+1:] == t.Name {
			return true
		}
	}
	return false
}
