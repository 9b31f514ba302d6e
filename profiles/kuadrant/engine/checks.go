package engine

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/precedent-dev/precedent/internal/checks"
	"github.com/precedent-dev/precedent/internal/policy"
)

var (
	spec       = field.NewPath("spec")
	strategies = []string{policy.StrategyAtomic, policy.StrategyMerge}
	own        = []policy.ProfileName{policy.ProfileKuadrant}
)

// Checks are the kuadrant profile's own stateless checks, which run after the target checks
// (checks.Targets) and GEP-713's in the one table (checks.Register).
var Checks = []checks.Check{
	{ID: "kuadrant-bare-with-blocks", Profiles: own, Path: "spec.<rules>", Scope: checks.PerPolicy,
		Message: "implicit defaults (bare rules) and spec.defaults or spec.overrides are mutually exclusive",
		Go:      kuadrantBareWithBlocks, CEL: kuadrantBareWithBlocksCEL},
	{ID: "kuadrant-defaults-with-overrides", Profiles: own, Path: "spec.overrides", Scope: checks.PerPolicy,
		Message: "spec.defaults and spec.overrides are mutually exclusive",
		Go:      kuadrantDefaultsWithOverrides, CEL: kuadrantDefaultsWithOverridesCEL},
	{ID: "kuadrant-strategy", Profiles: own, Path: "spec.defaults.strategy", Scope: checks.PerBlock,
		Message: "strategy is atomic or merge",
		Go:      kuadrantStrategy, CEL: kuadrantStrategyCEL},
	{ID: "kuadrant-rules-required", Profiles: own, Path: "spec.<rules>", Scope: checks.PerBlock,
		Message: "the bare form, spec.defaults and spec.overrides each hold at least one rule",
		Go:      kuadrantRulesRequired, CEL: kuadrantRulesRequiredCEL},
	{ID: "kuadrant-not-empty", Profiles: own, Path: "spec.<rules>", Scope: checks.PerPolicy,
		Message: "a policy needs bare rules, spec.defaults or spec.overrides",
		Go:      kuadrantNotEmpty, CEL: kuadrantNotEmptyCEL},
}

// The kuadrant profile's checks are what Kuadrant's CRDs check in their x-kubernetes-validations (so
// the API server rejects it before Precedent sees it; offline, validate -f says the same): one of
// the bare form, spec.defaults and spec.overrides, holding at least one rule of the kind's rules
// field, and a known strategy.

func kuadrantBareWithBlocks(in checks.Input) field.ErrorList {
	p := in.Policy
	if p.Bare == nil || (p.Defaults == nil && p.Overrides == nil) {
		return nil
	}
	other := "defaults"
	if p.Defaults == nil {
		other = "overrides"
	}
	rf := p.Kind.RulesField
	return field.ErrorList{field.Forbidden(spec.Child(rf), kuadrantBareDetail(rf, other))}
}

func kuadrantBareDetail(rf, other string) string {
	return fmt.Sprintf("implicit defaults (bare %s) and spec.%s are mutually exclusive: move them into spec.%s", rf, other, other)
}

func kuadrantBareMessage(rf, other string) string {
	return fmt.Sprintf("spec.%s: Forbidden: %s", rf, kuadrantBareDetail(rf, other))
}

func kuadrantBareWithBlocksCEL(k policy.Kind) []checks.Rule {
	rf := k.RulesField
	return []checks.Rule{{
		Expression:        fmt.Sprintf("!(%s && (has(object.spec.defaults) || has(object.spec.overrides)))", kuadrantBare(k)),
		Reason:            checks.ReasonForbidden,
		Message:           fmt.Sprintf("spec.%s: Forbidden: implicit defaults (bare %s) and spec.defaults or spec.overrides are mutually exclusive", rf, rf),
		MessageExpression: fmt.Sprintf("has(object.spec.defaults) ? %s : %s", checks.Quote(kuadrantBareMessage(rf, "defaults")), checks.Quote(kuadrantBareMessage(rf, "overrides"))),
	}}
}

func kuadrantDefaultsWithOverrides(in checks.Input) field.ErrorList {
	if in.Policy.Defaults == nil || in.Policy.Overrides == nil {
		return nil
	}
	return field.ErrorList{field.Forbidden(spec.Child("overrides"), "spec.overrides and spec.defaults are mutually exclusive")}
}

func kuadrantDefaultsWithOverridesCEL(policy.Kind) []checks.Rule {
	return []checks.Rule{{Expression: "!(has(object.spec.defaults) && has(object.spec.overrides))", Reason: checks.ReasonForbidden,
		Message: "spec.overrides: Forbidden: spec.overrides and spec.defaults are mutually exclusive"}}
}

func kuadrantStrategy(in checks.Input) field.ErrorList {
	b := in.Block
	if b == in.Policy.Bare || b.Strategy == policy.StrategyAtomic || b.Strategy == policy.StrategyMerge {
		return nil
	}
	return field.ErrorList{field.NotSupported(b.Path.Child("strategy"), b.Strategy, strategies)}
}

func kuadrantStrategyCEL(policy.Kind) []checks.Rule {
	return checks.BlockStrategyCEL(strategies)
}

func kuadrantRulesRequired(in checks.Input) field.ErrorList {
	b := in.Block
	for id := range b.Rules {
		if KuadrantCounts(id) {
			return nil
		}
	}
	at := b.Path.Child(in.Policy.Kind.RulesField)
	return field.ErrorList{field.Required(at, "at least one rule must be defined in "+at.String())}
}

func kuadrantRulesRequiredCEL(k policy.Kind) []checks.Rule {
	rf := k.RulesField
	out := []checks.Rule{{
		Expression: fmt.Sprintf("!(%s) || %s", kuadrantBare(k), kuadrantCounts(k, "object.spec")),
		Reason:     checks.ReasonInvalid,
		Message:    fmt.Sprintf("spec.%[1]s: Required value: at least one rule must be defined in spec.%[1]s", rf),
	}}
	for _, b := range []string{"defaults", "overrides"} {
		out = append(out, checks.Rule{
			Expression: fmt.Sprintf("!has(object.spec.%s) || %s", b, kuadrantCounts(k, "object.spec."+b)),
			Reason:     checks.ReasonInvalid,
			Message:    fmt.Sprintf("spec.%[1]s.%[2]s: Required value: at least one rule must be defined in spec.%[1]s.%[2]s", b, rf),
		})
	}
	return out
}

func kuadrantNotEmpty(in checks.Input) field.ErrorList {
	p := in.Policy
	if p.Bare != nil || p.Defaults != nil || p.Overrides != nil {
		return nil
	}
	rf := p.Kind.RulesField
	return field.ErrorList{field.Required(spec.Child(rf), fmt.Sprintf("a policy needs spec.%s, spec.defaults or spec.overrides", rf))}
}

func kuadrantNotEmptyCEL(k policy.Kind) []checks.Rule {
	rf := k.RulesField
	return []checks.Rule{{
		Expression: fmt.Sprintf("%s || has(object.spec.defaults) || has(object.spec.overrides)", kuadrantBare(k)),
		Reason:     checks.ReasonInvalid,
		Message:    fmt.Sprintf("spec.%[1]s: Required value: a policy needs spec.%[1]s, spec.defaults or spec.overrides", rf),
	}}
}

// kuadrantBare is true when the spec has the bare form: any field the profile reads rules from
// (policy's readKuadrantRules), the top-level when included.
func kuadrantBare(k policy.Kind) string {
	if k.GVK.Kind == "AuthPolicy" {
		return "(has(object.spec.when) || has(object.spec.rules) || has(object.spec.patterns))"
	}
	return "(has(object.spec.when) || has(object.spec.limits))"
}

// kuadrantCounts is true when the spec "proper" at b holds a rule that makes it non-empty in
// Kuadrant's sense (KuadrantCounts: not the top-level when, not a named pattern).
func kuadrantCounts(k policy.Kind, b string) string {
	nonEmpty := func(m string) string { return fmt.Sprintf("(has(%[1]s) && size(%[1]s) > 0)", m) }
	if k.GVK.Kind != "AuthPolicy" {
		return nonEmpty(b + ".limits")
	}
	r := b + ".rules"
	success := r + ".response.success"
	terms := []string{
		nonEmpty(r + ".authentication"), nonEmpty(r + ".metadata"), nonEmpty(r + ".authorization"), nonEmpty(r + ".callbacks"),
		fmt.Sprintf("(has(%[1]s.response) && (has(%[1]s.response.unauthenticated) || has(%[1]s.response.unauthorized) || (has(%[2]s) && (%[3]s || %[4]s))))",
			r, success, nonEmpty(success+".headers"), nonEmpty(success+".filters")),
	}
	return fmt.Sprintf("(has(%s) && (%s))", r, strings.Join(terms, " || "))
}
