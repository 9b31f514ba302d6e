package chart

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/precedent-dev/precedent/internal/install"
	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/profile"
)

// grants flattens the rules of the named roles into "group/resource verb" entries.
func grants(t testing.TB, roles map[string][]rbacv1.PolicyRule, names ...string) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	for _, n := range names {
		rs, ok := roles["/"+n]
		if !ok {
			t.Fatalf("no ClusterRole %s", n)
		}
		for _, r := range rs {
			for _, g := range r.APIGroups {
				for _, res := range r.Resources {
					for _, v := range r.Verbs {
						out[g+"/"+res+" "+v] = true
					}
				}
			}
		}
	}
	return out
}

// extraKind is the chart's extraKinds entry of k.
func extraKind(k policy.Kind) map[string]any {
	e := map[string]any{
		"resource": profile.Plural(k.GVK.Kind),
		"gvk":      map[string]any{"group": k.GVK.Group, "version": k.GVK.Version, "kind": k.GVK.Kind},
		"profile":  string(k.Profile),
	}
	if k.Status != "" {
		e["status"] = k.Status
	}
	return e
}

// TestChartExtraKindsAgreeWithComponents: the chart with a component's kinds under extraKinds lets
// the ServiceAccount do what config/default with the component does: read the kinds and what
// their profile reads, and nothing more.
func TestChartExtraKindsAgreeWithComponents(t *testing.T) {
	cs, err := install.Components(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) == 0 {
		t.Fatal("no component")
	}
	for _, c := range cs {
		t.Run(c.Name(), func(t *testing.T) {
			var extra []any
			for _, k := range c.Kinds {
				extra = append(extra, extraKind(k))
			}
			chart := rules(t, byKind(renderChart(t, map[string]any{"extraKinds": extra}, false), "ClusterRole"))
			kust := rules(t, byKind(renderKustomizeAt(t, filepath.Join("testdata", "with-"+c.Name())), "ClusterRole"))
			if diff := cmp.Diff(grants(t, kust, "precedent", "precedent-"+c.Name()), grants(t, chart, "precedent")); diff != "" {
				t.Errorf("grants (-kustomize with %s +chart with its kinds):\n%s", c.Dir, diff)
			}
		})
	}
}

// TestChartStatusDefault: the chart grants update on an extra kind's status exactly where the
// reconciler writes it (policy.Kind's WritesStatus: the profile's default unless status is set).
func TestChartStatusDefault(t *testing.T) {
	kind := func(group, k string, p policy.ProfileName, status string) policy.Kind {
		return policy.Kind{GVK: schema.GroupVersionKind{Group: group, Version: "v1", Kind: k}, Profile: p, Status: status}
	}
	for _, k := range []policy.Kind{
		kind("kuadrant.io", "RateLimitPolicy", policy.ProfileKuadrant, ""),
		kind("kuadrant.io", "AuthPolicy", policy.ProfileKuadrant, policy.StatusFull),
		kind("gateway.envoyproxy.io", "SecurityPolicy", "envoy-gateway", ""),
		kind("kuma.io", "MeshTimeout", policy.ProfileName("mesh"), ""),
		kind("example.com", "MeshTimeout", policy.ProfileName("mesh"), ""),
		kind("example.com", "LimitPolicy", policy.ProfileDefaultsOverrides, ""),
		kind("example.com", "LimitPolicy", policy.ProfileDefaultsOverrides, policy.StatusNone),
	} {
		t.Run(string(k.Profile)+" "+k.GVK.Group+" "+k.Status, func(t *testing.T) {
			roles := rules(t, byKind(renderChart(t, map[string]any{"extraKinds": []any{extraKind(k)}}, false), "ClusterRole"))
			status := k.GVK.Group + "/" + profile.Plural(k.GVK.Kind) + "/status update"
			if got, want := grants(t, roles, "precedent")[status], k.WritesStatus(); got != want {
				t.Errorf("%s granted: %t, want %t (status mode %s)", status, got, want, k.StatusMode())
			}
		})
	}
}
