package validate

import (
	"fmt"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/precedent-dev/precedent/cel"
	"github.com/precedent-dev/precedent/policy"
	"github.com/precedent-dev/precedent/printable"
	"github.com/precedent-dev/precedent/settings"
)

// Stateless checks one policy on its own (the errors found reading it come from policy.View).
func Stateless(p *policy.Policy, s settings.Settings, cond *cel.Evaluator) field.ErrorList {
	var errs field.ErrorList
	errs = append(errs, targets(p)...)
	switch p.Kind.Profile {
	case policy.ProfileGEP713:
		if p.Defaults == nil && p.Overrides == nil {
			errs = append(errs, field.Required(field.NewPath("spec"), "at least one of spec.default or spec.override is required"))
		}
	case policy.ProfileKuadrant:
		errs = append(errs, kuadrantBlocks(p)...)
	default:
		errs = append(errs, blocks(p, cond)...)
		errs = append(errs, unset(p, s)...)
	}
	return errs
}

func targets(p *policy.Policy) field.ErrorList {
	var errs field.ErrorList
	if len(p.Targets) == 0 {
		return field.ErrorList{field.Required(field.NewPath("spec", "targetRef"), "a policy must target a Gateway, HTTPRoute or GRPCRoute")}
	}
	supportedKinds := kindNames(p.Kind)
	seen := map[string]int{}
	for i, t := range p.Targets {
		if t.HasNamespace {
			errs = append(errs, field.Forbidden(t.Path.Child("namespace"), "a local target reference has no namespace: the target is in the policy's namespace"))
		}
		if t.Name == "" {
			errs = append(errs, field.Required(t.Path.Child("name"), "the name of the target"))
		}
		if !p.Kind.AllowsTarget(t.Group, t.Kind) {
			if !groupAllowed(p.Kind, t.Group) {
				errs = append(errs, field.NotSupported(t.Path.Child("group"), t.Group, groupNames(p.Kind)))
			} else {
				errs = append(errs, field.NotSupported(t.Path.Child("kind"), t.Kind, supportedKinds))
			}
		}
		if i > 0 && (t.Kind != p.Targets[0].Kind || t.Group != p.Targets[0].Group) {
			errs = append(errs, field.Invalid(t.Path.Child("kind"), t.Kind, fmt.Sprintf("all targetRefs must have the same kind (%s)", p.Targets[0].Kind)))
		}
		key := t.Group + "/" + t.Kind + "/" + t.Name + "#" + t.SectionName
		if j, dup := seen[key]; dup {
			errs = append(errs, field.Duplicate(t.Path, fmt.Sprintf("%s %s (same as spec.targetRefs[%d])", t.Kind, t.Name, j)))
		}
		seen[key] = i
	}
	return errs
}

func kindNames(k policy.Kind) []string {
	var out []string
	for _, gk := range k.TargetKinds {
		out = append(out, gk.Kind)
	}
	return out
}

func groupNames(k policy.Kind) []string {
	seen := map[string]bool{}
	var out []string
	for _, gk := range k.TargetKinds {
		if !seen[gk.Group] {
			seen[gk.Group] = true
			out = append(out, gk.Group)
		}
	}
	return out
}

func groupAllowed(k policy.Kind, g string) bool {
	for _, gk := range k.TargetKinds {
		if gk.Group == g {
			return true
		}
	}
	return false
}

func blocks(p *policy.Policy, cond *cel.Evaluator) field.ErrorList {
	var errs field.ErrorList
	k := p.Kind
	spec := field.NewPath("spec")
	if p.Bare != nil && (p.Defaults != nil || p.Overrides != nil) {
		errs = append(errs, field.Forbidden(spec.Child(k.RulesField),
			fmt.Sprintf("bare %s cannot be combined with spec.defaults or spec.overrides: move them into spec.defaults", k.RulesField)))
	}
	if p.Bare == nil && p.Defaults == nil && p.Overrides == nil && len(p.Unset) == 0 {
		errs = append(errs, field.Required(spec, fmt.Sprintf("a policy needs spec.%s, spec.defaults, spec.overrides or spec.unset", k.RulesField)))
	}
	for _, b := range []*policy.Block{p.Defaults, p.Overrides} {
		if b == nil {
			continue
		}
		switch b.Strategy {
		case "", policy.StrategyAtomic, policy.StrategyMerge:
		default:
			errs = append(errs, field.NotSupported(b.Path.Child("strategy"), b.Strategy, []string{policy.StrategyAtomic, policy.StrategyMerge}))
		}
		if b.When != "" && cond != nil {
			if err := cond.Compile(b.When); err != nil {
				errs = append(errs, field.Invalid(b.Path.Child(k.ConditionField), b.When, err.Error()))
			}
		}
	}
	return errs
}

func unset(p *policy.Policy, s settings.Settings) field.ErrorList {
	if p.UnsetPath == nil {
		return nil
	}
	if !s.UnsetEnabled && len(p.Unset) > 0 {
		return field.ErrorList{field.Forbidden(p.UnsetPath, "unset is switched off in this cluster by the cluster administrator (PrecedentConfig cluster: spec.unsetEnabled): remove spec.unset")}
	}
	var errs field.ErrorList
	declared := map[string]bool{}
	for _, id := range p.RuleIDs() {
		declared[id] = true
	}
	seen := map[string]bool{}
	for i, id := range p.Unset {
		path := p.UnsetPath.Index(i)
		switch {
		case !policy.ValidRuleID(p.Kind, id):
			errs = append(errs, field.Invalid(path, id, ruleIDFormat(p.Kind)))
		case seen[id]:
			errs = append(errs, field.Duplicate(path, id))
		case declared[id]:
			errs = append(errs, field.Forbidden(path, fmt.Sprintf("rule %s is declared by this policy: unset only removes rules inherited from other policies", printable.String(id))))
		}
		seen[id] = true
	}
	return errs
}

func ruleIDFormat(k policy.Kind) string {
	if len(k.Sections) == 0 {
		return "must be a rule name"
	}
	secs := append([]string(nil), k.Sections...)
	sort.Strings(secs)
	return fmt.Sprintf("must be <section>.<name> with section one of %s", strings.Join(secs, ", "))
}

// kuadrantBlocks checks what Kuadrant's CRDs check in their x-kubernetes-validations (so the API
// server rejects it before Precedent sees it; offline, validate -f says the same): one of the bare
// form, spec.defaults and spec.overrides, holding at least one rule of the kind's rules field, and
// a known strategy.
func kuadrantBlocks(p *policy.Policy) field.ErrorList {
	var errs field.ErrorList
	spec := field.NewPath("spec")
	rf := p.Kind.RulesField
	if p.Bare != nil && (p.Defaults != nil || p.Overrides != nil) {
		other := "defaults"
		if p.Defaults == nil {
			other = "overrides"
		}
		errs = append(errs, field.Forbidden(spec.Child(rf), fmt.Sprintf("implicit defaults (bare %s) and spec.%s are mutually exclusive: move them into spec.%s", rf, other, other)))
	}
	if p.Defaults != nil && p.Overrides != nil {
		errs = append(errs, field.Forbidden(spec.Child("overrides"), "spec.overrides and spec.defaults are mutually exclusive"))
	}
	for _, b := range []*policy.Block{p.Bare, p.Defaults, p.Overrides} {
		if b == nil {
			continue
		}
		if b.Strategy != policy.StrategyAtomic && b.Strategy != policy.StrategyMerge && b != p.Bare {
			errs = append(errs, field.NotSupported(b.Path.Child("strategy"), b.Strategy, []string{policy.StrategyAtomic, policy.StrategyMerge}))
		}
		counts := false
		for id := range b.Rules {
			if policy.KuadrantCounts(id) {
				counts = true
				break
			}
		}
		if !counts {
			errs = append(errs, field.Required(b.Path.Child(rf), "at least one rule must be defined in "+b.Path.Child(rf).String()))
		}
	}
	if p.Bare == nil && p.Defaults == nil && p.Overrides == nil {
		errs = append(errs, field.Required(spec.Child(rf), fmt.Sprintf("a policy needs spec.%s, spec.defaults or spec.overrides", rf)))
	}
	return errs
}
