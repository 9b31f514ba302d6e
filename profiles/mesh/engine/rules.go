package engine

import (
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Rules is the direction of Kuma's `spec.rules` (MeshTimeout since 2.10, MeshTrafficPermission since
// 2.12, the only inbound shape of Kuma 3.0): its items configure the inbounds of the selected
// proxies, with no targetRef of their own.
const Rules Direction = 2

// Kuma's match types (api/common/v1alpha1/match.go).
const (
	MatchExact  = "Exact"
	MatchPrefix = "Prefix"
)

// The lists of a MeshTrafficPermission rule's default (RuleConf in
// pkg/plugins/policies/meshtrafficpermission/api/v1alpha1/meshtrafficpermission.go).
const (
	ListAllow               = "allow"
	ListDeny                = "deny"
	ListAllowWithShadowDeny = "allowWithShadowDeny"
)

// Match is Kuma's common_api.Match: a SPIFFE ID (Exact or Prefix) and an SNI (Exact), each
// optional; both must hold when both are set (AndPredicate in pkg/envoy/builders/xds/matchers).
type Match struct {
	SpiffeID *StringMatch `json:"spiffeID,omitempty"`
	SNI      *StringMatch `json:"sni,omitempty"`
}

// StringMatch is a match type and the value it compares.
type StringMatch struct {
	Type  string `json:"type"`
	Value string `json:"value"`
}

// Empty reports a match with neither spiffeID nor sni: Kuma's matcher builder skips it, it matches
// nothing.
func (m *Match) Empty() bool { return m.SpiffeID == nil && m.SNI == nil }

// Source is a client of an inbound as Kuma's rules see it: the SPIFFE ID of its certificate (its
// URI SAN) and the SNI it sends, either may be empty.
type Source struct {
	SpiffeID string
	SNI      string
}

// Matches reports whether the match selects the source, as Envoy evaluates the predicates Kuma
// builds (SpiffeIDPredicate, SNIPredicate): exact or prefix on the URI SAN, exact on the SNI.
func (m *Match) Matches(s Source) bool {
	if m.Empty() {
		return false
	}
	if m.SpiffeID != nil {
		switch m.SpiffeID.Type {
		case MatchExact:
			if s.SpiffeID != m.SpiffeID.Value {
				return false
			}
		case MatchPrefix:
			if !strings.HasPrefix(s.SpiffeID, m.SpiffeID.Value) {
				return false
			}
		default:
			return false
		}
	}
	return m.SNI == nil || s.SNI == m.SNI.Value
}

// covers reports whether every source that b matches is matched by a (a is at least as wide).
func (a *Match) covers(b *Match) bool {
	if a.Empty() || b.Empty() {
		return false
	}
	if a.SpiffeID != nil {
		if b.SpiffeID == nil {
			return false
		}
		switch a.SpiffeID.Type {
		case MatchExact:
			if b.SpiffeID.Type != MatchExact || b.SpiffeID.Value != a.SpiffeID.Value {
				return false
			}
		case MatchPrefix:
			if !strings.HasPrefix(b.SpiffeID.Value, a.SpiffeID.Value) {
				return false
			}
		}
	}
	if a.SNI != nil {
		return b.SNI != nil && b.SNI.Value == a.SNI.Value
	}
	return true
}

// Rule is one item of `spec.rules`: its `default`, and for MeshTimeout its optional `matches`.
// For MeshTrafficPermission the default's three lists are read into Lists.
type Rule struct {
	Matches []Match
	Conf    map[string]interface{} // the default, read-only once parsed
	Lists   map[string][]Match     // MeshTrafficPermission: allow, deny, allowWithShadowDeny

	elem Element // the default as a catch-all element (targetRef Mesh), for the merge
}

// CatchAll reports a rule without matches: it applies to all the traffic of the inbound
// (MatchesAllIncomingTraffic in pkg/plugins/policies/core/rules/inbound/inboundrules.go).
func (r *Rule) CatchAll() bool { return len(r.Matches) == 0 }

// parseKumaRules reads spec.rules for kind kk; top is the policy's top-level targetRef kind.
func parseKumaRules(list []interface{}, path *field.Path, kind string, kk kumaKind, top string, errs field.ErrorList) ([]Rule, field.ErrorList) {
	out := make([]Rule, 0, len(list))
	for i, item := range list {
		ip := path.Index(i)
		var r Rule
		m, ok := item.(map[string]interface{})
		if !ok {
			errs = append(errs, field.TypeInvalid(ip, typeName(item), "must be an object with a default"))
			out = append(out, r)
			continue
		}
		known := []string{"default"}
		if kind == KindMeshTimeout {
			known = append(known, "matches")
		}
		errs = unknownFields(m, ip, errs, known...)
		conf, ok := m["default"].(map[string]interface{})
		if !ok {
			if m["default"] == nil {
				errs = append(errs, field.Required(ip.Child("default"), "must be an object"))
			} else {
				errs = append(errs, field.TypeInvalid(ip.Child("default"), typeName(m["default"]), "must be an object"))
			}
			out = append(out, r)
			continue
		}
		r.Conf = conf
		defPath := ip.Child("default")
		if kind == KindMeshTrafficPermission {
			r.Lists, errs = parsePermissionLists(conf, defPath, errs)
		} else {
			spiffe := false
			if raw, found := m["matches"]; found && raw != nil {
				l, ok := raw.([]interface{})
				if !ok {
					errs = append(errs, field.TypeInvalid(ip.Child("matches"), typeName(raw), "must be a list"))
				}
				for j, x := range l {
					var mt Match
					mt, errs = parseMatch(x, ip.Child("matches").Index(j), errs)
					if mt.Empty() {
						errs = append(errs, field.Required(ip.Child("matches").Index(j), "set spiffeID or sni"))
					}
					spiffe = spiffe || mt.SpiffeID != nil
					r.Matches = append(r.Matches, mt)
				}
			}
			errs = checkFields(conf, defPath, kk.conf, nil, errs)
			errs = checkKumaTimeouts(conf, defPath, top, errs)
			if spiffe {
				errs = checkSourceConditioned(conf, defPath, errs)
			}
		}
		r.elem = Element{TargetRef: TargetRef{Kind: Mesh}, Conf: conf, leaves: flatten(conf)}
		out = append(out, r)
	}
	return out, errs
}

// checkSourceConditioned is MeshTimeout's validateSourceConditionedTimeouts (v2.14
// pkg/plugins/policies/meshtimeout/api/v1alpha1/validator.go): a rule whose matches hold a spiffeID
// sets only the route timeouts that can depend on the client.
func checkSourceConditioned(conf map[string]interface{}, path *field.Path, errs field.ErrorList) field.ErrorList {
	const msg = "must not be set when matches contain a spiffeID: it cannot depend on the client's identity"
	for _, f := range []string{"connectionTimeout", "idleTimeout"} {
		if conf[f] != nil {
			errs = append(errs, field.Forbidden(path.Child(f), msg))
		}
	}
	if http, ok := conf["http"].(map[string]interface{}); ok {
		for _, f := range []string{"requestHeadersTimeout", "maxStreamDuration", "maxConnectionDuration"} {
			if http[f] != nil {
				errs = append(errs, field.Forbidden(path.Child("http", f), msg))
			}
		}
	}
	return errs
}

// parsePermissionLists reads a MeshTrafficPermission rule's default: at least one of its three
// lists set (validateRules in meshtrafficpermission/api/v1alpha1/validator.go), each a list of
// matches.
func parsePermissionLists(conf map[string]interface{}, path *field.Path, errs field.ErrorList) (map[string][]Match, field.ErrorList) {
	errs = unknownFields(conf, path, errs, ListAllow, ListAllowWithShadowDeny, ListDeny)
	lists := map[string][]Match{}
	n := 0
	for _, name := range []string{ListDeny, ListAllow, ListAllowWithShadowDeny} {
		raw, found := conf[name]
		if !found || raw == nil {
			continue
		}
		l, ok := raw.([]interface{})
		if !ok {
			errs = append(errs, field.TypeInvalid(path.Child(name), typeName(raw), "must be a list"))
			continue
		}
		n += len(l)
		for j, x := range l {
			var mt Match
			mt, errs = parseMatch(x, path.Child(name).Index(j), errs)
			lists[name] = append(lists[name], mt)
		}
	}
	if n == 0 {
		errs = append(errs, field.Required(path, "at least one of allow, allowWithShadowDeny, deny must have an element"))
	}
	return lists, errs
}

// parseMatch reads a Match as Kuma's ValidateMatch checks it (pkg/core/resources/apis/mesh/validators.go):
// spiffeID {type Exact|Prefix, value a SPIFFE ID}, sni {type Exact, value a DNS subdomain}.
func parseMatch(raw interface{}, path *field.Path, errs field.ErrorList) (Match, field.ErrorList) {
	var mt Match
	m, ok := raw.(map[string]interface{})
	if !ok {
		return mt, append(errs, field.TypeInvalid(path, typeName(raw), "must be an object with spiffeID or sni"))
	}
	errs = unknownFields(m, path, errs, "spiffeID", "sni")
	read := func(name string, types []string) *StringMatch {
		raw, found := m[name]
		if !found || raw == nil {
			return nil
		}
		p := path.Child(name)
		o, ok := raw.(map[string]interface{})
		if !ok {
			errs = append(errs, field.TypeInvalid(p, typeName(raw), "must be an object with type and value"))
			return nil
		}
		errs = unknownFields(o, p, errs, "type", "value")
		t, _ := o["type"].(string)
		v, _ := o["value"].(string)
		switch {
		case t == "":
			errs = append(errs, field.Required(p.Child("type"), "one of "+strings.Join(types, ", ")))
		case !contains(types, t):
			errs = append(errs, field.NotSupported(p.Child("type"), t, types))
		}
		if v == "" {
			errs = append(errs, field.Required(p.Child("value"), ""))
		}
		return &StringMatch{Type: t, Value: v}
	}
	mt.SpiffeID = read("spiffeID", []string{MatchExact, MatchPrefix})
	mt.SNI = read("sni", []string{MatchExact})
	if s := mt.SpiffeID; s != nil && s.Value != "" && !validSpiffeID(s.Value) {
		errs = append(errs, field.Invalid(path.Child("spiffeID", "value"), s.Value, "must be a SPIFFE ID: spiffe://<trust domain>/<path>"))
	}
	if s := mt.SNI; s != nil && s.Value != "" {
		for _, msg := range validation.IsDNS1123Subdomain(s.Value) {
			errs = append(errs, field.Invalid(path.Child("sni", "value"), s.Value, msg))
		}
	}
	return mt, errs
}

// validSpiffeID checks the form go-spiffe's spiffeid.FromString accepts, which Kuma's ValidateMatch
// applies to exact and prefix values alike: scheme spiffe, a trust domain of lower-case letters,
// digits, dots, dashes and underscores, then an optional path of non-empty segments (no trailing
// slash, no "." or "..").
func validSpiffeID(s string) bool {
	rest, ok := strings.CutPrefix(s, "spiffe://")
	if !ok {
		return false
	}
	td, path, hasPath := strings.Cut(rest, "/")
	if td == "" || strings.ContainsFunc(td, func(c rune) bool { return !spiffeChar(c, false) }) {
		return false
	}
	if !hasPath {
		return true
	}
	for _, seg := range strings.Split(path, "/") {
		if seg == "" || seg == "." || seg == ".." || strings.ContainsFunc(seg, func(c rune) bool { return !spiffeChar(c, true) }) {
			return false
		}
	}
	return true
}

// spiffeChar reports whether c may appear in a SPIFFE trust domain (upper: in a path segment,
// which also takes upper-case letters): letters, digits, dots, dashes and underscores.
func spiffeChar(c rune, upper bool) bool {
	return c >= 'a' && c <= 'z' || upper && c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == '_'
}
