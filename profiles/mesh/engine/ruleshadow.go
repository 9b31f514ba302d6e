package engine

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// Reasons of the rules warnings (Warning.Reason; %s is the list of what decides instead).
const (
	reasonDenied   = "%s denies all it matches, and Kuma matches deny first"
	reasonReplaced = "the spec.rules of %s replace its from items wherever it applies"
)

// permissionKey names one allow or allowWithShadowDeny match of a rule, or (path "") a whole policy.
type permissionKey struct {
	p    *Policy
	path string
}

// permCount is what the classes say of one permissionKey: how many classes hold it, in how many it
// never takes effect, and per denying match (or replacing policy) in how many it is the cause.
type permCount struct {
	classes, shadowed int
	by                map[permissionKey]int
}

// permissionShadowed finds, over classes (each the Kuma MeshTrafficPermissions that select some
// Dataplanes), what of them never takes effect because of Kuma's rules (rbac_configurer.go and
// plugin.go in pkg/plugins/policies/meshtrafficpermission, v2.14):
//   - an allow or allowWithShadowDeny match that, on every Dataplane its policy selects, a deny match
//     of the rules there covers (it selects every client the allow selects): every deny is matched
//     first;
//   - a policy with from items that, on every Dataplane it selects, meets a policy with rules: Kuma
//     then builds the inbound's RBAC from the rules and leaves the from items out.
func permissionShadowed(v Version, classes [][]*Policy) []Warning {
	agg := map[permissionKey]*permCount{}
	for _, c := range classes {
		addPerm(agg, classPermissions(v, c), 1)
	}
	return permWarnings(agg, nil)
}

// classPermissions is one class's contribution to permissionShadowed: every from policy and every
// allow match of the class counted once, as void or not there. Rules replace the from items only
// on Kuma versions that do not merge them (Version.mergesFromWithRules: 2.14).
func classPermissions(v Version, class []*Policy) map[permissionKey]*permCount {
	var withRules []*Policy
	for _, p := range class {
		if permRules(p) {
			withRules = append(withRules, p)
		}
	}
	out := map[permissionKey]*permCount{}
	for _, p := range class {
		if !p.Kuma() || p.Kind != KindMeshTrafficPermission {
			continue
		}
		withRules := sameInbounds(p, withRules)
		if len(p.Rules) == 0 {
			s := &permCount{classes: 1}
			if len(withRules) > 0 && !v.mergesFromWithRules() {
				s.shadowed = 1
				s.by = make(map[permissionKey]int, len(withRules))
				for _, q := range withRules {
					s.by[permissionKey{p: q}] = 1
				}
			}
			out[permissionKey{p: p}] = s
			continue
		}
		for i := range p.Rules {
			for _, name := range []string{ListAllow, ListAllowWithShadowDeny} {
				for j := range p.Rules[i].Lists[name] {
					m := &p.Rules[i].Lists[name][j]
					if m.Empty() {
						continue // matches nothing: said on its own (ruleAdvice)
					}
					s := &permCount{classes: 1}
					if by := deniedBy(m, withRules); len(by) > 0 {
						s.shadowed = 1
						s.by = make(map[permissionKey]int, len(by))
						for _, b := range by {
							s.by[b] = 1
						}
					}
					out[permissionKey{p, listPath(i, name, j)}] = s
				}
			}
		}
	}
	return out
}

// addPerm adds (sign 1) or subtracts (sign -1) a class's contribution.
func addPerm(agg, contrib map[permissionKey]*permCount, sign int) {
	for k, c := range contrib {
		a := agg[k]
		if a == nil {
			a = &permCount{}
			agg[k] = a
		}
		a.classes += sign * c.classes
		a.shadowed += sign * c.shadowed
		for b, n := range c.by {
			if a.by == nil {
				a.by = map[permissionKey]int{}
			}
			if a.by[b] += sign * n; a.by[b] == 0 {
				delete(a.by, b)
			}
		}
		if a.classes == 0 {
			delete(agg, k)
		}
	}
}

// permWarnings turns summed counts into warnings: a key void in every class that holds it. only,
// when set, limits them to its policies.
func permWarnings(agg map[permissionKey]*permCount, only map[*Policy]bool) []Warning {
	var out []Warning
	for k, s := range agg {
		if s.classes <= 0 || s.shadowed < s.classes || (only != nil && !only[k.p]) {
			continue
		}
		w := Warning{Ref: policyRef(k.p, k.path), Reason: reasonDenied}
		if k.path == "" {
			w.Reason = reasonReplaced
		}
		bys := make([]permissionKey, 0, len(s.by))
		for b, n := range s.by {
			if n > 0 {
				bys = append(bys, b)
			}
		}
		sort.Slice(bys, func(i, j int) bool {
			if bys[i].p != bys[j].p {
				return higher(bys[i].p, bys[j].p)
			}
			return bys[i].path < bys[j].path
		})
		for _, b := range bys {
			w.By = append(w.By, policyRef(b.p, b.path))
		}
		out = append(out, w)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].ID() != out[j].ID() {
			return out[i].ID() < out[j].ID()
		}
		return out[i].Path < out[j].Path
	})
	return out
}

// sameInbounds keeps the policies that reach every inbound p reaches: a policy whose top-level
// Dataplane targetRef names a sectionName reaches one inbound only (the topology does not tell
// inbounds apart), so it voids nothing of a policy that reaches others.
func sameInbounds(p *Policy, policies []*Policy) []*Policy {
	var out []*Policy
	for _, q := range policies {
		if s := q.TargetRef.SectionName; s == "" || s == p.TargetRef.SectionName {
			out = append(out, q)
		}
	}
	return out
}

// deniedBy returns the deny matches of the policies' rules that cover m.
func deniedBy(m *Match, policies []*Policy) []permissionKey {
	var out []permissionKey
	for _, q := range policies {
		for i := range q.Rules {
			for j := range q.Rules[i].Lists[ListDeny] {
				if q.Rules[i].Lists[ListDeny][j].covers(m) {
					out = append(out, permissionKey{q, listPath(i, ListDeny, j)})
				}
			}
		}
	}
	return out
}

func listPath(i int, name string, j int) string {
	return fmt.Sprintf("spec.rules[%d].default.%s[%d]", i, name, j)
}

// Deprecations returns the warnings a write of a Kuma policy with spec.from gets whatever the mesh
// holds: from is deprecated by Kuma 2.x and dropped silently by 3.0 on create and update (Kuma's
// UPGRADE notes; Deprecations in meshtrafficpermission/api/v1alpha1/deprecated.go), then the
// spec.rules item equivalent to each from item. The webhook gives them with the write's other
// warnings; `precedent validate -f` does not.
func Deprecations(p *Policy) []string {
	if !p.Kuma() || len(p.From) == 0 {
		return nil
	}
	out := []string{codeFromDeprecated.Linef("%s %s: spec.from is deprecated by Kuma 2.x and dropped silently by Kuma 3.0 on create and update: use spec.rules", p.Kind, p.ID())}
	for i, r := range rulesForm(p) {
		out = append(out, codeFromDeprecated.Linef("%s %s: spec.from[%d] as spec.rules[%d]: %s", p.Kind, p.ID(), i, i, r))
	}
	return out
}

// ruleAdvice returns the rules items of a Kuma policy that never apply whatever the mesh holds:
//   - a MeshTimeout rule match without a spiffeID: only matches with one become routes
//     (matchedRouteTimeoutRules in meshtimeout/plugin/xds/configurer.go);
//   - a MeshTrafficPermission match with neither spiffeID nor sni matches nothing (Kuma's matcher
//     builder skips it).
func ruleAdvice(p *Policy) []string {
	if !p.Kuma() {
		return nil
	}
	var out []string
	for i := range p.Rules {
		r := &p.Rules[i]
		for j := range r.Matches {
			if r.Matches[j].SpiffeID == nil && r.Matches[j].SNI != nil {
				out = append(out, codeMatchNeverApplies.Linef("%s %s: spec.rules[%d].matches[%d] never takes effect: Kuma applies a rule only to matches with a spiffeID", p.Kind, p.ID(), i, j))
			}
		}
		for _, name := range []string{ListDeny, ListAllow, ListAllowWithShadowDeny} {
			for j := range r.Lists[name] {
				if r.Lists[name][j].Empty() {
					out = append(out, codeMatchNeverApplies.Linef("%s %s: %s matches nothing: set spiffeID or sni", p.Kind, p.ID(), listPath(i, name, j)))
				}
			}
		}
	}
	return out
}

// rulesForm renders the spec.rules item equivalent to each of a policy's from items, in JSON (one
// warning line each, so that each stays within the API server's warning length). MeshTimeout's from
// items all target the Mesh: each becomes a rule with its default. A MeshTrafficPermission item's
// action becomes a list of its rule, matched on the clients' SPIFFE IDs (MeshIdentity's
// spiffe://<trust-domain>/ns/<namespace>/sa/<service-account>): the whole trust domain for Mesh, a
// placeholder naming the service or tags otherwise, to fill in.
func rulesForm(p *Policy) []string {
	out := make([]string, 0, len(p.From))
	for _, e := range p.From {
		if p.Kind != KindMeshTrafficPermission {
			out = append(out, compactJSON(map[string]interface{}{"default": e.Conf}))
			continue
		}
		list := map[string]string{"Allow": ListAllow, "Deny": ListDeny, "AllowWithShadowDeny": ListAllowWithShadowDeny}[fmt.Sprint(e.Conf["action"])]
		match := map[string]interface{}{"type": MatchPrefix, "value": "spiffe://<trust-domain>"}
		switch r := e.TargetRef; r.Kind {
		case MeshService:
			match = map[string]interface{}{"type": MatchExact, "value": "spiffe://<trust-domain>/ns/<namespace>/sa/<service account of " + r.Name + ">"}
		case MeshServiceSubset, MeshSubset:
			match = map[string]interface{}{"type": MatchExact, "value": "spiffe://<trust-domain>/ns/<namespace>/sa/<service account of " + Selector{Service: r.Name, Tags: r.Tags}.String() + ">"}
		}
		out = append(out, compactJSON(map[string]interface{}{"default": map[string]interface{}{list: []interface{}{map[string]interface{}{"spiffeID": match}}}}))
	}
	return out
}

// compactJSON renders v in JSON on one line, without escaping < and >.
func compactJSON(v interface{}) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "{}"
	}
	return strings.TrimSuffix(b.String(), "\n")
}
