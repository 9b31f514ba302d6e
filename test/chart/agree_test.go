package chart

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/webhook"
)

// modes pairs each certificate mode of the chart with its kustomize directory.
var modes = []struct {
	name, mode, dir string
}{
	{"cert-manager", "certManager", "default"},
	{"built-in certificates", "builtin", "builtin-certs"},
}

func modeValues(mode string) map[string]any {
	return map[string]any{"certificates": map[string]any{"mode": mode}}
}

// TestChartAgreesWithKustomize: per certificate mode, the chart and kustomize install the same CRDs,
// the same roles with the same rules, the same webhook entries (rules, failure policy, match
// conditions, Service, CA injection) and the same pod spec but for the image.
func TestChartAgreesWithKustomize(t *testing.T) {
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			chart := renderChart(t, modeValues(m.mode), false)
			kust := renderKustomize(t, m.dir)

			t.Run("CRDs", func(t *testing.T) {
				c, k := byKind(chart, "CustomResourceDefinition"), byKind(kust, "CustomResourceDefinition")
				if len(k) == 0 {
					t.Fatalf("config/%s renders no CRD: %v", m.dir, kinds(kust))
				}
				if diff := cmp.Diff(objects(k), objects(c)); diff != "" {
					t.Errorf("CRDs (-kustomize +chart):\n%s", diff)
				}
			})
			t.Run("RBAC", func(t *testing.T) {
				for _, kind := range []string{"ClusterRole", "Role"} {
					if diff := cmp.Diff(rules(t, byKind(kust, kind)), rules(t, byKind(chart, kind))); diff != "" {
						t.Errorf("%s rules (-kustomize +chart):\n%s", kind, diff)
					}
				}
				for _, kind := range []string{"ClusterRoleBinding", "RoleBinding"} {
					if diff := cmp.Diff(bindings(t, byKind(kust, kind)), bindings(t, byKind(chart, kind))); diff != "" {
						t.Errorf("%ss (-kustomize +chart):\n%s", kind, diff)
					}
				}
			})
			t.Run("webhooks", func(t *testing.T) {
				if diff := cmp.Diff(webhooks(t, kust), webhooks(t, chart), cmpopts.EquateEmpty()); diff != "" {
					t.Errorf("webhook configurations (-kustomize +chart):\n%s", diff)
				}
			})
			t.Run("pod spec", func(t *testing.T) {
				if diff := cmp.Diff(podSpec(t, kust), podSpec(t, chart)); diff != "" {
					t.Errorf("Deployment pod spec but the image (-kustomize +chart):\n%s", diff)
				}
			})
		})
	}
}

// TestChartWebhooksFollowConfigurations: with extra kinds, the chart's webhook entries are what
// webhook.Configurations builds for the shipped kinds plus those kinds; the deletes entry and, with
// a kgateway kind, the warnings entry of its HTTPRoute and Gateway writes are the ones that fail
// open.
func TestChartWebhooksFollowConfigurations(t *testing.T) {
	kuadrant := policy.Kind{GVK: schema.GroupVersionKind{Group: "kuadrant.io", Version: "v1", Kind: "RateLimitPolicy"}, Profile: policy.ProfileKuadrant}
	limits := policy.Kind{GVK: schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "LimitPolicy"}, Profile: policy.ProfileDefaultsOverrides, RulesField: "limits"}
	traffic := policy.Kind{GVK: schema.GroupVersionKind{Group: "gateway.kgateway.dev", Version: "v1alpha1", Kind: "TrafficPolicy"}, Profile: "kgateway"}
	vals := map[string]any{"extraKinds": []any{
		map[string]any{"resource": "ratelimitpolicies", "gvk": map[string]any{"group": "kuadrant.io", "version": "v1", "kind": "RateLimitPolicy"}, "profile": "kuadrant"},
		map[string]any{"resource": "limitpolicies", "gvk": map[string]any{"group": "example.com", "version": "v1", "kind": "LimitPolicy"}, "profile": "defaults-overrides", "rulesField": "limits"},
		kgatewayExtraKinds["extraKinds"].([]any)[0],
	}}
	gm, gv := webhook.Configurations(append(policy.Builtin(), kuadrant, limits, traffic), webhook.ServiceClientConfig)
	c := webhooks(t, renderChart(t, vals, true))
	if diff := cmp.Diff(gm.Webhooks, c.Mutating, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("MutatingWebhookConfiguration (-webhook.Configurations +chart):\n%s", diff)
	}
	if diff := cmp.Diff(gv.Webhooks, c.Validating, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("ValidatingWebhookConfiguration (-webhook.Configurations +chart):\n%s", diff)
	}
}

// TestChartFailurePolicy: values.failurePolicy sets every entry but the deletes one, which always
// fails open; the settings entry fails open only on a first install that makes a PrecedentConfig
// (which reaches the webhook before any replica answers).
func TestChartFailurePolicy(t *testing.T) {
	for _, tc := range []struct {
		name     string
		vals     map[string]any
		upgrade  bool
		settings admissionregistrationv1.FailurePolicyType
		others   admissionregistrationv1.FailurePolicyType
	}{
		{"default", nil, false, "Fail", "Fail"},
		{"Ignore chosen", map[string]any{"failurePolicy": "Ignore"}, false, "Ignore", "Ignore"},
		{"install with settings", map[string]any{"config": map[string]any{"unsetEnabled": false}}, false, "Ignore", "Fail"},
		{"upgrade with settings", map[string]any{"config": map[string]any{"unsetEnabled": false}}, true, "Fail", "Fail"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := webhooks(t, renderChart(t, tc.vals, tc.upgrade))
			got := map[string]admissionregistrationv1.FailurePolicyType{}
			for _, w := range h.Mutating {
				got[w.Name] = *w.FailurePolicy
			}
			for _, w := range h.Validating {
				got[w.Name] = *w.FailurePolicy
			}
			want := map[string]admissionregistrationv1.FailurePolicyType{
				"defaults.precedent.dev": tc.others, "access-defaults.precedent.dev": tc.others,
				"policies.precedent.dev": tc.others, "precedentconfigs.precedent.dev": tc.settings,
				"deletes.precedent.dev": "Ignore",
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("failure policies (-want +got):\n%s", diff)
			}
		})
	}
}

// objects returns the objects' contents by name.
func objects(m map[string]*unstructured.Unstructured) map[string]map[string]any {
	out := map[string]map[string]any{}
	for n, o := range m {
		out[n] = o.Object
	}
	return out
}

func convert(t testing.TB, u *unstructured.Unstructured, into any) {
	t.Helper()
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, into); err != nil {
		t.Fatalf("reading %s %s: %v", u.GetKind(), u.GetName(), err)
	}
}

// rules returns each role's rules by namespace/name.
func rules(t testing.TB, m map[string]*unstructured.Unstructured) map[string][]rbacv1.PolicyRule {
	out := map[string][]rbacv1.PolicyRule{}
	for _, o := range m {
		var r rbacv1.ClusterRole // Role has the same rules field
		convert(t, o, &r)
		out[o.GetNamespace()+"/"+o.GetName()] = r.Rules
	}
	return out
}

// bindings returns each binding's role and subjects by namespace/name.
func bindings(t testing.TB, m map[string]*unstructured.Unstructured) map[string]rbacv1.RoleBinding {
	out := map[string]rbacv1.RoleBinding{}
	for _, o := range m {
		var b rbacv1.RoleBinding
		convert(t, o, &b)
		out[o.GetNamespace()+"/"+o.GetName()] = rbacv1.RoleBinding{RoleRef: b.RoleRef, Subjects: b.Subjects}
	}
	return out
}

// hooks are the webhooks of the one mutating and the one validating configuration named precedent,
// and the annotations both carry (the CA injection).
type hooks struct {
	Annotations map[string]string
	Mutating    []admissionregistrationv1.MutatingWebhook
	Validating  []admissionregistrationv1.ValidatingWebhook
}

func webhooks(t testing.TB, objs []*unstructured.Unstructured) hooks {
	t.Helper()
	mu, vu := byKind(objs, "MutatingWebhookConfiguration"), byKind(objs, "ValidatingWebhookConfiguration")
	if len(mu) != 1 || len(vu) != 1 || mu[webhook.ConfigurationName] == nil || vu[webhook.ConfigurationName] == nil {
		t.Fatalf("want one mutating and one validating configuration named %s: %v", webhook.ConfigurationName, kinds(objs))
	}
	var m admissionregistrationv1.MutatingWebhookConfiguration
	var v admissionregistrationv1.ValidatingWebhookConfiguration
	convert(t, mu[webhook.ConfigurationName], &m)
	convert(t, vu[webhook.ConfigurationName], &v)
	if diff := cmp.Diff(m.Annotations, v.Annotations); diff != "" {
		t.Errorf("the two configurations have different annotations (-mutating +validating):\n%s", diff)
	}
	return hooks{Annotations: m.Annotations, Mutating: m.Webhooks, Validating: v.Webhooks}
}

// podSpec returns the Deployment's pod spec without the image and its pull policy.
func podSpec(t testing.TB, objs []*unstructured.Unstructured) map[string]any {
	t.Helper()
	d := byKind(objs, "Deployment")["precedent"]
	if d == nil {
		t.Fatalf("no Deployment precedent: %v", kinds(objs))
	}
	spec, _, _ := unstructured.NestedMap(d.Object, "spec", "template", "spec")
	cs, _, _ := unstructured.NestedSlice(spec, "containers")
	for _, c := range cs {
		delete(c.(map[string]any), "image")
		delete(c.(map[string]any), "imagePullPolicy")
	}
	spec["containers"] = cs
	return spec
}

// TestKuadrantComponent: the config/kuadrant component adds Kuadrant's kinds to Precedent's own
// validating webhook configuration (writes failing closed, deletes failing open, on the same
// Service and path), read-only RBAC for them, and the PrecedentConfig managing them with the
// kuadrant profile, and leaves the rest of config/default as it is.
func TestKuadrantComponent(t *testing.T) {
	with := assertComponent(t, "with-kuadrant", "kuadrant", "kuadrant.io", []string{"ratelimitpolicies", "authpolicies", "tokenratelimitpolicies"})
	pc := byKind(with, "PrecedentConfig")["cluster"]
	if pc == nil {
		t.Fatal("no PrecedentConfig cluster")
	}
	kindsList, _, _ := unstructured.NestedSlice(pc.Object, "spec", "kinds")
	if len(kindsList) != 3 {
		t.Errorf("PrecedentConfig manages %d kinds, want Kuadrant's 3", len(kindsList))
	}
}

// assertComponent renders config/default with the component of testdata/dir and checks what every
// policy component adds: a ClusterRole, its binding, kind lines in the one PrecedentConfig, and in Precedent's own
// validating webhook configuration the entries <name>.policies.precedent.dev (writes of group's
// resources, failing closed) and <name>-deletes.policies.precedent.dev (their deletes, failing open),
// both on the precedent-webhook Service's /validate. It returns the rendered objects.
func assertComponent(t *testing.T, dir, name, group string, resources []string) []*unstructured.Unstructured {
	t.Helper()
	base := renderKustomize(t, "default")
	with := renderKustomizeAt(t, filepath.Join("testdata", dir))
	if got, want := len(with), len(base)+2; got != want {
		t.Errorf("%d objects with the component, want %d (config/default's + ClusterRole, ClusterRoleBinding; its kinds go into config/default's PrecedentConfig): %v", got, want, kinds(with))
	}
	vwc := byKind(with, "ValidatingWebhookConfiguration")["precedent"]
	if vwc == nil {
		t.Fatal("no ValidatingWebhookConfiguration precedent")
	}
	var cfg admissionregistrationv1.ValidatingWebhookConfiguration
	convert(t, vwc, &cfg)
	want := map[string]struct {
		ops    []admissionregistrationv1.OperationType
		policy admissionregistrationv1.FailurePolicyType
	}{
		name + ".policies.precedent.dev":         {[]admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update}, admissionregistrationv1.Fail},
		name + "-deletes.policies.precedent.dev": {[]admissionregistrationv1.OperationType{admissionregistrationv1.Delete}, admissionregistrationv1.Ignore},
	}
	found := 0
	for _, w := range cfg.Webhooks {
		exp, ok := want[w.Name]
		if !ok {
			continue
		}
		found++
		if w.FailurePolicy == nil || *w.FailurePolicy != exp.policy {
			t.Errorf("%s: failurePolicy %v, want %s", w.Name, w.FailurePolicy, exp.policy)
		}
		if w.ClientConfig.Service == nil || w.ClientConfig.Service.Name != "precedent-webhook" || w.ClientConfig.Service.Path == nil || *w.ClientConfig.Service.Path != "/validate" {
			t.Errorf("%s: clientConfig %+v, want the precedent-webhook Service on /validate", w.Name, w.ClientConfig)
		}
		if len(w.Rules) != 1 || !slices.Equal(w.Rules[0].APIGroups, []string{group}) || !slices.Equal(w.Rules[0].Resources, resources) || !slices.Equal(w.Rules[0].Operations, exp.ops) {
			t.Errorf("%s: rules %+v, want %v of %s %v", w.Name, w.Rules, exp.ops, group, resources)
		}
	}
	if found != len(want) {
		t.Errorf("found %d of the component's webhook entries, want %d", found, len(want))
	}
	return with
}
