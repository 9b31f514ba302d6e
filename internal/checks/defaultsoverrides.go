package checks

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/printable"
)

// The checks of the defaults-overrides profile (the RFC's kinds) and of GEP-713's.

var spec = field.NewPath("spec")

func gep713DefaultOrOverride(in Input) field.ErrorList {
	if in.Policy.Defaults != nil || in.Policy.Overrides != nil {
		return nil
	}
	return field.ErrorList{field.Required(spec, "at least one of spec.default or spec.override is required")}
}

func gep713DefaultOrOverrideCEL(policy.Kind) []Rule {
	return []Rule{{Expression: "has(object.spec.default) || has(object.spec.override)", Reason: ReasonInvalid,
		Message: "spec: Required value: at least one of spec.default or spec.override is required"}}
}

func doBareWithBlocks(in Input) field.ErrorList {
	p := in.Policy
	if p.Bare == nil || (p.Defaults == nil && p.Overrides == nil) {
		return nil
	}
	rf := p.Kind.RulesField
	return field.ErrorList{field.Forbidden(spec.Child(rf), bareWithBlocks(rf))}
}

func bareWithBlocks(rf string) string {
	return fmt.Sprintf("bare %s cannot be combined with spec.defaults or spec.overrides: move them into spec.defaults", rf)
}

func doBareWithBlocksCEL(k policy.Kind) []Rule {
	return []Rule{{
		Expression: fmt.Sprintf("!(has(object.spec.%s) && (has(object.spec.defaults) || has(object.spec.overrides)))", k.RulesField),
		Reason:     ReasonForbidden,
		Message:    fmt.Sprintf("spec.%s: Forbidden: %s", k.RulesField, bareWithBlocks(k.RulesField)),
	}}
}

func doNotEmpty(in Input) field.ErrorList {
	p := in.Policy
	if p.Bare != nil || p.Defaults != nil || p.Overrides != nil || len(p.Unset) > 0 {
		return nil
	}
	return field.ErrorList{field.Required(spec, notEmpty(p.Kind.RulesField))}
}

func notEmpty(rf string) string {
	return fmt.Sprintf("a policy needs spec.%s, spec.defaults, spec.overrides or spec.unset", rf)
}

func doNotEmptyCEL(k policy.Kind) []Rule {
	return []Rule{{
		Expression: fmt.Sprintf("has(object.spec.%s) || has(object.spec.defaults) || has(object.spec.overrides) || (has(object.spec.unset) && size(object.spec.unset) > 0)", k.RulesField),
		Reason:     ReasonInvalid,
		Message:    "spec: Required value: " + notEmpty(k.RulesField),
	}}
}

var strategies = []string{policy.StrategyAtomic, policy.StrategyMerge}

func doStrategy(in Input) field.ErrorList {
	b := in.Block
	if b == in.Policy.Bare {
		return nil
	}
	switch b.Strategy {
	case "", policy.StrategyAtomic, policy.StrategyMerge: // "" is an absent strategy: atomic
		return nil
	}
	return field.ErrorList{field.NotSupported(b.Path.Child("strategy"), b.Strategy, strategies)}
}

func doStrategyCEL(policy.Kind) []Rule {
	return blockStrategyCEL([]string{"", policy.StrategyAtomic, policy.StrategyMerge})
}

// BlockStrategyCEL is one rule per block (defaults, overrides): its strategy, when given, is one
// of allowed.
func BlockStrategyCEL(allowed []string) []Rule { return blockStrategyCEL(allowed) }

// blockStrategyCEL is one rule per block: its strategy, when given, is one of allowed.
func blockStrategyCEL(allowed []string) []Rule {
	var out []Rule
	for _, b := range []string{"defaults", "overrides"} {
		out = append(out, Rule{
			Expression: fmt.Sprintf("!has(object.spec.%[1]s) || !has(object.spec.%[1]s.strategy) || object.spec.%[1]s.strategy in %s", b, quoted(allowed)),
			Reason:     ReasonInvalid,
			Message:    fmt.Sprintf("spec.%s.strategy: Unsupported value: supported values: %s", b, doubleQuoted(strategies)),
			MessageExpression: quote("spec."+b+".strategy: Unsupported value: ") + " + " + quotedValue("object.spec."+b+".strategy") +
				" + " + quote(": supported values: "+doubleQuoted(strategies)),
		})
	}
	return out
}

func doWhenCompiles(in Input) field.ErrorList {
	b := in.Block
	if b == in.Policy.Bare || b.When == "" || in.Cond == nil {
		return nil
	}
	if err := in.Cond.Compile(b.When); err != nil {
		return field.ErrorList{field.Invalid(b.Path.Child(in.Policy.Kind.ConditionField), b.When, err.Error())}
	}
	return nil
}

const switchedOff = "unset is switched off in this cluster by the cluster administrator (PrecedentConfig cluster: spec.unsetEnabled): remove spec.unset"

func unsetSwitchedOff(in Input) field.ErrorList {
	p := in.Policy
	if p.UnsetPath == nil || in.Settings.UnsetEnabled || len(p.Unset) == 0 {
		return nil
	}
	return field.ErrorList{field.Forbidden(p.UnsetPath, switchedOff)}
}

func unsetSwitchedOffCEL(policy.Kind) []Rule {
	return []Rule{{
		Expression: "!has(params.spec.unsetEnabled) || params.spec.unsetEnabled || !has(object.spec.unset) || size(object.spec.unset) == 0",
		Reason:     ReasonForbidden,
		Message:    "spec.unset: Forbidden: " + switchedOff,
	}}
}

// unsetChecked reports whether the spec.unset entries are checked one by one: not while unset is
// switched off, which rejects the whole list.
func unsetChecked(in Input) bool {
	return in.Policy.UnsetPath != nil && in.Settings.UnsetEnabled
}

func unsetIDFormat(in Input) field.ErrorList {
	p := in.Policy
	id := p.Unset[in.Index]
	if !unsetChecked(in) || policy.ValidRuleID(p.Kind, id) {
		return nil
	}
	return field.ErrorList{field.Invalid(p.UnsetPath.Index(in.Index), id, ruleIDFormat(p.Kind))}
}

func unsetIDFormatCEL(k policy.Kind) []Rule {
	return []Rule{{
		Expression: fmt.Sprintf("!has(object.spec.unset) || object.spec.unset.all(x, %s)", validID(k, "x")),
		Reason:     ReasonInvalid,
		Message:    "spec.unset: Invalid value: " + ruleIDFormat(k),
		MessageExpression: unsetEntry(firstIndex(unsetList, func(e string) string { return "!(" + validID(k, e) + ")" }),
			func(x string) string {
				return "': Invalid value: ' + " + quotedValue(x) + " + " + quote(": "+ruleIDFormat(k))
			}),
	}}
}

// earlier reports whether the unset entry at in.Index also appears before it.
func earlier(in Input) bool {
	u := in.Policy.Unset
	for j := 0; j < in.Index; j++ {
		if u[j] == u[in.Index] {
			return true
		}
	}
	return false
}

func unsetDuplicate(in Input) field.ErrorList {
	p := in.Policy
	id := p.Unset[in.Index]
	if !unsetChecked(in) || !policy.ValidRuleID(p.Kind, id) || !earlier(in) {
		return nil
	}
	return field.ErrorList{field.Duplicate(p.UnsetPath.Index(in.Index), id)}
}

func unsetDuplicateCEL(k policy.Kind) []Rule {
	u := "object.spec.unset"
	return []Rule{{
		Expression: fmt.Sprintf("!has(%[1]s) || %[1]s.all(x, !(%[2]s) || %[1]s.exists_one(y, y == x))", u, validID(k, "x")),
		Reason:     ReasonInvalid,
		Message:    "spec.unset: Duplicate value: each rule id may appear once",
		MessageExpression: unsetEntry(fmt.Sprintf("lists.range(size(%[1]s)).filter(i, %[2]s && lists.range(i).exists(j, %[1]s[j] == %[1]s[i]))[0]", unsetList, validID(k, unsetList+"[i]")),
			func(x string) string { return "': Duplicate value: ' + " + quotedValue(x) }),
	}}
}

func unsetDeclared(in Input) field.ErrorList {
	p := in.Policy
	id := p.Unset[in.Index]
	if !unsetChecked(in) || !policy.ValidRuleID(p.Kind, id) || earlier(in) {
		return nil
	}
	for _, b := range []*policy.Block{p.Bare, p.Defaults, p.Overrides} {
		if b == nil {
			continue
		}
		if _, declared := b.Rules[id]; declared {
			return field.ErrorList{field.Forbidden(p.UnsetPath.Index(in.Index),
				fmt.Sprintf("rule %s is declared by this policy: unset only removes rules inherited from other policies", printable.String(id)))}
		}
	}
	return nil
}

func unsetDeclaredCEL(k policy.Kind) []Rule {
	return []Rule{{
		Expression: fmt.Sprintf("!has(object.spec.unset) || object.spec.unset.all(x, !(%s) || (%s))", validID(k, "x"), notDeclared(k, "x")),
		Reason:     ReasonForbidden,
		Message:    "spec.unset: Forbidden: a rule declared by this policy cannot be unset: unset only removes rules inherited from other policies",
		MessageExpression: unsetEntry(firstIndex(unsetList, func(e string) string {
			return validID(k, e) + " && !(" + notDeclared(k, e) + ")"
		}), func(x string) string {
			return "': Forbidden: rule ' + " + x + " + ' is declared by this policy: unset only removes rules inherited from other policies'"
		}),
	}}
}

const unsetList = "object.spec.unset"

// unsetEntry renders the message of the spec.unset entry at index i: its path, then render(x) for
// the entry x.
func unsetEntry(i string, render func(x string) string) string {
	return "'spec.unset[' + string(" + i + ") + ']' + " + render(unsetList+"["+i+"]")
}

// validID is policy.ValidRuleID in CEL, for the rule id x (a CEL expression).
func validID(k policy.Kind, x string) string {
	if len(k.Sections) == 0 {
		return x + " != ''"
	}
	var secs []string
	for _, s := range sortedSections(k) {
		secs = append(secs, regexp.QuoteMeta(s))
	}
	return x + ".matches(" + quote(`^(`+strings.Join(secs, "|")+`)\.(?s:.+)$`) + ")"
}

// notDeclared is true for a well-formed rule id x (a CEL expression) that no block of the policy
// declares.
func notDeclared(k policy.Kind, x string) string {
	rf := k.RulesField
	var terms []string
	for _, b := range []struct{ has, rules string }{
		{"has(object.spec." + rf + ")", "object.spec." + rf},
		{"has(object.spec.defaults) && has(object.spec.defaults." + rf + ")", "object.spec.defaults." + rf},
		{"has(object.spec.overrides) && has(object.spec.overrides." + rf + ")", "object.spec.overrides." + rf},
	} {
		if len(k.Sections) == 0 {
			terms = append(terms, fmt.Sprintf("!(%s && %s in %s)", b.has, x, b.rules))
			continue
		}
		sec := fmt.Sprintf("%[1]s.substring(0, %[1]s.indexOf('.'))", x)
		name := fmt.Sprintf("%[1]s.substring(%[1]s.indexOf('.') + 1)", x)
		terms = append(terms, fmt.Sprintf("!(%[1]s && %[3]s in %[2]s && %[4]s in %[2]s[%[3]s])", b.has, b.rules, sec, name))
	}
	return strings.Join(terms, " && ")
}

func sortedSections(k policy.Kind) []string {
	secs := append([]string(nil), k.Sections...)
	sort.Strings(secs)
	return secs
}

func ruleIDFormat(k policy.Kind) string {
	if len(k.Sections) == 0 {
		return "must be a rule name"
	}
	return fmt.Sprintf("must be <section>.<name> with section one of %s", strings.Join(sortedSections(k), ", "))
}
