package engine

import (
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/precedent-dev/precedent/internal/policy"
)

// The kuadrant profile reads Kuadrant's own kinds as they are (kuadrant.io/v1 RateLimitPolicy and
// AuthPolicy, kuadrant.io/v1alpha1 TokenRateLimitPolicy).

// KuadrantKinds are the kinds the kuadrant profile knows how to read.
var KuadrantKinds = []string{"AuthPolicy", "RateLimitPolicy", "TokenRateLimitPolicy"}

// KuadrantKind is the managed kind of one Kuadrant kind, as one line of spec.kinds configures it
// ({gvk, profile: kuadrant}) once the settings are defaulted.
func KuadrantKind(gvk schema.GroupVersionKind) policy.Kind {
	rf, _ := KuadrantRulesField(gvk.Kind)
	return policy.Kind{GVK: gvk, Profile: policy.ProfileKuadrant, RulesField: rf, TargetKinds: policy.DefaultTargetKinds}
}

// KuadrantRulesField is the rules field of a Kuadrant kind: "limits" for the rate limit kinds,
// "rules" for AuthPolicy; false for a kind the profile does not know.
func KuadrantRulesField(kind string) (string, bool) {
	switch kind {
	case "RateLimitPolicy", "TokenRateLimitPolicy":
		return "limits", true
	case "AuthPolicy":
		return "rules", true
	}
	return "", false
}

// KuadrantWhen is the id of the top-level `when` predicate list, which Kuadrant merges as one rule
// (RulesKeyTopLevelPredicates in kuadrant-operator api/v1/ratelimitpolicy_types.go; "conditions#"
// in api/v1/authpolicy_types.go).
const KuadrantWhen = "when"

// kuadrantAuthPaths are the AuthPolicy rule groups that are maps of named rules, with where they live
// in the spec (kuadrant-operator api/v1/authpolicy_types.go, AuthPolicy.Rules): the rule id is
// "<group>.<name>". Kuadrant writes "<group>#<name>"; Precedent prints dots everywhere.
var kuadrantAuthPaths = []struct {
	group string
	path  []string
}{
	{"patterns", []string{"patterns"}},
	{"authentication", []string{"rules", "authentication"}},
	{"metadata", []string{"rules", "metadata"}},
	{"authorization", []string{"rules", "authorization"}},
	{"callbacks", []string{"rules", "callbacks"}},
	{"response.success.headers", []string{"rules", "response", "success", "headers"}},
	// The Go field is DynamicMetadata; its JSON name is "filters", Kuadrant's rule group "metadata".
	{"response.success.metadata", []string{"rules", "response", "success", "filters"}},
}

// kuadrantAuthSingles are the AuthPolicy rules that stand alone (one value each).
var kuadrantAuthSingles = []struct {
	id   string
	path []string
}{
	{"response.unauthenticated", []string{"rules", "response", "unauthenticated"}},
	{"response.unauthorized", []string{"rules", "response", "unauthorized"}},
}

// readKuadrant reads Kuadrant's spec: the bare form (implicit atomic defaults), spec.defaults or
// spec.overrides, each with its rules keyed as Kuadrant keys them. Kuadrant's Spec.Proper() reads
// defaults first, then overrides, then the bare form; its CRD rejects more than one of them, and so
// do Precedent's checks.
func readKuadrant(p *policy.Policy, spec map[string]interface{}) field.ErrorList {
	var errs field.ErrorList
	if rules, present, rerrs := readKuadrantRules(p.Kind, spec, specPath); present {
		errs = append(errs, rerrs...)
		p.Bare = &policy.Block{Rules: rules, Strategy: policy.StrategyAtomic, Path: specPath}
	}
	for _, name := range []string{"defaults", "overrides"} {
		raw, ok := spec[name]
		if !ok || raw == nil {
			continue
		}
		path := specPath.Child(name)
		m, ok := raw.(map[string]interface{})
		if !ok {
			errs = append(errs, field.Invalid(path, policy.TypeName(raw), "must be an object"))
			continue
		}
		rules, _, rerrs := readKuadrantRules(p.Kind, m, path)
		errs = append(errs, rerrs...)
		b := &policy.Block{Rules: rules, Strategy: policy.StrategyAtomic, Path: path}
		errs = append(errs, policy.ReadStrategy(m, b, path)...)
		if name == "defaults" {
			p.Defaults = b
		} else {
			p.Overrides = b
		}
	}
	return errs
}

// readKuadrantRules reads the rules of one spec "proper" (the bare spec, or a defaults or overrides
// block); present reports whether any rule field is there at all.
func readKuadrantRules(k policy.Kind, m map[string]interface{}, path *field.Path) (map[string]interface{}, bool, field.ErrorList) {
	rules := map[string]interface{}{}
	var errs field.ErrorList
	present := false
	if w, ok := m[KuadrantWhen]; ok && w != nil {
		present = true
		if list, ok := w.([]interface{}); !ok {
			errs = append(errs, field.Invalid(path.Child(KuadrantWhen), policy.TypeName(w), "must be a list of predicates"))
		} else if len(list) > 0 {
			rules[KuadrantWhen] = w
		}
	}
	if k.GVK.Kind != "AuthPolicy" {
		if raw, ok := m["limits"]; ok && raw != nil {
			present = true
			lm, ok := raw.(map[string]interface{})
			if !ok {
				return rules, present, append(errs, field.Invalid(path.Child("limits"), policy.TypeName(raw), "must be a map of named limits"))
			}
			for name, body := range lm {
				rules[name] = body
			}
		}
		return rules, present, errs
	}
	for _, g := range kuadrantAuthPaths {
		raw, ok, at := dig(m, g.path, path)
		if !ok {
			continue
		}
		present = true
		gm, ok := raw.(map[string]interface{})
		if !ok {
			errs = append(errs, field.Invalid(at, policy.TypeName(raw), "must be a map of named rules"))
			continue
		}
		for name, body := range gm {
			rules[g.group+"."+name] = body
		}
	}
	for _, s := range kuadrantAuthSingles {
		if raw, ok, _ := dig(m, s.path, path); ok {
			present = true
			rules[s.id] = raw
		}
	}
	if _, ok := m["rules"]; ok {
		present = true
	}
	return rules, present, errs
}

var specPath = field.NewPath("spec")

// dig follows keys into nested objects; ok is false when a step is missing or null, at is the path
// of the last value reached.
func dig(m map[string]interface{}, keys []string, path *field.Path) (interface{}, bool, *field.Path) {
	var cur interface{} = m
	for _, k := range keys {
		obj, ok := cur.(map[string]interface{})
		if !ok {
			return nil, false, path
		}
		path = path.Child(k)
		cur, ok = obj[k]
		if !ok || cur == nil {
			return nil, false, path
		}
	}
	return cur, true, path
}

// kuadrantBareForm renders rules in the spec shape of the Kuadrant kind, the inverse of
// readKuadrantRules: {"limits": {...}, "when": [...]}, or for AuthPolicy {"patterns", "when",
// "rules": {"authentication", …, "response": {"unauthenticated", "unauthorized", "success":
// {"headers", "filters"}}}} (what Kuadrant's SetRules builds).
func kuadrantBareForm(k policy.Kind, rules map[string]interface{}) map[string]interface{} {
	out := map[string]interface{}{}
	if k.GVK.Kind != "AuthPolicy" {
		limits := map[string]interface{}{}
		for id, body := range rules {
			if id == KuadrantWhen {
				out[KuadrantWhen] = body
				continue
			}
			limits[id] = body
		}
		out["limits"] = limits
		return out
	}
	put := func(path []string, name string, body interface{}) {
		cur := out
		for _, key := range path {
			next, ok := cur[key].(map[string]interface{})
			if !ok {
				next = map[string]interface{}{}
				cur[key] = next
			}
			cur = next
		}
		cur[name] = body
	}
rules:
	for id, body := range rules {
		if id == KuadrantWhen {
			out[KuadrantWhen] = body
			continue
		}
		for _, s := range kuadrantAuthSingles {
			if id == s.id {
				put(s.path[:len(s.path)-1], s.path[len(s.path)-1], body)
				continue rules
			}
		}
		for _, g := range kuadrantAuthPaths {
			if name, ok := strings.CutPrefix(id, g.group+"."); ok {
				put(g.path, name, body)
				continue rules
			}
		}
	}
	return out
}

// KuadrantCounts reports whether a rule makes a policy non-empty in Kuadrant's sense (Empty(): a
// rate limit policy without limits, an AuthPolicy without an auth scheme, spec.rules). The top-level
// when and the named patterns do not count (api/v1 RateLimitPolicy.Empty, AuthPolicy.Empty).
func KuadrantCounts(id string) bool {
	return id != KuadrantWhen && !strings.HasPrefix(id, "patterns.")
}

// kuadrantLess is the order Kuadrant's operator gives the policies of one target (policy-machinery
// controller.ObjectsByCreationTimestamp): older creationTimestamp first, then "namespace/name" as one
// string.
func kuadrantLess(a, b *policy.Policy) bool {
	if !a.Created.Equal(b.Created) {
		return a.Created.Before(b.Created)
	}
	return a.Ref.Namespace+"/"+a.Ref.Name < b.Ref.Namespace+"/"+b.Ref.Name
}
