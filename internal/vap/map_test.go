package vap_test

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/admission/plugin/policy/mutating/patch"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/matchconditions"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/cel/environment"
	"sigs.k8s.io/yaml"

	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/vap"
	"github.com/precedent-dev/precedent/mutate"
	"github.com/precedent-dev/precedent/profiles"
	accessprofile "github.com/precedent-dev/precedent/profiles/access"
	access "github.com/precedent-dev/precedent/profiles/access/engine"
	eg "github.com/precedent-dev/precedent/profiles/envoygateway/engine"
)

// mutateWith applies the MutatingAdmissionPolicy p to a create of obj as the API server's plugin
// does (mutating.compilePolicy): its match conditions, then its JSONPatch mutations. It returns the
// object unchanged when p does not match.
func mutateWith(t *testing.T, p *admissionregistrationv1.MutatingAdmissionPolicy, obj *unstructured.Unstructured) *unstructured.Unstructured {
	t.Helper()
	c, err := plugincel.NewCompositedCompiler(environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()))
	if err != nil {
		t.Fatal(err)
	}
	opts := plugincel.OptionalVariableDeclarations{HasAuthorizer: true}
	gvk := obj.GroupVersionKind()
	gvr := gvk.GroupVersion().WithResource("x")
	attrs := admission.NewAttributesRecord(obj, nil, gvk, obj.GetNamespace(), obj.GetName(), gvr, "", admission.Create, nil, false, nil)
	versioned := &admission.VersionedAttributes{Attributes: attrs, VersionedObject: admission.NewLazyObject(obj), VersionedKind: gvk}
	conds := make([]plugincel.ExpressionAccessor, len(p.Spec.MatchConditions))
	for i := range p.Spec.MatchConditions {
		conds[i] = (*matchconditions.MatchCondition)(&p.Spec.MatchConditions[i])
	}
	m := matchconditions.NewMatcher(c.CompileCondition(conds, opts, environment.NewExpressions), p.Spec.FailurePolicy, "policy", "validate", p.Name)
	res := m.Match(context.Background(), versioned, nil, nil)
	if res.Error != nil {
		t.Fatalf("match conditions: %v", res.Error)
	}
	if !res.Matches {
		return obj
	}
	patchOpts := opts
	patchOpts.HasPatchTypes = true
	out := runtime.Object(obj)
	for _, mu := range p.Spec.Mutations {
		ev := c.CompileMutatingEvaluator(&patch.JSONPatchCondition{Expression: mu.JSONPatch.Expression}, patchOpts, environment.NewExpressions)
		out, err = patch.NewJSONPatcher(ev).Patch(context.Background(), patch.Request{
			MatchedResource:     gvr,
			VersionedAttributes: versioned,
			ObjectInterfaces:    admission.NewObjectInterfacesFromScheme(runtime.NewScheme()),
		}, celconfig.RuntimeCELCostBudget)
		if err != nil {
			t.Fatalf("mutation: %v", err)
		}
		versioned.UpdateObject(out)
	}
	return out.(*unstructured.Unstructured)
}

// applyAdds applies the webhook's "add" operations (mutate.Patch, accessprofile.Patch) to obj.
func applyAdds(t *testing.T, obj *unstructured.Unstructured, ops []string, value func(i int) interface{}) {
	t.Helper()
	for n, path := range ops {
		steps := strings.Split(strings.TrimPrefix(path, "/"), "/")
		var cur interface{} = obj.Object
		for _, s := range steps[:len(steps)-1] {
			switch c := cur.(type) {
			case map[string]interface{}:
				cur = c[s]
			case []interface{}:
				i, _ := strconv.Atoi(s)
				cur = c[i]
			}
		}
		cur.(map[string]interface{})[steps[len(steps)-1]] = value(n)
	}
}

func object(t *testing.T, apiVersion, kind, spec string) *unstructured.Unstructured {
	t.Helper()
	doc := "apiVersion: " + apiVersion + "\nkind: " + kind + "\nmetadata: {name: p, namespace: shop}\nspec:\n  " +
		strings.ReplaceAll(spec, "\n", "\n  ") + "\n"
	js, err := yaml.YAMLToJSON([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(js); err != nil { // numbers as the API server decodes them
		t.Fatal(err)
	}
	return u
}

// TestMutatingParity runs each spec through the mutating webhook's defaulting (package mutate) and
// through the exported MutatingAdmissionPolicy: both must give the same object.
func TestMutatingParity(t *testing.T) {
	auth := policy.Builtin()[0]
	targets := profiles.MutatingTargets([]policy.Kind{auth}, true) // the export's own path
	byKind := map[schema.GroupKind]*admissionregistrationv1.MutatingAdmissionPolicy{}
	for _, tg := range targets {
		p, _ := vap.Mutating(tg.Default, tg.GK, tg.Version, tg.Resource)
		byKind[tg.GK] = p
	}
	strategy := []string{
		"defaults: {rules: {authorization: {a: {}}}}",
		"defaults: {rules: {}}\noverrides: {rules: {}}",
		"overrides: {strategy: merge, rules: {}}",
		"defaults: {strategy: atomic}\noverrides: {when: 'true'}",
		"rules: {authorization: {a: {}}}",
		"targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: cart}",
	}
	for _, spec := range strategy {
		t.Run("strategy "+spec, func(t *testing.T) {
			got := mutateWith(t, byKind[auth.GVK.GroupKind()], object(t, auth.GVK.GroupVersion().String(), auth.GVK.Kind, spec))
			want := object(t, auth.GVK.GroupVersion().String(), auth.GVK.Kind, spec)
			var paths []string
			var values []interface{}
			for _, op := range mutate.Patch(want) {
				paths, values = append(paths, op.Path), append(values, op.Value)
			}
			applyAdds(t, want, paths, func(i int) interface{} { return values[i] })
			if diff := cmp.Diff(want.Object, got.Object); diff != "" {
				t.Errorf("webhook and MutatingAdmissionPolicy disagree (-webhook +MAP):\n%s", diff)
			}
		})
	}
	accessSpecs := []string{
		"rules: [{name: a, source: {type: ServiceAccount, serviceAccount: {name: agent}}}]",
		"rules: [{name: a, source: {type: ServiceAccount, serviceAccount: {name: agent, namespace: other}}}]",
		"rules: [{name: a, source: {type: ServiceAccount, serviceAccount: {name: agent, namespace: ''}}}]",
		"rules: [{name: a, source: {type: SPIFFE, spiffe: 'spiffe://td/x'}}, {name: b, source: {type: ServiceAccount, serviceAccount: {name: agent}}}, {name: c, source: {type: ServiceAccount, serviceAccount: {name: bot}}}]",
		"rules: [7, {source: 3}, {source: {serviceAccount: x}}, {name: d, source: {serviceAccount: {name: agent}}}]",
		"targetRefs: []",
	}
	for _, gk := range []schema.GroupKind{access.AccessPolicyKind, access.XAccessPolicyKind} {
		for _, spec := range accessSpecs {
			t.Run(gk.Kind+" "+spec, func(t *testing.T) {
				apiVersion := gk.Group + "/v1alpha1"
				got := mutateWith(t, byKind[gk], object(t, apiVersion, gk.Kind, spec))
				want := object(t, apiVersion, gk.Kind, spec)
				var paths []string
				var values []interface{}
				for _, op := range accessprofile.Patch(want) {
					paths, values = append(paths, op.Path), append(values, op.Value)
				}
				applyAdds(t, want, paths, func(i int) interface{} { return values[i] })
				if diff := cmp.Diff(want.Object, got.Object); diff != "" {
					t.Errorf("webhook and MutatingAdmissionPolicy disagree (-webhook +MAP):\n%s", diff)
				}
			})
		}
	}
}

// TestMergeTypeParity runs Envoy Gateway policies through the webhook's mergeType default
// (envoygateway.DefaultMergeType, for a kind line `defaults: {mergeType: StrategicMerge}`) and
// through the exported MutatingAdmissionPolicy: both must give the same object. A kind whose line
// sets no default, and ClientTrafficPolicy, get no policy at all.
func TestMergeTypeParity(t *testing.T) {
	gvk := schema.GroupVersionKind{Group: eg.Group, Version: "v1alpha1", Kind: eg.BackendTrafficPolicy}
	k := policy.Kind{GVK: gvk, Profile: "envoy-gateway", Defaults: map[string]string{"mergeType": string(eg.StrategicMerge)}}
	targets := profiles.MutatingTargets([]policy.Kind{
		k,
		{GVK: gvk.GroupVersion().WithKind(eg.SecurityPolicy), Profile: "envoy-gateway"},
		{GVK: gvk.GroupVersion().WithKind(eg.ClientTrafficPolicy), Profile: "envoy-gateway", Defaults: map[string]string{"mergeType": string(eg.StrategicMerge)}},
	}, false)
	if len(targets) != 1 || targets[0].GK != gvk.GroupKind() {
		t.Fatalf("targets %+v, want BackendTrafficPolicy's only", targets)
	}
	p, _ := vap.Mutating(targets[0].Default, targets[0].GK, targets[0].Version, targets[0].Resource)
	specs := []string{
		"targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: cart}]",
		"targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: a}, {group: gateway.networking.k8s.io, kind: GRPCRoute, name: b}]",
		"targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: a}, {group: gateway.networking.k8s.io, kind: Gateway, name: gw}]",
		"targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw}]",
		"targetRef: {group: gateway.networking.k8s.io, kind: TCPRoute, name: t}",
		"targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: gw}\ntargetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: a}]",
		"targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: cart}]\nmergeType: JSONMerge",
		"targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: cart}]\nmergeType: ''",
		"targetSelectors: [{kind: HTTPRoute, matchLabels: {app: shop}}]",
		"targetSelectors: [{kind: HTTPRoute, matchLabels: {app: shop}}, {kind: Gateway, matchLabels: {app: shop}}]",
		"targetRefs: [{group: gateway.networking.k8s.io, kind: UDPRoute, name: u}]\ntargetSelectors: [{kind: TLSRoute, matchLabels: {app: shop}}]",
		"targetRefs: []",
		"timeout: {http: {requestTimeout: 1s}}",
	}
	for _, spec := range specs {
		t.Run(spec, func(t *testing.T) {
			got := mutateWith(t, p, object(t, gvk.GroupVersion().String(), gvk.Kind, spec))
			want := object(t, gvk.GroupVersion().String(), gvk.Kind, spec)
			read, errs := eg.Read(want)
			if len(errs) > 0 {
				t.Fatalf("fixture does not read: %v", errs)
			}
			var paths []string
			var values []interface{}
			for _, op := range eg.DefaultMergeType(read, eg.StrategicMerge) {
				paths, values = append(paths, op.Path), append(values, op.Value)
			}
			applyAdds(t, want, paths, func(i int) interface{} { return values[i] })
			if diff := cmp.Diff(want.Object, got.Object); diff != "" {
				t.Errorf("webhook and MutatingAdmissionPolicy disagree (-webhook +MAP):\n%s", diff)
			}
		})
	}
}
