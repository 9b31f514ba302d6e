package vap_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/cel/environment"

	"github.com/precedent-dev/precedent/cel"
	"github.com/precedent-dev/precedent/internal/checks"
	"github.com/precedent-dev/precedent/internal/manifest"
	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/settings"
	"github.com/precedent-dev/precedent/internal/vap"
)

// rejects is the annotation of a parity fixture listing the IDs of the checks it fails, comma
// separated; absent on a valid fixture.
const rejects = "parity.precedent.dev/rejects"

// parityKinds are the shipped kinds and Kuadrant's, as a PrecedentConfig configures them.
func parityKinds() *policy.Registry {
	s := settings.Defaults()
	s.Kinds = []policy.Kind{
		{GVK: schema.GroupVersionKind{Group: "kuadrant.io", Version: "v1", Kind: "RateLimitPolicy"}, Profile: policy.ProfileKuadrant},
		{GVK: schema.GroupVersionKind{Group: "kuadrant.io", Version: "v1", Kind: "AuthPolicy"}, Profile: policy.ProfileKuadrant},
	}
	s.Default()
	return s.Registry()
}

// compile builds the policy's validator the way the API server's ValidatingAdmissionPolicy plugin
// does (validating.compilePolicy): the composited compiler over the base environment, in the
// environment an API server applies to a newly written policy, so that an expression it would
// refuse fails here too.
func compile(t *testing.T, p *admissionregistrationv1.ValidatingAdmissionPolicy) validating.Validator {
	t.Helper()
	c, err := plugincel.NewCompositedCompiler(environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()))
	if err != nil {
		t.Fatal(err)
	}
	hasParams := p.Spec.ParamKind != nil
	vars := plugincel.OptionalVariableDeclarations{HasParams: hasParams, HasAuthorizer: true}
	conds := make([]plugincel.ExpressionAccessor, len(p.Spec.Validations))
	msgs := make([]plugincel.ExpressionAccessor, len(p.Spec.Validations))
	for i, v := range p.Spec.Validations {
		conds[i] = &validating.ValidationCondition{Expression: v.Expression, Message: v.Message, Reason: v.Reason}
		if v.MessageExpression != "" {
			msgs[i] = &validating.MessageExpressionCondition{MessageExpression: v.MessageExpression}
		}
	}
	return validating.NewValidator(
		c.CompileCondition(conds, vars, environment.NewExpressions),
		nil,
		c.CompileCondition(nil, vars, environment.NewExpressions),
		c.CompileCondition(msgs, plugincel.OptionalVariableDeclarations{HasParams: hasParams}, environment.NewExpressions),
		p.Spec.FailurePolicy, nil)
}

// denial is one validation that denies an object: its index and the message the API server gives.
type denial struct {
	index   int
	message string
}

// denied evaluates the policy's validations on a create of obj, with params (nil for none), and
// returns the validations that deny it; an evaluation error fails the test.
func denied(t *testing.T, v validating.Validator, obj, params *unstructured.Unstructured) []denial {
	t.Helper()
	gvk := obj.GroupVersionKind()
	gvr := gvk.GroupVersion().WithResource(strings.ToLower(gvk.Kind) + "s")
	attrs := admission.NewAttributesRecord(obj, nil, gvk, obj.GetNamespace(), obj.GetName(), gvr, "", admission.Create, nil, false, nil)
	versioned := &admission.VersionedAttributes{Attributes: attrs, VersionedObject: admission.NewLazyObject(obj), VersionedKind: gvk}
	var pr runtime.Object // a nil *Unstructured in it would not be nil
	if params != nil {
		pr = params
	}
	res := v.Validate(context.Background(), gvr, versioned, pr, nil, celconfig.RuntimeCELCostBudget, nil)
	var out []denial
	for i, d := range res.Decisions {
		switch d.Evaluation {
		case validating.EvalError:
			t.Fatalf("validation %d: evaluation error: %s", i, d.Message)
		case validating.EvalDeny:
			out = append(out, denial{i, d.Message})
		}
	}
	return out
}

// celIDs lists, per validation Validations(k, params) returns, the ID of the check it comes from;
// it also asserts that the exported validations are the table's CEL, in table order.
func celIDs(t *testing.T, k policy.Kind, params bool) []string {
	t.Helper()
	var ids []string
	var rules []checks.Rule
	for _, c := range checks.For(k) {
		if c.CEL == nil || c.Params != params {
			continue
		}
		for _, r := range c.CEL(k) {
			ids = append(ids, c.ID)
			rules = append(rules, r)
		}
	}
	var exported []checks.Rule
	for _, v := range vap.Validations(k, params) {
		exported = append(exported, checks.Rule{Expression: v.Expression, Reason: string(*v.Reason), Message: v.Message, MessageExpression: v.MessageExpression})
	}
	if diff := cmp.Diff(rules, exported); diff != "" {
		t.Fatalf("exported validations of %s are not the table's CEL (-table +exported):\n%s", k, diff)
	}
	return ids
}

func unique(ids []string) []string {
	sort.Strings(ids)
	return slices.Compact(ids)
}

// TestParity runs every fixture of testdata/parity through the Go checks and through the exported
// ValidatingAdmissionPolicy evaluated by k8s.io/apiserver's validator: for each check with CEL, both
// must accept or both reject; the checks that fire must be those the fixture names.
func TestParity(t *testing.T) {
	files, err := filepath.Glob("testdata/parity/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no parity fixtures: %v", err)
	}
	reg := parityKinds()
	ev, err := cel.New(settings.Defaults().CELCostLimit)
	if err != nil {
		t.Fatal(err)
	}
	rejected := map[string]bool{} // the CEL checks some fixture rejects, to see each one exercised
	profiles := map[policy.ProfileName]bool{}
	for _, file := range files {
		objs, err := manifest.Read(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range objs {
			u := o.Unstructured
			k, ok := reg.Lookup(u.GroupVersionKind().GroupKind())
			if !ok {
				t.Fatalf("%s: %s is not a managed kind", file, u.GroupVersionKind())
			}
			profiles[k.Profile] = true
			name := fmt.Sprintf("%s/%s/%s", filepath.Base(file), k.GVK.Kind, u.GetName())
			t.Run(name, func(t *testing.T) { checkParity(t, k, u, ev, rejected) })
		}
	}
	for _, p := range []policy.ProfileName{policy.ProfileDefaultsOverrides, policy.ProfileGEP713, policy.ProfileKuadrant} {
		if !profiles[p] {
			t.Errorf("no parity fixture of profile %s", p)
		}
	}
	for _, c := range checks.All() {
		if c.CEL != nil && !c.Params && !rejected[c.ID] {
			t.Errorf("check %s has CEL but no fixture is rejected by it", c.ID)
		}
	}
}

// checkParity runs one parity fixture object u of kind k through the Go checks and the exported
// policy; rejected collects the CEL checks that fire.
func checkParity(t *testing.T, k policy.Kind, u *unstructured.Unstructured, ev *cel.Evaluator, rejected map[string]bool) {
	var want []string
	if a := u.GetAnnotations()[rejects]; a != "" {
		want = unique(strings.Split(a, ","))
	}
	p, verrs := policy.View(k, u)
	if len(verrs) > 0 {
		t.Fatalf("fixture does not read as a policy: %v", verrs)
	}
	var goIDs []string
	goErrs := map[string][]string{}
	for _, f := range checks.Evaluate(checks.Input{Policy: p, Settings: settings.Defaults(), Cond: ev}) {
		goIDs = append(goIDs, f.ID)
		goErrs[f.ID] = append(goErrs[f.ID], f.Err.Error())
	}
	if diff := cmp.Diff(want, unique(goIDs)); diff != "" {
		t.Errorf("Go checks (-fixture +Go):\n%s", diff)
	}
	celFired, celMsgs, exact := celFindings(t, k, u, rejected)
	// Where one check finds one error both ways, the API server's message is the webhook's
	// (unless the exported message says it cannot name the index: "[*]").
	for id, msgs := range celMsgs {
		if exact[id] && len(msgs) == 1 && len(goErrs[id]) == 1 && msgs[0] != goErrs[id][0] {
			t.Errorf("%s: the exported message is not the webhook's:\n CEL: %s\n Go:  %s", id, msgs[0], goErrs[id][0])
		}
	}
	var goWithCEL []string
	for _, id := range unique(goIDs) {
		if c, _ := checks.ByID(id); c.CEL != nil {
			goWithCEL = append(goWithCEL, id)
		}
	}
	if diff := cmp.Diff(goWithCEL, unique(celFired)); diff != "" {
		t.Errorf("Go and the exported CEL disagree (-Go +CEL):\n%s", diff)
	}
}

// celFindings evaluates the exported policy of k on u: the checks that fire, with repeats, their
// messages, and whether each message names the field exactly; rejected collects the checks.
func celFindings(t *testing.T, k policy.Kind, u *unstructured.Unstructured, rejected map[string]bool) ([]string, map[string][]string, map[string]bool) {
	pol, _ := vap.Policy(k, "x")
	ids := celIDs(t, k, false)
	var celFired []string
	celMsgs := map[string][]string{}
	exact := map[string]bool{}
	for _, d := range denied(t, compile(t, pol), u, nil) {
		id := ids[d.index]
		celFired = append(celFired, id)
		celMsgs[id] = append(celMsgs[id], d.message)
		rejected[id] = true
		v := pol.Spec.Validations[d.index]
		exact[id] = v.MessageExpression != "" || !strings.Contains(v.Message, "[*]")
	}
	return celFired, celMsgs, exact
}

// TestParityUnsetSwitch compares the unset switch: the Go check with unset switched off in the
// settings, the exported policy with a PrecedentConfig param that switches it off.
func TestParityUnsetSwitch(t *testing.T) {
	k, _ := parityKinds().ByName("AuthPolicy.policy.precedent.dev")
	off := settings.Defaults()
	off.UnsetEnabled = false
	params := func(enabled string) *unstructured.Unstructured {
		spec := map[string]interface{}{}
		if enabled != "" {
			spec["unsetEnabled"] = enabled == "true"
		}
		return &unstructured.Unstructured{Object: map[string]interface{}{
			"apiVersion": settings.GVK.GroupVersion().String(), "kind": settings.GVK.Kind,
			"metadata": map[string]interface{}{"name": settings.Name}, "spec": spec,
		}}
	}
	obj := func(unset string) *unstructured.Unstructured {
		spec := map[string]interface{}{
			"targetRef": map[string]interface{}{"group": policy.GatewayGroup, "kind": "HTTPRoute", "name": "cart"},
			"rules":     map[string]interface{}{"authorization": map[string]interface{}{"a": map[string]interface{}{}}},
		}
		if unset != "" {
			var list []interface{}
			for _, id := range strings.Split(unset, ",") {
				list = append(list, id)
			}
			spec["unset"] = list
		}
		return &unstructured.Unstructured{Object: map[string]interface{}{
			"apiVersion": k.GVK.GroupVersion().String(), "kind": k.GVK.Kind,
			"metadata": map[string]interface{}{"name": "p", "namespace": "shop"}, "spec": spec,
		}}
	}
	sw, _ := vap.UnsetSwitch(k, "authpolicies")
	ids := celIDs(t, k, true)
	v := compile(t, sw)
	tests := []struct {
		name    string
		unset   string
		enabled string // the param's spec.unsetEnabled: "true", "false" or "" (absent)
		want    []string
	}{
		{"unset while switched off", "authentication.x", "false", []string{"unset-switched-off"}},
		{"no unset while switched off", "", "false", nil},
		{"unset while switched on", "authentication.x", "true", nil},
		{"unset with the switch absent", "authentication.x", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := settings.Defaults()
			s.UnsetEnabled = tt.enabled != "false"
			p, verrs := policy.View(k, obj(tt.unset))
			if len(verrs) > 0 {
				t.Fatal(verrs)
			}
			var goIDs []string
			for _, f := range checks.Evaluate(checks.Input{Policy: p, Settings: s}) {
				goIDs = append(goIDs, f.ID)
			}
			var celFired []string
			for _, d := range denied(t, v, obj(tt.unset), params(tt.enabled)) {
				celFired = append(celFired, ids[d.index])
			}
			if diff := cmp.Diff(tt.want, unique(goIDs)); diff != "" {
				t.Errorf("Go checks (-want +Go):\n%s", diff)
			}
			if diff := cmp.Diff(tt.want, unique(celFired)); diff != "" {
				t.Errorf("exported CEL (-want +CEL):\n%s", diff)
			}
		})
	}
}
