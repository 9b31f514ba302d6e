package install

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/profile"
	"github.com/precedent-dev/precedent/profiles/envoygateway"
	"github.com/precedent-dev/precedent/profiles/kgateway"
	"github.com/precedent-dev/precedent/profiles/kuadrant"
	meshprofile "github.com/precedent-dev/precedent/profiles/mesh"
)

// TestRulesOneGroupEach: no rule of the ClusterRole grants a resource of one API group in another
// (a rule is the cross product of its groups and resources).
func TestRulesOneGroupEach(t *testing.T) {
	for _, r := range rules() {
		if len(r.APIGroups) != 1 {
			t.Errorf("rule %v names %d API groups, want 1", r, len(r.APIGroups))
		}
	}
}

// TestRulesStatus: the ClusterRole updates the status of exactly the shipped kinds whose status
// Precedent writes, and patches only the Gateways' (their <Kind>Affected condition).
func TestRulesStatus(t *testing.T) {
	got := map[string]bool{}
	for _, r := range rules() {
		for _, res := range r.Resources {
			if strings.Contains(res, "/") {
				got[r.APIGroups[0]+"/"+res+" "+strings.Join(r.Verbs, ",")] = true
			}
		}
	}
	want := map[string]bool{"gateway.networking.k8s.io/gateways/status patch": true}
	for _, k := range policy.Builtin() {
		if k.WritesStatus() {
			want[k.GVK.Group+"/"+profile.Plural(k.GVK.Kind)+"/status update"] = true
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("subresource grants (-want +got):\n%s", diff)
	}
}

// TestComponentRules: a component reads its kinds and what its profile reads, and updates the
// status only of the kinds whose status Precedent writes.
func TestComponentRules(t *testing.T) {
	rlp := policy.Kind{GVK: schema.GroupVersionKind{Group: "kuadrant.io", Version: "v1", Kind: "RateLimitPolicy"}, Profile: policy.ProfileKuadrant}
	full := rlp
	full.Status = policy.StatusFull
	btp := policy.Kind{GVK: schema.GroupVersionKind{Group: "gateway.envoyproxy.io", Version: "v1alpha1", Kind: "BackendTrafficPolicy"}, Profile: envoygateway.Name}
	read := []string{"get", "list", "watch"}
	for _, tc := range []struct {
		name  string
		rules []rbacv1.PolicyRule
		want  []rbacv1.PolicyRule
	}{
		{"kuadrant: read only, status none by default", componentRules(kuadrant.New(), []policy.Kind{rlp}),
			[]rbacv1.PolicyRule{{APIGroups: []string{"kuadrant.io"}, Resources: []string{"ratelimitpolicies"}, Verbs: read}}},
		{"kuadrant with status full: update on its status", componentRules(kuadrant.New(), []policy.Kind{full}),
			[]rbacv1.PolicyRule{
				{APIGroups: []string{"kuadrant.io"}, Resources: []string{"ratelimitpolicies"}, Verbs: read},
				{APIGroups: []string{"kuadrant.io"}, Resources: []string{"ratelimitpolicies/status"}, Verbs: []string{"update"}},
			}},
		{"envoy-gateway: its kinds and what it reads", componentRules(envoygateway.Profile{}, []policy.Kind{btp}),
			[]rbacv1.PolicyRule{
				{APIGroups: []string{"gateway.envoyproxy.io"}, Resources: []string{"backendtrafficpolicies"}, Verbs: read},
				{APIGroups: []string{"gateway.networking.k8s.io"}, Resources: []string{"listenersets", "tcproutes", "udproutes", "referencegrants"}, Verbs: read},
			}},
		{"the chart's rules of what envoy-gateway reads", readRules(envoygateway.Profile{}),
			[]rbacv1.PolicyRule{{APIGroups: []string{"gateway.networking.k8s.io"}, Resources: []string{"listenersets", "tcproutes", "udproutes", "referencegrants"}, Verbs: read}}},
		{"kuadrant reads nothing beyond its policies", readRules(kuadrant.New()), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, tc.rules); diff != "" {
				t.Errorf("rules (-want +got):\n%s", diff)
			}
		})
	}
}

// TestStatusNone: the chart's default status mode per profile is the models' (policy.Kind's
// StatusMode): none for every Kuadrant, Envoy Gateway, mesh and NGINX Gateway Fabric kind (all but
// kuadrant have no status writer).
func TestStatusNone(t *testing.T) {
	want := map[policy.ProfileName][]string{
		policy.ProfileKuadrant: {"*"},
		envoygateway.Name:      {"*"},
		kgateway.Name:          {"*"},
		meshprofile.Name:       {"*"},
		"nginx-gateway-fabric": {"*"},
	}
	if diff := cmp.Diff(want, statusNone()); diff != "" {
		t.Errorf("statusNone (-want +got):\n%s", diff)
	}
}
