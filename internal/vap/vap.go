package vap

import (
	"fmt"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/precedent-dev/precedent/internal/checks"
	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/settings"
)

// Exported lists the checks the policies enforce, by ID, with what each rejects (docs/checks.md and
// `precedent export vap --help` show it): every check of package checks that has CEL. Each kind's
// policy holds only the checks of its profile. unset-switched-off reads the PrecedentConfig cluster
// as the policy's param, in a policy of its own (UnsetSwitch).
//
// Not exported (webhook only): the checks without CEL (do-when-compiles: `when` that does not
// compile, is not boolean or is over the cost limit); the stateful checks (unset of an override,
// one policy per target); every warning; the mesh and access profiles' checks. A function, not a
// variable: the table of profiles registers the models' own checks when it installs them
// (profiles.Install, checks.Register).
func Exported() []string {
	var out []string
	for _, c := range checks.All() {
		if c.CEL != nil {
			out = append(out, c.ID+": "+c.Message)
		}
	}
	return out
}

// Name is the name of the policy and binding of a kind.
func Name(k policy.Kind) string {
	return "precedent-" + strings.ToLower(k.GVK.Kind) + "." + k.GVK.Group
}

// Policy returns the ValidatingAdmissionPolicy and its binding for kind k; resource is its plural.
// Both are nil when no check of the kind's profile has CEL (the mesh profile).
func Policy(k policy.Kind, resource string) (*admissionregistrationv1.ValidatingAdmissionPolicy, *admissionregistrationv1.ValidatingAdmissionPolicyBinding) {
	vs := Validations(k, false)
	if len(vs) == 0 {
		return nil, nil
	}
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
			Validations: vs,
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
	vs := Validations(k, true)
	if len(vs) == 0 {
		return nil, nil
	}
	p, b := Policy(k, resource)
	if p == nil {
		return nil, nil
	}
	name := Name(k) + "-unset-switch"
	p.Name, b.Name, b.Spec.PolicyName = name, name, name
	p.Spec.ParamKind = &admissionregistrationv1.ParamKind{APIVersion: settings.GVK.GroupVersion().String(), Kind: settings.GVK.Kind}
	p.Spec.Validations = vs
	allow := admissionregistrationv1.AllowAction
	b.Spec.ParamRef = &admissionregistrationv1.ParamRef{Name: settings.Name, ParameterNotFoundAction: &allow}
	return p, b
}

// Validations are the CEL rules of the checks of kind k's profile, in table order: those that read
// params (the PrecedentConfig) when params is set, the others when not.
func Validations(k policy.Kind, params bool) []admissionregistrationv1.Validation {
	var out []admissionregistrationv1.Validation
	for _, c := range checks.For(k) {
		if c.CEL == nil || c.Params != params {
			continue
		}
		for _, r := range c.CEL(k) {
			reason := metav1.StatusReason(r.Reason)
			out = append(out, admissionregistrationv1.Validation{Expression: r.Expression, Reason: &reason, Message: r.Message, MessageExpression: r.MessageExpression})
		}
	}
	return out
}

// Render writes the policies and bindings of kinds as one YAML stream; plural names each kind's
// resource. A kind none of whose checks CEL can express gets a comment saying so.
func Render(kinds []policy.Kind, plural func(kind string) string) ([]byte, error) {
	var buf strings.Builder
	buf.WriteString("# ValidatingAdmissionPolicies for the stateless checks of Precedent that CEL can express\n")
	buf.WriteString("# (generated by `precedent export vap`). Checks: " + strings.Join(exportedIDs(), ", ") + ".\n")
	for _, k := range kinds {
		p, b := Policy(k, plural(k.GVK.Kind))
		if p == nil {
			fmt.Fprintf(&buf, "# %s.%s (profile %s): no check CEL can express; the webhook checks it\n", k.GVK.Kind, k.GVK.Group, k.Profile)
			continue
		}
		objs := []interface{}{p, b}
		if sp, sb := UnsetSwitch(k, plural(k.GVK.Kind)); sp != nil {
			objs = append(objs, sp, sb)
		}
		if err := write(&buf, objs...); err != nil {
			return nil, fmt.Errorf("rendering %s: %w", Name(k), err)
		}
	}
	return []byte(buf.String()), nil
}

// write appends objs to buf as YAML documents, without the empty fields an API server fills.
func write(buf *strings.Builder, objs ...interface{}) error {
	for _, o := range objs {
		y, err := yaml.Marshal(o)
		if err != nil {
			return err
		}
		buf.WriteString("---\n")
		y = []byte(strings.ReplaceAll(string(y), "  creationTimestamp: null\n", ""))
		buf.WriteString(strings.TrimSuffix(string(y), "status: {}\n"))
	}
	return nil
}

func exportedIDs() []string {
	var out []string
	for _, c := range checks.All() {
		if c.CEL != nil {
			out = append(out, c.ID)
		}
	}
	return out
}
