package vap

import (
	"fmt"
	"sort"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/precedent-dev/precedent/policy"
	"github.com/precedent-dev/precedent/settings"
)

// Exported lists the checks the policies enforce (README and `precedent export vap --help` show it):
//   - target group and kind allowed for the kind (spec.targetRef.group, spec.targetRef.kind)
//   - no namespace in a local target reference (spec.targetRef.namespace)
//   - bare rules together with spec.defaults or spec.overrides (defaults-overrides kinds)
//   - a policy with none of bare rules, defaults, overrides or unset (defaults-overrides kinds)
//   - strategy not atomic or merge (spec.defaults.strategy, spec.overrides.strategy)
//   - unset with duplicates, with malformed rule ids, or naming a rule the policy declares
//   - any unset while the cluster switch is off (PrecedentConfig cluster, read as the policy's param)
//   - GEP-713 kinds with neither spec.default nor spec.override
//
// Not exported (webhook only): `when` that does not compile, is not boolean or is over the cost limit;
// the stateful checks (unset of an override, one policy per target); every warning.
var Exported = []string{
	"target group and kind allowed",
	"no namespace in a local target",
	"bare rules together with defaults/overrides",
	"a policy with no rules, defaults, overrides or unset",
	"strategy in {atomic, merge}",
	"unset duplicates",
	"unset rule id format",
	"unset of a rule the policy declares",
	"unset while switched off (PrecedentConfig param)",
	"GEP-713: default or override required",
}

// Name is the name of the policy and binding of a kind.
func Name(k policy.Kind) string {
	return "precedent-" + strings.ToLower(k.GVK.Kind) + "." + k.GVK.Group
}

// Policy returns the ValidatingAdmissionPolicy and its binding for kind k; resource is its plural.
func Policy(k policy.Kind, resource string) (*admissionregistrationv1.ValidatingAdmissionPolicy, *admissionregistrationv1.ValidatingAdmissionPolicyBinding) {
	fail := admissionregistrationv1.Fail
	equivalent := admissionregistrationv1.Equivalent
	scope := admissionregistrationv1.NamespacedScope
	p := &admissionregistrationv1.ValidatingAdmissionPolicy{
		TypeMeta:   metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "ValidatingAdmissionPolicy"},
		ObjectMeta: metav1.ObjectMeta{Name: Name(k)},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			FailurePolicy: &fail,
			MatchConstraints: &admissionregistrationv1.MatchResources{
				MatchPolicy: &equivalent,
				ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
					RuleWithOperations: admissionregistrationv1.RuleWithOperations{
						Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
						Rule: admissionregistrationv1.Rule{APIGroups: []string{k.GVK.Group}, APIVersions: []string{k.GVK.Version},
							Resources: []string{resource}, Scope: &scope},
					},
				}},
			},
			Validations: validations(k),
		},
	}
	b := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{
		TypeMeta:   metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "ValidatingAdmissionPolicyBinding"},
		ObjectMeta: metav1.ObjectMeta{Name: Name(k)},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
			PolicyName:        Name(k),
			ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny},
		},
	}
	return p, b
}

// UnsetSwitch returns the policy and binding that reject any unset while the PrecedentConfig cluster
// switches it off. It is separate from Policy because a binding whose param is missing is skipped
// entirely (parameterNotFoundAction Allow): without a PrecedentConfig, unset stays enabled. Nil for
// kinds without unset.
func UnsetSwitch(k policy.Kind, resource string) (*admissionregistrationv1.ValidatingAdmissionPolicy, *admissionregistrationv1.ValidatingAdmissionPolicyBinding) {
	if k.Profile != policy.ProfileDefaultsOverrides {
		return nil, nil
	}
	p, b := Policy(k, resource)
	name := Name(k) + "-unset-switch"
	p.Name, b.Name, b.Spec.PolicyName = name, name, name
	p.Spec.ParamKind = &admissionregistrationv1.ParamKind{APIVersion: settings.GVK.GroupVersion().String(), Kind: settings.GVK.Kind}
	forbidden := metav1.StatusReasonForbidden
	p.Spec.Validations = []admissionregistrationv1.Validation{{
		Expression: "!has(params.spec.unsetEnabled) || params.spec.unsetEnabled || !has(object.spec.unset) || size(object.spec.unset) == 0",
		Reason:     &forbidden,
		Message:    "spec.unset: Forbidden: unset is switched off in this cluster by the cluster administrator (PrecedentConfig cluster: spec.unsetEnabled): remove spec.unset",
	}}
	allow := admissionregistrationv1.AllowAction
	b.Spec.ParamRef = &admissionregistrationv1.ParamRef{Name: settings.Name, ParameterNotFoundAction: &allow}
	return p, b
}

func validations(k policy.Kind) []admissionregistrationv1.Validation {
	forbidden, invalid := metav1.StatusReasonForbidden, metav1.StatusReasonInvalid
	v := func(expr string, reason metav1.StatusReason, msg string) admissionregistrationv1.Validation {
		r := reason
		return admissionregistrationv1.Validation{Expression: expr, Reason: &r, Message: msg}
	}
	var out []admissionregistrationv1.Validation
	t := "object.spec.targetRef"
	out = append(out,
		v(fmt.Sprintf("!has(%[1]s) || (%[1]s.group + '/' + %[1]s.kind) in %[2]s", t, quoted(targetKinds(k))), invalid,
			fmt.Sprintf("spec.targetRef: Unsupported value: the target must be one of %s", strings.Join(targetKinds(k), ", "))),
		v(fmt.Sprintf("!has(%s.namespace)", t), forbidden,
			"spec.targetRef.namespace: Forbidden: a local target reference has no namespace: the target is in the policy's namespace"),
	)
	if k.Profile == policy.ProfileGEP713 {
		return append(out, v("has(object.spec.default) || has(object.spec.override)", invalid,
			"spec: Required value: at least one of spec.default or spec.override is required"))
	}
	rf := k.RulesField
	bare := "object.spec." + rf
	out = append(out,
		v(fmt.Sprintf("!(has(%s) && (has(object.spec.defaults) || has(object.spec.overrides)))", bare), forbidden,
			fmt.Sprintf("spec.%[1]s: Forbidden: bare %[1]s cannot be combined with spec.defaults or spec.overrides: move them into spec.defaults", rf)),
		v(fmt.Sprintf("has(%s) || has(object.spec.defaults) || has(object.spec.overrides) || has(object.spec.unset)", bare), invalid,
			fmt.Sprintf("spec: Required value: a policy needs spec.%s, spec.defaults, spec.overrides or spec.unset", rf)),
	)
	for _, b := range []string{"defaults", "overrides"} {
		out = append(out, v(fmt.Sprintf("!has(object.spec.%[1]s) || !has(object.spec.%[1]s.strategy) || object.spec.%[1]s.strategy in ['atomic', 'merge']", b), invalid,
			fmt.Sprintf("spec.%s.strategy: Unsupported value: supported values: \"atomic\", \"merge\"", b)))
	}
	u := "object.spec.unset"
	out = append(out,
		v(fmt.Sprintf("!has(%[1]s) || %[1]s.all(x, %[1]s.exists_one(y, y == x))", u), invalid,
			"spec.unset: Duplicate value: each rule id may appear once"),
		v(fmt.Sprintf("!has(%[1]s) || %[1]s.all(x, x.matches(%[2]s))", u, quote(idPattern(k))), invalid,
			"spec.unset: Invalid value: "+idFormat(k)),
		v(fmt.Sprintf("!has(%[1]s) || %[1]s.all(x, %[2]s)", u, notDeclared(k)), forbidden,
			"spec.unset: Forbidden: a rule declared by this policy cannot be unset: unset only removes rules inherited from other policies"),
	)
	return out
}

// notDeclared is true for a rule id x that no block of the policy declares.
func notDeclared(k policy.Kind) string {
	var terms []string
	for _, b := range []string{"object.spec." + k.RulesField, "object.spec.defaults." + k.RulesField, "object.spec.overrides." + k.RulesField} {
		has := "has(" + b + ")"
		if b != "object.spec."+k.RulesField {
			has = "has(" + b[:strings.LastIndex(b, ".")] + ") && " + has
		}
		if len(k.Sections) == 0 {
			terms = append(terms, fmt.Sprintf("!(%s && x in %s)", has, b))
			continue
		}
		sec, name := "x.substring(0, x.indexOf('.'))", "x.substring(x.indexOf('.') + 1)"
		terms = append(terms, fmt.Sprintf("!(%[1]s && x.contains('.') && %[3]s in %[2]s && %[4]s in %[2]s[%[3]s])", has, b, sec, name))
	}
	return strings.Join(terms, " && ")
}

func idPattern(k policy.Kind) string {
	if len(k.Sections) == 0 {
		return `^.+$`
	}
	secs := append([]string(nil), k.Sections...)
	sort.Strings(secs)
	return `^(` + strings.Join(secs, "|") + `)\.[^.]+$`
}

func idFormat(k policy.Kind) string {
	if len(k.Sections) == 0 {
		return "must be a rule name"
	}
	secs := append([]string(nil), k.Sections...)
	sort.Strings(secs)
	return "must be <section>.<name> with section one of " + strings.Join(secs, ", ")
}

func targetKinds(k policy.Kind) []string {
	var out []string
	for _, gk := range k.TargetKinds {
		out = append(out, gk.Group+"/"+gk.Kind)
	}
	return out
}

func quote(s string) string {
	return "'" + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), "'", `\'`) + "'"
}

func quoted(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = quote(s)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// Render writes the policies and bindings of kinds as one YAML stream; plural names each kind's resource.
func Render(kinds []policy.Kind, plural func(kind string) string) ([]byte, error) {
	var buf strings.Builder
	buf.WriteString("# ValidatingAdmissionPolicies for the stateless checks of Precedent that CEL can express\n")
	buf.WriteString("# (generated by `precedent export vap`). Checks: " + strings.Join(Exported, "; ") + ".\n")
	for _, k := range kinds {
		p, b := Policy(k, plural(k.GVK.Kind))
		objs := []interface{}{p, b}
		if sp, sb := UnsetSwitch(k, plural(k.GVK.Kind)); sp != nil {
			objs = append(objs, sp, sb)
		}
		for _, o := range objs {
			y, err := yaml.Marshal(o)
			if err != nil {
				return nil, fmt.Errorf("rendering %s: %w", Name(k), err)
			}
			buf.WriteString("---\n")
			y = []byte(strings.ReplaceAll(string(y), "  creationTimestamp: null\n", ""))
			buf.WriteString(strings.TrimSuffix(string(y), "status: {}\n"))
		}
	}
	return []byte(buf.String()), nil
}
