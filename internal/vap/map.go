package vap

import (
	"fmt"
	"slices"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/precedent-dev/precedent/internal/policy"
)

// Defaulting is one defaulting of the mutating webhook (package mutate) that CEL can express, as a
// MutatingAdmissionPolicy: Condition (a matchCondition) selects the objects it changes, Patch (a
// JSONPatch expression) changes them as the webhook's patch does.
type Defaulting struct {
	ID        string
	Message   string
	Condition string
	Patch     string
	// Profiles are the profiles whose managed kinds get it (none: only the kinds it names itself).
	Profiles []policy.ProfileName
}

// StrategyDefault is mutate.Patch: `strategy: atomic` on a spec.defaults or spec.overrides block
// that has none, for the kinds of the defaults-overrides profile (the shipped CRDs default it in
// their schema; configured kinds may not).
var StrategyDefault = Defaulting{
	ID:        "default-strategy-atomic",
	Message:   "spec.defaults.strategy and spec.overrides.strategy default to atomic (defaults-overrides kinds)",
	Condition: blockLacksStrategy("defaults") + " || " + blockLacksStrategy("overrides"),
	Patch: fmt.Sprintf("(%s ? [%s] : []) + (%s ? [%s] : [])",
		blockLacksStrategy("defaults"), AddPatch("'/spec/defaults/strategy'", "'"+policy.StrategyAtomic+"'"),
		blockLacksStrategy("overrides"), AddPatch("'/spec/overrides/strategy'", "'"+policy.StrategyAtomic+"'")),
	Profiles: []policy.ProfileName{policy.ProfileDefaultsOverrides},
}

func blockLacksStrategy(b string) string {
	return fmt.Sprintf("(has(object.spec.%[1]s) && type(object.spec.%[1]s) == map && !has(object.spec.%[1]s.strategy))", b)
}

// AddPatch is one JSONPatch "add" operation in CEL: path and value are CEL expressions.
func AddPatch(path, value string) string {
	return fmt.Sprintf("JSONPatch{op: 'add', path: %s, value: %s}", path, value)
}

// MutatingName is the name of the mutating policy and binding of a kind.
func MutatingName(gk schema.GroupKind) string {
	return "precedent-defaults-" + strings.ToLower(gk.Kind) + "." + gk.Group
}

// Mutating returns the MutatingAdmissionPolicy and its binding applying d to the resource of
// group/version (version "*" for any).
func Mutating(d Defaulting, gk schema.GroupKind, version, resource string) (*admissionregistrationv1.MutatingAdmissionPolicy, *admissionregistrationv1.MutatingAdmissionPolicyBinding) {
	fail := admissionregistrationv1.Fail
	equivalent := admissionregistrationv1.Equivalent
	scope := admissionregistrationv1.NamespacedScope
	name := MutatingName(gk)
	p := &admissionregistrationv1.MutatingAdmissionPolicy{
		TypeMeta:   metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "MutatingAdmissionPolicy"},
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: admissionregistrationv1.MutatingAdmissionPolicySpec{
			FailurePolicy: &fail,
			MatchConstraints: &admissionregistrationv1.MatchResources{
				MatchPolicy: &equivalent,
				ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
					RuleWithOperations: admissionregistrationv1.RuleWithOperations{
						Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
						Rule: admissionregistrationv1.Rule{APIGroups: []string{gk.Group}, APIVersions: []string{version},
							Resources: []string{resource}, Scope: &scope},
					},
				}},
			},
			MatchConditions: []admissionregistrationv1.MatchCondition{{Name: d.ID, Expression: d.Condition}},
			Mutations: []admissionregistrationv1.Mutation{{
				PatchType: admissionregistrationv1.PatchTypeJSONPatch,
				JSONPatch: &admissionregistrationv1.JSONPatch{Expression: d.Patch},
			}},
			ReinvocationPolicy: admissionregistrationv1.NeverReinvocationPolicy,
		},
	}
	b := &admissionregistrationv1.MutatingAdmissionPolicyBinding{
		TypeMeta:   metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "MutatingAdmissionPolicyBinding"},
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       admissionregistrationv1.MutatingAdmissionPolicyBindingSpec{PolicyName: name},
	}
	return p, b
}

// MutatingTarget is one kind `export map` writes a policy for.
type MutatingTarget struct {
	GK       schema.GroupKind
	Version  string
	Resource string
	Default  Defaulting
}

// KindTargets are the targets of d for the kinds among kinds whose profile is one of d.Profiles, in
// the version each kind is managed in (a profile's MutatingTargets).
func KindTargets(d Defaulting, kinds []policy.Kind, plural func(kind string) string) []MutatingTarget {
	var out []MutatingTarget
	for _, k := range kinds {
		if slices.Contains(d.Profiles, k.Profile) {
			out = append(out, MutatingTarget{GK: k.GVK.GroupKind(), Version: k.GVK.Version, Resource: plural(k.GVK.Kind), Default: d})
		}
	}
	return out
}

// RenderMutating writes the mutating policies and bindings of targets as one YAML stream.
func RenderMutating(targets []MutatingTarget) ([]byte, error) {
	var buf strings.Builder
	buf.WriteString("# MutatingAdmissionPolicies for the defaulting of Precedent that CEL can express\n")
	buf.WriteString("# (generated by `precedent export map`; Kubernetes 1.36+).\n")
	for _, t := range targets {
		p, b := Mutating(t.Default, t.GK, t.Version, t.Resource)
		if err := write(&buf, p, b); err != nil {
			return nil, fmt.Errorf("rendering %s: %w", p.Name, err)
		}
	}
	return []byte(buf.String()), nil
}
