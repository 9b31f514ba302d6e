package engine

import "slices"

// Outcome is allow or deny.
type Outcome string

// Outcomes of a decision, of an ExternalAuth call and of a trace entry.
const (
	Allow Outcome = "allow"
	Deny  Outcome = "deny"
)

// Trace results besides allow and deny.
const (
	// ResultAssumed: an ExternalAuth rule whose outcome was not given, assumed to allow.
	ResultAssumed = "assumed"
	// ResultNotListed: an allow rule for the source that does not allow the tool.
	ResultNotListed = "not listed"
)

// Request is one tool call through a Gateway to a Backend.
type Request struct {
	Source Principal
	Tool   string
	// ExternalAuth holds the outcome of each policy's ExternalAuth rule, by policy "namespace/name".
	// A policy missing from the map is assumed to allow, and the trace says so.
	ExternalAuth map[string]Outcome
}

// Decision is the result of Evaluate, in the shape of `precedent access -o json`.
type Decision struct {
	Decision Outcome `json:"decision"`
	// Level and Policy name where the request was denied; empty when allowed.
	Level  Level        `json:"level"`
	Policy string       `json:"policy"`
	Trace  []TraceEntry `json:"trace"`
}

// TraceEntry is one rule consulted, in evaluation order.
type TraceEntry struct {
	Level  Level             `json:"level"`
	Policy string            `json:"policy"`
	Rule   string            `json:"rule"`
	Type   AuthorizationType `json:"type"`
	// Result is allow or deny (ExternalAuth outcome given), assumed (not given), allow or not listed
	// (allow rules).
	Result string `json:"result"`
}

// Evaluate decides one request: the policies targeting the Gateway, then those targeting the Backend
// (docs/profiles/access-and-mesh.md; kube-agentic-networking's AccessPolicy proposal as amended by its PR #220). At each level, in precedence order
// (older creationTimestamp, then namespace/name): first every ExternalAuth rule whose source matches
// (any deny denies here); then the allow rules: a level without any passes, otherwise a matching rule
// must allow the tool (AnyAllow), or every policy with allow rules must (AllAllow). Only the rules
// whose source matches are consulted and traced. The inputs are not modified.
func Evaluate(req Request, gatewayPolicies, backendPolicies []Policy, s Settings) Decision {
	// One allocation for the trace: at most the rules whose source matches are consulted.
	n := matching(gatewayPolicies, req.Source) + matching(backendPolicies, req.Source)
	d := Decision{Decision: Allow, Trace: make([]TraceEntry, 0, n)}
	allAllow := s.Combine == AllAllow
	if evaluateLevel(&d, LevelGateway, &req, gatewayPolicies, allAllow) {
		evaluateLevel(&d, LevelBackend, &req, backendPolicies, allAllow)
	}
	return d
}

// matching counts the rules of ps whose source is source.
func matching(ps []Policy, source Principal) int {
	n := 0
	for i := range ps {
		for j := range ps[i].Rules {
			if ps[i].Rules[j].Source == source {
				n++
			}
		}
	}
	return n
}

// evaluateLevel runs steps 2 and 3 on one level and reports whether the level passes; on a denial it
// fills d's decision, level and policy.
func evaluateLevel(d *Decision, level Level, req *Request, ps []Policy, allAllow bool) bool {
	order := precedence(ps)
	at := func(k int) *Policy {
		if order == nil {
			return &ps[k]
		}
		return &ps[order[k]]
	}
	deny := func(p *Policy) bool {
		d.Decision, d.Level, d.Policy = Deny, level, p.Key()
		return false
	}
	for k := range ps {
		p := at(k)
		for i := range p.Rules {
			r := &p.Rules[i]
			if r.Type != ExternalAuth || r.Source != req.Source {
				continue
			}
			key := p.Key()
			result := ResultAssumed
			if o, ok := req.ExternalAuth[key]; ok {
				result = string(o)
			}
			d.Trace = append(d.Trace, TraceEntry{Level: level, Policy: key, Rule: r.Name, Type: ExternalAuth, Result: result})
			if result == string(Deny) {
				return deny(p)
			}
		}
	}
	var first *Policy // the first policy in precedence order with allow rules
	for k := range ps {
		p := at(k)
		if !p.hasAllowRules() {
			continue
		}
		if first == nil {
			first = p
		}
		allowed := false
		for i := range p.Rules {
			r := &p.Rules[i]
			if r.Type == ExternalAuth || r.Source != req.Source {
				continue
			}
			result := ResultNotListed
			if r.allows(req.Tool) {
				result, allowed = string(Allow), true
			}
			d.Trace = append(d.Trace, TraceEntry{Level: level, Policy: p.Key(), Rule: r.Name, Type: r.Type, Result: result})
			if allowed {
				break
			}
		}
		if allowed && !allAllow {
			return true
		}
		if !allowed && allAllow {
			return deny(p)
		}
	}
	if first == nil || allAllow {
		return true
	}
	return deny(first)
}

// precedence returns the indexes of ps in precedence order, or nil when ps is already in order.
func precedence(ps []Policy) []int {
	sorted := true
	for i := 1; i < len(ps); i++ {
		if before(&ps[i], &ps[i-1]) {
			sorted = false
			break
		}
	}
	if sorted {
		return nil
	}
	order := make([]int, len(ps))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case before(&ps[a], &ps[b]):
			return -1
		case before(&ps[b], &ps[a]):
			return 1
		}
		return 0
	})
	return order
}

// before reports whether a precedes b: older creationTimestamp, then namespace/name.
func before(a, b *Policy) bool {
	if !a.CreationTimestamp.Equal(b.CreationTimestamp) {
		return a.CreationTimestamp.Before(b.CreationTimestamp)
	}
	return compareKeys(a, b) < 0
}

// compareKeys compares "namespace/name" of a and b as strings, without building them.
func compareKeys(a, b *Policy) int {
	ka := [3]string{a.Namespace, "/", a.Name}
	kb := [3]string{b.Namespace, "/", b.Name}
	i, j, x, y := 0, 0, 0, 0 // part and offset in ka, kb
	for {
		for i < 3 && x == len(ka[i]) {
			i, x = i+1, 0
		}
		for j < 3 && y == len(kb[j]) {
			j, y = j+1, 0
		}
		switch {
		case i == 3 && j == 3:
			return 0
		case i == 3:
			return -1
		case j == 3:
			return 1
		}
		if ca, cb := ka[i][x], kb[j][y]; ca != cb {
			if ca < cb {
				return -1
			}
			return 1
		}
		x, y = x+1, y+1
	}
}

// SortByPrecedence sorts ps in place in precedence order.
func SortByPrecedence(ps []Policy) {
	slices.SortStableFunc(ps, func(a, b Policy) int {
		switch {
		case before(&a, &b):
			return -1
		case before(&b, &a):
			return 1
		}
		return 0
	})
}
