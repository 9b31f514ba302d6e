package access_test

import (
	"strings"
	"testing"

	"github.com/go-logr/logr"
	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/yaml"

	"github.com/precedent-dev/precedent/internal/state"
	accessprofile "github.com/precedent-dev/precedent/profiles/access"
	access "github.com/precedent-dev/precedent/profiles/access/engine"
)

func TestAccessTopologyFromTypedObjects(t *testing.T) {
	s := state.New(logr.Discard())
	group, kind := gwv1.Group(access.DefaultBackendGroup), gwv1.Kind(access.DefaultBackendKind)
	s.Apply(&gwv1.Gateway{
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "gw"},
		Spec:       gwv1.GatewaySpec{Listeners: []gwv1.Listener{{Name: "http", Port: 80, Protocol: gwv1.HTTPProtocolType}}},
	})
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
	s.Apply(route("a", "cart", "pay"), route("b", "cart"))

	topo := accessprofile.Topology(s, access.DefaultSettings())
	if diff := cmp.Diff([]string{"shop/cart", "shop/pay"}, topo.BackendsBehind("shop/gw")); diff != "" {
		t.Errorf("backends behind shop/gw (-want +got):\n%s", diff)
	}
	if again := accessprofile.Topology(s, access.DefaultSettings()); again != topo {
		t.Error("topology rebuilt without a change")
	}
	other := access.DefaultSettings()
	other.BackendKind = "Service"
	if got := accessprofile.Topology(s, other).BackendsBehind("shop/gw"); len(got) != 0 {
		t.Errorf("with Backend kind Service: backends behind shop/gw = %v, want none", got)
	}
}

// TestAccessGrantsFollowChanges: the access grants are kept while nothing changes, rebuilt after a
// policy or topology change, and project against what the state holds.
func TestAccessGrantsFollowChanges(t *testing.T) {
	s := state.New(logr.Discard())
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
		return "PRC-W013 tool `" + tool + "` granted to sa shop/agent by shop/" + by + " is denied at gateway shop/gw: no gateway rule allows it"
	}

	g := accessprofile.Grants(s, access.AccessPolicyKind, as)
	if diff := cmp.Diff([]string{denied("write", "mcp-pol")}, g.ProjectWrite(written, 0)); diff != "" {
		t.Errorf("write warnings (-want +got):\n%s", diff)
	}
	if again := accessprofile.Grants(s, access.AccessPolicyKind, as); again != g {
		t.Error("grants rebuilt without a change")
	}

	s.Apply(route("tools"), policy("tools-pol", access.DefaultBackendKind, access.DefaultBackendGroup, "tools", "admin"))
	g2 := accessprofile.Grants(s, access.AccessPolicyKind, as)
	if g2 == g {
		t.Error("the grants were not rebuilt after a change")
	}
	if diff := cmp.Diff([]string{denied("write", "mcp-pol"), denied("admin", "tools-pol")}, g2.ProjectWrite(written, 0)); diff != "" {
		t.Errorf("write warnings after the change (-want +got):\n%s", diff)
	}
	opened := "PRC-W012 removing this policy leaves gateway shop/gw without allow rules: every source may call every tool of the 2 backends behind it"
	if diff := cmp.Diff([]string{opened}, g2.ProjectDelete(written, 0)); diff != "" {
		t.Errorf("delete warnings (-want +got):\n%s", diff)
	}
}
