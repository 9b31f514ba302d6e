package envoygateway

import (
	"fmt"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	engine "github.com/precedent-dev/precedent/profiles/envoygateway/engine"
)

// TestWorldStepsOnNamespacesAndGrants is TestWorldStepsMatchWholeBuild with namespaces that matter:
// routes and a ListenerSet in namespaces team-a and team-b attach to Gateway gw-team by its
// allowedRoutes and allowedListeners namespace selectors, policies of shop select objects of every
// namespace, or of the namespaces their namespaceSelector matches, and reach those of another
// namespace by ReferenceGrants. Among the events: Namespace labels set, changed and dropped,
// Namespaces deleted, and ReferenceGrants created, updated and deleted. After every event the world
// must have been stepped (not built whole) and answer as a world built whole from the same state.
func TestWorldStepsOnNamespacesAndGrants(t *testing.T) {
	compared := 0
	for seed := int64(1); seed <= 10; seed++ {
		mapper := meta.NewDefaultRESTMapper([]schema.GroupVersion{{Group: gwv1.GroupName, Version: "v1beta1"}})
		mapper.Add(schema.GroupVersionKind{Group: gwv1.GroupName, Version: "v1beta1", Kind: "ReferenceGrant"}, meta.RESTScopeNamespace)
		c := newChurn(t, seed, mapper)
		c.deliverTeamGateway()
		for _, ns := range teams {
			c.deliverNamespace(ns, false)
		}
		for i := 0; i < 4; i++ {
			c.deliverTeamRoute(fmt.Sprintf("t-%d", i))
		}
		c.deliverTeamListenerSet()
		for i := 0; i < 3; i++ {
			c.deliverSelecting(fmt.Sprintf("s-%d", i))
		}
		c.deliverGrant(fmt.Sprintf("g-%d", c.r.Intn(2)), false)
		compared += c.check(seed, 50, (*churn).randomNamespaceEvent)
	}
	t.Logf("%d events compared, each stepped", compared)
}

var teams = []string{"team-a", "team-b"}

// randomNamespaceEvent delivers one random event and names its kind: a Namespace, a ReferenceGrant, a
// route or ListenerSet of a team, a policy that selects, or one of randomEvent's.
func (c *churn) randomNamespaceEvent() string {
	switch x := c.r.Intn(12); {
	case x < 3:
		ns := teams[c.r.Intn(2)]
		c.deliverNamespace(ns, c.r.Intn(5) == 0)
		return "Namespace " + ns
	case x < 5:
		name := fmt.Sprintf("g-%d", c.r.Intn(2))
		c.deliverGrant(name, c.r.Intn(3) == 0)
		return "ReferenceGrant " + name
	case x == 5:
		c.deliverTeamRoute(fmt.Sprintf("t-%d", c.r.Intn(4)))
		return "HTTPRoute of a team"
	case x == 6:
		c.deliverTeamListenerSet()
		return "ListenerSet of a team"
	case x == 7:
		c.deliverSelecting(fmt.Sprintf("s-%d", c.r.Intn(3)))
		return "selecting policy"
	default:
		return c.randomEvent()
	}
}

// deliverNamespace adds, updates or (del) deletes Namespace ns (a metadata-only object, as the state
// watches it), labelled at random with routes, listeners and team: what gw-team's selectors and the
// policies' namespaceSelectors match.
func (c *churn) deliverNamespace(ns string, del bool) {
	key := "namespace " + ns
	old, ok := c.others[key]
	o := &metav1.PartialObjectMetadata{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"}, ObjectMeta: metav1.ObjectMeta{Name: ns, Labels: map[string]string{}}}
	for _, l := range []string{"routes", "listeners", "team"} {
		if c.r.Intn(2) == 0 {
			o.Labels[l] = "yes"
		}
	}
	c.deliverOther(key, o, old, ok, del)
}

// deliverTeamGateway adds Gateway shop/gw-team of class eg: routes of the namespaces labelled
// routes=yes, ListenerSets of those labelled listeners=yes.
func (c *churn) deliverTeamGateway() {
	gw := &gwv1.Gateway{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "gw-team", Generation: 1, Labels: map[string]string{"tier": "front"}},
		Spec: gwv1.GatewaySpec{GatewayClassName: "eg", Listeners: []gwv1.Listener{{Name: "http", Port: 80, Protocol: gwv1.HTTPProtocolType,
			AllowedRoutes: &gwv1.AllowedRoutes{Namespaces: &gwv1.RouteNamespaces{From: ptr.To(gwv1.NamespacesFromSelector),
				Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"routes": "yes"}}}}}}}}
	gw.Spec.AllowedListeners = &gwv1.AllowedListeners{Namespaces: &gwv1.ListenerNamespaces{From: ptr.To(gwv1.NamespacesFromSelector),
		Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"listeners": "yes"}}}}
	c.inf.Add(c.t, gw)
}

// deliverTeamRoute adds or updates HTTPRoute name of team-a or team-b (by its number) on gw-team, its
// http listener at times, or on the ListenerSet of team-a, labelled by tier.
func (c *churn) deliverTeamRoute(name string) {
	var n int
	fmt.Sscanf(name, "t-%d", &n)
	rt := &gwv1.HTTPRoute{ObjectMeta: metav1.ObjectMeta{Namespace: teams[n%2], Name: name, Generation: 1, Labels: map[string]string{"tier": []string{"front", "back"}[c.r.Intn(2)]}}}
	pr := gwv1.ParentReference{Namespace: ptr.To(gwv1.Namespace("shop")), Name: "gw-team"}
	switch c.r.Intn(3) {
	case 0:
		pr.SectionName = ptr.To(gwv1.SectionName("http"))
	case 1:
		pr = gwv1.ParentReference{Kind: ptr.To(gwv1.Kind("ListenerSet")), Namespace: ptr.To(gwv1.Namespace("team-a")), Name: "ls-team"}
	}
	rt.Spec.ParentRefs = []gwv1.ParentReference{pr}
	rt.Spec.Rules = []gwv1.HTTPRouteRule{{Name: ptr.To(gwv1.SectionName("a"))}}
	old, ok := c.others["route "+name]
	c.deliverOther("route "+name, rt, old, ok, false)
}

// deliverTeamListenerSet adds or updates ListenerSet team-a/ls-team on gw-team, labelled by tier,
// which takes routes of every namespace: those of team-b attach through it by team-a's labels.
func (c *churn) deliverTeamListenerSet() {
	ls := &gwv1.ListenerSet{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "ls-team", Generation: 1, Labels: map[string]string{"tier": []string{"front", "back"}[c.r.Intn(2)]}}}
	ls.Spec.ParentRef = gwv1.ParentGatewayReference{Namespace: ptr.To(gwv1.Namespace("shop")), Name: "gw-team"}
	ls.Spec.Listeners = []gwv1.ListenerEntry{{Name: "extra", Port: []gwv1.PortNumber{80, 8090}[c.r.Intn(2)], Protocol: gwv1.HTTPProtocolType,
		AllowedRoutes: &gwv1.AllowedRoutes{Namespaces: &gwv1.RouteNamespaces{From: ptr.To(gwv1.NamespacesFromAll)}}}}
	old, ok := c.others["listenerset ls-team"]
	c.deliverOther("listenerset ls-team", ls, old, ok, false)
}

// deliverSelecting adds or updates policy name of shop (a SecurityPolicy or BackendTrafficPolicy by
// its number), which selects HTTPRoutes, Gateways or ListenerSets by tier: of its own namespace,
// every namespace, or those labelled team=yes; half of them target gw-team as well.
func (c *churn) deliverSelecting(name string) {
	var n int
	fmt.Sscanf(name, "s-%d", &n)
	u := c.randomPolicy(fmt.Sprintf("p-%d", n%2)) // a SecurityPolicy or BackendTrafficPolicy
	sel := map[string]interface{}{"group": gwv1.GroupName, "kind": []string{"HTTPRoute", "HTTPRoute", "Gateway", "ListenerSet"}[c.r.Intn(4)],
		"matchLabels": map[string]interface{}{"tier": []string{"front", "back"}[c.r.Intn(2)]}}
	switch c.r.Intn(3) {
	case 0:
		sel["namespaces"] = map[string]interface{}{"from": "All"}
	case 1:
		sel["namespaces"] = map[string]interface{}{"from": "Selector", "selector": map[string]interface{}{"matchLabels": map[string]interface{}{"team": "yes"}}}
	}
	_ = unstructured.SetNestedSlice(u.Object, []interface{}{sel}, "spec", "targetSelectors")
	if c.r.Intn(2) == 0 { // on gw-team too: every route that attaches to it shows
		_ = unstructured.SetNestedSlice(u.Object, []interface{}{map[string]interface{}{"group": gwv1.GroupName, "kind": "Gateway", "name": "gw-team"}}, "spec", "targetRefs")
	}
	u.SetName(name)
	old := c.policies[name]
	if old != nil {
		u.SetCreationTimestamp(old.GetCreationTimestamp())
		c.inf.Update(c.t, old, u)
	} else {
		c.inf.Add(c.t, u)
	}
	c.policies[name] = u
}

// deliverGrant adds, updates or (del) deletes ReferenceGrant name of team-a or team-b (by its number),
// letting SecurityPolicies or BackendTrafficPolicies of shop reach HTTPRoutes (all, or t-0), or
// ListenerSets.
func (c *churn) deliverGrant(name string, del bool) {
	var n int
	fmt.Sscanf(name, "g-%d", &n)
	to := map[string]interface{}{"group": gwv1.GroupName, "kind": "HTTPRoute"}
	switch c.r.Intn(3) {
	case 0:
		to["name"] = "t-0"
	case 1:
		to["kind"] = "ListenerSet"
	}
	u := &unstructured.Unstructured{Object: map[string]interface{}{"apiVersion": gwv1.GroupName + "/v1beta1", "kind": "ReferenceGrant",
		"metadata": map[string]interface{}{"namespace": teams[n%2], "name": name, "generation": int64(1)},
		"spec": map[string]interface{}{
			"from": []interface{}{map[string]interface{}{"group": engine.Group, "kind": []string{engine.SecurityPolicy, engine.BackendTrafficPolicy}[c.r.Intn(2)], "namespace": "shop"}},
			"to":   []interface{}{to}}}}
	key := "grant " + name
	old, ok := c.others[key]
	c.deliverOther(key, u, old, ok, del)
}

// deliverOther adds cur, updates old to cur, or (del) deletes old, and keeps cur under key.
func (c *churn) deliverOther(key string, cur, old client.Object, exists, del bool) {
	switch {
	case del && exists:
		c.inf.Delete(c.t, old)
		delete(c.others, key)
	case !del:
		c.deliver(cur, old, exists)
		c.others[key] = cur
	}
}
