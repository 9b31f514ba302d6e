package state

import (
	"strings"
	"testing"

	"github.com/go-logr/logr"
	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/yaml"

	"github.com/precedent-dev/precedent/access"
	"github.com/precedent-dev/precedent/mesh"
)

func TestAccessTopologyFromTypedObjects(t *testing.T) {
	s := New(logr.Discard())
	group, kind := gwv1.Group(access.DefaultBackendGroup), gwv1.Kind(access.DefaultBackendKind)
	s.gateways[types.NamespacedName{Namespace: "shop", Name: "gw"}] = &gwv1.Gateway{
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "gw"},
		Spec:       gwv1.GatewaySpec{Listeners: []gwv1.Listener{{Name: "http", Port: 80, Protocol: gwv1.HTTPProtocolType}}},
	}
	route := func(name string, backends ...string) *gwv1.HTTPRoute {
		r := &gwv1.HTTPRoute{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: name}}
		r.Spec.ParentRefs = []gwv1.ParentReference{{Name: "gw"}}
		var refs []gwv1.HTTPBackendRef
		for _, b := range backends {
			refs = append(refs, gwv1.HTTPBackendRef{BackendRef: gwv1.BackendRef{BackendObjectReference: gwv1.BackendObjectReference{Group: &group, Kind: &kind, Name: gwv1.ObjectName(b)}}})
		}
		r.Spec.Rules = []gwv1.HTTPRouteRule{{BackendRefs: refs}}
		return r
	}
	s.httpRoutes[types.NamespacedName{Namespace: "shop", Name: "a"}] = route("a", "cart", "pay")
	s.httpRoutes[types.NamespacedName{Namespace: "shop", Name: "b"}] = route("b", "cart")
	s.topoGen++

	topo := s.AccessTopology(access.DefaultSettings())
	if diff := cmp.Diff([]string{"shop/cart", "shop/pay"}, topo.BackendsBehind("shop/gw")); diff != "" {
		t.Errorf("backends behind shop/gw (-want +got):\n%s", diff)
	}
	if again := s.AccessTopology(access.DefaultSettings()); again != topo {
		t.Error("topology rebuilt without a change")
	}
	other := access.DefaultSettings()
	other.BackendKind = "Service"
	if got := s.AccessTopology(other).BackendsBehind("shop/gw"); len(got) != 0 {
		t.Errorf("with Backend kind Service: backends behind shop/gw = %v, want none", got)
	}
}

func TestMeshGrouping(t *testing.T) {
	s := New(logr.Discard())
	s.policies[MeshTimeoutKind] = map[types.NamespacedName]*unstructured.Unstructured{}
	for _, doc := range []string{
		"{apiVersion: policy.precedent.dev/v1alpha1, kind: MeshTimeout, metadata: {name: b, namespace: x}, spec: {targetRef: {kind: Mesh}, to: [{targetRef: {kind: Mesh}, connectTimeout: 1s}]}}",
		"{apiVersion: policy.precedent.dev/v1alpha1, kind: MeshTimeout, metadata: {name: a, namespace: x, labels: {kuma.io/mesh: default}}, spec: {targetRef: {kind: Mesh}, to: [{targetRef: {kind: Mesh}, connectTimeout: 1s}]}}",
		"{apiVersion: policy.precedent.dev/v1alpha1, kind: MeshTimeout, metadata: {name: c, namespace: x, labels: {kuma.io/mesh: other}}, spec: {targetRef: {kind: Mesh}, to: [{targetRef: {kind: Mesh}, connectTimeout: 1s}]}}",
	} {
		u := &unstructured.Unstructured{}
		if err := yaml.Unmarshal([]byte(doc), &u.Object); err != nil {
			t.Fatal(err)
		}
		s.policies[MeshTimeoutKind][key(u)] = u
	}
	s.policyGen[MeshTimeoutKind]++
	s.dataplanes[types.NamespacedName{Namespace: "x", Name: "web"}] = storedDataplane{mesh: "default", dp: mesh.Dataplane{Namespace: "x", Name: "web"}}
	s.dataplanes[types.NamespacedName{Namespace: "x", Name: "db"}] = storedDataplane{mesh: "other", dp: mesh.Dataplane{Namespace: "x", Name: "db"}}
	s.dpGen++

	names := func(ps []mesh.Policy) []string {
		var out []string
		for _, p := range ps {
			out = append(out, p.ID())
		}
		return out
	}
	if diff := cmp.Diff([]string{"x/a", "x/b"}, names(s.MeshPolicies(MeshTimeoutKind, "default"))); diff != "" {
		t.Errorf("policies of mesh default (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"x/c"}, names(s.MeshPolicies(MeshTimeoutKind, "other"))); diff != "" {
		t.Errorf("policies of mesh other (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]mesh.Dataplane{{Namespace: "x", Name: "db"}}, s.Dataplanes("other"), cmp.AllowUnexported(mesh.Dataplane{})); diff != "" {
		t.Errorf("Dataplanes of mesh other (-want +got):\n%s", diff)
	}
}

// TestAccessGrantsFollowChanges: the access grants are kept while nothing changes, rebuilt after a
// policy or topology change (by a request or by the background builder), and project against what
// the state holds.
func TestAccessGrantsFollowChanges(t *testing.T) {
	s := New(logr.Discard())
	group, kind := gwv1.Group(access.DefaultBackendGroup), gwv1.Kind(access.DefaultBackendKind)
	route := func(name string) *gwv1.HTTPRoute {
		r := &gwv1.HTTPRoute{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: name}}
		r.Spec.ParentRefs = []gwv1.ParentReference{{Name: "gw"}}
		r.Spec.Rules = []gwv1.HTTPRouteRule{{BackendRefs: []gwv1.HTTPBackendRef{{BackendRef: gwv1.BackendRef{BackendObjectReference: gwv1.BackendObjectReference{Group: &group, Kind: &kind, Name: gwv1.ObjectName(name)}}}}}}
		return r
	}
	policy := func(name, targetKind, targetGroup, target string, tools ...string) *unstructured.Unstructured {
		doc := "{apiVersion: policy.precedent.dev/v1alpha1, kind: AccessPolicy, metadata: {name: " + name + ", namespace: shop}, spec: {targetRefs: [{group: " +
			targetGroup + ", kind: " + targetKind + ", name: " + target + "}], rules: [{name: agent, source: {type: ServiceAccount, serviceAccount: {name: agent}}, authorization: {type: InlineTools, tools: [" +
			strings.Join(tools, ", ") + "]}}]}}"
		u := &unstructured.Unstructured{}
		if err := yaml.Unmarshal([]byte(doc), &u.Object); err != nil {
			t.Fatal(err)
		}
		return u
	}
	s.Apply(&gwv1.Gateway{
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "gw"},
		Spec:       gwv1.GatewaySpec{Listeners: []gwv1.Listener{{Name: "http", Port: 80, Protocol: gwv1.HTTPProtocolType}}},
	}, route("mcp"), policy("mcp-pol", access.DefaultBackendKind, access.DefaultBackendGroup, "mcp", "read", "write"))
	as := access.DefaultSettings()
	written, errs := access.Parse(policy("gw-pol", "Gateway", access.GatewayGroup, "gw", "read"), as)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	denied := func(tool, by string) string {
		return "tool `" + tool + "` granted to sa shop/agent by shop/" + by + " is denied at gateway shop/gw: no gateway rule allows it"
	}

	g := s.AccessGrants(access.AccessPolicyKind, as)
	if diff := cmp.Diff([]string{denied("write", "mcp-pol")}, g.ProjectWrite(written, 0)); diff != "" {
		t.Errorf("write warnings (-want +got):\n%s", diff)
	}
	if again := s.AccessGrants(access.AccessPolicyKind, as); again != g {
		t.Error("grants rebuilt without a change")
	}

	s.Apply(route("tools"), policy("tools-pol", access.DefaultBackendKind, access.DefaultBackendGroup, "tools", "admin"))
	s.rebuildAccessGrants()
	s.mu.Lock()
	b := s.accessGrants[access.AccessPolicyKind]
	fresh := b.policyGen == s.policyGen[access.AccessPolicyKind] && b.topoGen == s.topoGen
	s.mu.Unlock()
	if !fresh {
		t.Error("the background builder left the grants stale after a change")
	}
	g2 := s.AccessGrants(access.AccessPolicyKind, as)
	if g2 == g || g2 != b.g {
		t.Error("the request did not get the grants rebuilt by the background builder")
	}
	if diff := cmp.Diff([]string{denied("write", "mcp-pol"), denied("admin", "tools-pol")}, g2.ProjectWrite(written, 0)); diff != "" {
		t.Errorf("write warnings after the change (-want +got):\n%s", diff)
	}
	opened := "removing this policy leaves gateway shop/gw without allow rules: every source may call every tool of the 2 backends behind it"
	if diff := cmp.Diff([]string{opened}, g2.ProjectDelete(written, 0)); diff != "" {
		t.Errorf("delete warnings (-want +got):\n%s", diff)
	}
}
