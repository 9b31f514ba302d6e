package gen

import (
	"fmt"
	"math/rand"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/topology"
)

// Change is one event of a churning cluster: Object created or updated, or deleted.
type Change struct {
	Object client.Object
	Delete bool
}

// Churn makes random changes to a small cluster, for property tests of incremental state: Gateways
// with listeners of every allowedRoutes shape, HTTPRoutes and GRPCRoutes whose parentRefs, sections
// and rules change, namespaces relabelled, and policies (of kind Kind) moved between targets. Names
// come from small pools, so objects are created, updated and deleted again and again.
type Churn struct {
	Kind policy.Kind
	// ListenerSets adds ListenerSets, TLSRoutes, TCPRoutes and UDPRoutes to the changes (listeners
	// of every protocol, parentRefs to ListenerSets, allowedListeners on Gateways, policies on
	// ListenerSets and L4 routes). Without it the changes are those of the churns before it.
	ListenerSets bool
	rng          *rand.Rand
	n            int
}

// NewChurn returns the churn of seed, making policies of kind k (a defaults-overrides kind).
func NewChurn(seed int64, k policy.Kind) *Churn {
	return &Churn{Kind: k, rng: rand.New(rand.NewSource(seed))}
}

var churnNamespaces = []string{"infra", "shop", "pay"}

func (c *Churn) pick(xs ...string) string { return xs[c.rng.Intn(len(xs))] }

// Next is the next change.
func (c *Churn) Next() Change {
	c.n++
	del := c.rng.Intn(6) == 0
	if c.ListenerSets {
		switch r := c.rng.Intn(10); {
		case r < 2:
			return Change{Object: c.listenerSet(), Delete: del}
		case r < 4:
			return Change{Object: c.l4Route(), Delete: del}
		}
	}
	switch r := c.rng.Intn(20); {
	case r < 3:
		return Change{Object: c.gateway(), Delete: del}
	case r < 9:
		return Change{Object: c.httpRoute(), Delete: del}
	case r < 11:
		return Change{Object: c.grpcRoute(), Delete: del}
	case r < 13:
		return Change{Object: c.namespace(), Delete: del && c.rng.Intn(2) == 0}
	default:
		o, err := PolicyObject(c.Policy())
		if err != nil { // a generated policy always renders; a Gateway change stands in otherwise
			return Change{Object: c.gateway(), Delete: del}
		}
		return Change{Object: o, Delete: del}
	}
}

func (c *Churn) meta(ns, name string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Namespace: ns, Name: name, Generation: int64(c.n), ResourceVersion: fmt.Sprint(c.n)}
}

func (c *Churn) gateway() *gwv1.Gateway {
	gw := &gwv1.Gateway{ObjectMeta: c.meta(c.pick("infra", "shop"), c.pick("gw-a", "gw-b", "gw-c"))}
	gw.Spec.GatewayClassName = gwv1.ObjectName(c.pick("one", "two"))
	for i, n := 0, 1+c.rng.Intn(3); i < n; i++ {
		l := gwv1.Listener{Name: gwv1.SectionName(c.pick("http", "https", "admin", "http")), Port: gwv1.PortNumber(80 + c.rng.Intn(3)), Protocol: gwv1.HTTPProtocolType}
		switch c.rng.Intn(5) {
		case 0:
			l.AllowedRoutes = &gwv1.AllowedRoutes{Namespaces: &gwv1.RouteNamespaces{From: ptr.To(gwv1.NamespacesFromAll)}}
		case 1:
			l.AllowedRoutes = &gwv1.AllowedRoutes{Namespaces: &gwv1.RouteNamespaces{From: ptr.To(gwv1.NamespacesFromSelector),
				Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"team": c.pick("a", "b")}}}}
		case 2:
			l.AllowedRoutes = &gwv1.AllowedRoutes{Namespaces: &gwv1.RouteNamespaces{From: ptr.To(gwv1.NamespacesFromAll)},
				Kinds: []gwv1.RouteGroupKind{{Kind: gwv1.Kind(c.pick("HTTPRoute", "GRPCRoute"))}}}
		case 3:
			l.Protocol = gwv1.TCPProtocolType
		}
		gw.Spec.Listeners = append(gw.Spec.Listeners, l)
	}
	if c.ListenerSets {
		c.l4Listener(&gw.Spec.Listeners[0])
		c.hostname(&gw.Spec.Listeners[len(gw.Spec.Listeners)-1])
		if from := c.pick("", "All", "Same", "Selector", "None"); from != "" {
			ns := &gwv1.ListenerNamespaces{From: ptr.To(gwv1.FromNamespaces(from))}
			if from == "Selector" {
				ns.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"team": c.pick("a", "b")}}
			}
			gw.Spec.AllowedListeners = &gwv1.AllowedListeners{Namespaces: ns}
		}
	}
	return gw
}

// l4Listener makes l, one time in two, a TLS, TCP or UDP listener (some naming their route kinds).
func (c *Churn) l4Listener(l *gwv1.Listener) {
	if c.rng.Intn(2) == 0 {
		return
	}
	kind := c.pick("TLSRoute", "TCPRoute", "UDPRoute")
	l.Protocol = map[string]gwv1.ProtocolType{"TLSRoute": gwv1.TLSProtocolType, "TCPRoute": gwv1.TCPProtocolType, "UDPRoute": gwv1.UDPProtocolType}[kind]
	if c.rng.Intn(3) == 0 {
		l.AllowedRoutes = &gwv1.AllowedRoutes{Namespaces: &gwv1.RouteNamespaces{From: ptr.To(gwv1.NamespacesFromAll)},
			Kinds: []gwv1.RouteGroupKind{{Kind: gwv1.Kind(c.pick(kind, "HTTPRoute"))}}}
	}
}

// hostname gives l, one time in two, a hostname that some route hostnames match and others not.
func (c *Churn) hostname(l *gwv1.Listener) {
	if c.rng.Intn(2) == 0 {
		l.Hostname = ptr.To(gwv1.Hostname(c.pick("a.example", "*.example", "c.example")))
	}
}

func (c *Churn) listenerSet() *gwv1.ListenerSet {
	ls := &gwv1.ListenerSet{ObjectMeta: c.meta(c.pick(churnNamespaces...), c.pick("ls-a", "ls-b"))}
	ls.Spec.ParentRef = gwv1.ParentGatewayReference{Name: gwv1.ObjectName(c.pick("gw-a", "gw-b", "gw-c"))}
	if c.rng.Intn(2) == 0 {
		ls.Spec.ParentRef.Namespace = ptr.To(gwv1.Namespace(c.pick("infra", "shop")))
	}
	for i, n := 0, 1+c.rng.Intn(3); i < n; i++ {
		l := gwv1.Listener{Name: gwv1.SectionName(c.pick("http", "https", "admin", "l4")), Port: gwv1.PortNumber(80 + c.rng.Intn(3)), Protocol: gwv1.HTTPProtocolType}
		if c.rng.Intn(2) == 0 {
			l.AllowedRoutes = &gwv1.AllowedRoutes{Namespaces: &gwv1.RouteNamespaces{From: ptr.To(gwv1.FromNamespaces(c.pick("All", "Same", "Selector")))}}
			if *l.AllowedRoutes.Namespaces.From == gwv1.NamespacesFromSelector {
				l.AllowedRoutes.Namespaces.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"team": c.pick("a", "b")}}
			}
		}
		c.l4Listener(&l)
		c.hostname(&l)
		ls.Spec.Listeners = append(ls.Spec.Listeners, gwv1.ListenerEntry{Name: l.Name, Port: l.Port, Protocol: l.Protocol, AllowedRoutes: l.AllowedRoutes})
	}
	return ls
}

// l4Route is a TLSRoute, TCPRoute or UDPRoute.
func (c *Churn) l4Route() client.Object {
	meta := c.meta(c.pick(churnNamespaces...), c.pick("r1", "t1"))
	parents := c.parents()
	names := c.ruleNames()
	switch c.pick("TLSRoute", "TCPRoute", "UDPRoute") {
	case "TLSRoute":
		r := &gwv1.TLSRoute{ObjectMeta: meta}
		r.Spec.ParentRefs = parents
		for _, n := range names {
			r.Spec.Rules = append(r.Spec.Rules, gwv1.TLSRouteRule{Name: n})
		}
		return r
	case "TCPRoute":
		r := &gwv1.TCPRoute{ObjectMeta: meta}
		r.Spec.ParentRefs = parents
		for _, n := range names {
			r.Spec.Rules = append(r.Spec.Rules, gwv1.TCPRouteRule{Name: n})
		}
		return r
	}
	r := &gwv1.UDPRoute{ObjectMeta: meta}
	r.Spec.ParentRefs = parents
	for _, n := range names {
		r.Spec.Rules = append(r.Spec.Rules, gwv1.UDPRouteRule{Name: n})
	}
	return r
}

func (c *Churn) parents() []gwv1.ParentReference {
	var out []gwv1.ParentReference
	for i, n := 0, c.rng.Intn(3); i < n; i++ {
		p := gwv1.ParentReference{Name: gwv1.ObjectName(c.pick("gw-a", "gw-b", "gw-c"))}
		if c.rng.Intn(2) == 0 {
			p.Namespace = ptr.To(gwv1.Namespace(c.pick("infra", "shop")))
		}
		switch c.rng.Intn(4) {
		case 0:
			p.SectionName = ptr.To(gwv1.SectionName(c.pick("http", "https", "admin")))
		case 1:
			p.Port = ptr.To(gwv1.PortNumber(80 + c.rng.Intn(3)))
		}
		if c.ListenerSets && c.rng.Intn(2) == 0 {
			p.Kind = ptr.To(gwv1.Kind("ListenerSet"))
			p.Name = gwv1.ObjectName(c.pick("ls-a", "ls-b"))
			if p.SectionName != nil && c.rng.Intn(2) == 0 {
				p.SectionName = ptr.To(gwv1.SectionName("l4"))
			}
		}
		out = append(out, p)
	}
	return out
}

func (c *Churn) ruleNames() []*gwv1.SectionName {
	var out []*gwv1.SectionName
	for i, n := 0, c.rng.Intn(3); i < n; i++ {
		var name *gwv1.SectionName
		if c.rng.Intn(3) > 0 {
			name = ptr.To(gwv1.SectionName(c.pick("main", "admin", "api")))
		}
		out = append(out, name)
	}
	return out
}

func (c *Churn) httpRoute() *gwv1.HTTPRoute {
	r := &gwv1.HTTPRoute{ObjectMeta: c.meta(c.pick(churnNamespaces...), c.pick("r1", "r2", "r3", "r4"))}
	r.Spec.ParentRefs = c.parents()
	r.Spec.Hostnames = []gwv1.Hostname{gwv1.Hostname(c.pick("a.example", "b.example"))}
	for _, n := range c.ruleNames() {
		r.Spec.Rules = append(r.Spec.Rules, gwv1.HTTPRouteRule{Name: n})
	}
	return r
}

func (c *Churn) grpcRoute() *gwv1.GRPCRoute {
	r := &gwv1.GRPCRoute{ObjectMeta: c.meta(c.pick(churnNamespaces...), c.pick("r1", "g1"))}
	r.Spec.ParentRefs = c.parents()
	for _, n := range c.ruleNames() {
		r.Spec.Rules = append(r.Spec.Rules, gwv1.GRPCRouteRule{Name: n})
	}
	return r
}

func (c *Churn) namespace() *metav1.PartialObjectMetadata {
	m := &metav1.PartialObjectMetadata{ObjectMeta: c.meta("", c.pick(churnNamespaces...))}
	m.Namespace = ""
	m.SetGroupVersionKind(schema.GroupVersionKind{Version: "v1", Kind: "Namespace"})
	if c.rng.Intn(3) > 0 {
		m.Labels = map[string]string{"team": c.pick("a", "b")}
	}
	return m
}

// Policy is a random policy of the churn's kind: on a random Gateway, listener, route or rule, with
// defaults, overrides (sometimes under a condition), bare rules and unsets drawn from a few rule ids.
func (c *Churn) Policy() *policy.Policy {
	ns := c.pick(churnNamespaces...)
	p := &policy.Policy{Kind: c.Kind, Ref: policy.Ref{Namespace: ns, Name: c.pick("p1", "p2", "p3")},
		Created: epoch.Add(time.Duration(c.rng.Intn(4)) * time.Second)}
	t := policy.TargetRef{Group: topology.Group}
	if c.ListenerSets && c.rng.Intn(3) == 0 {
		switch c.rng.Intn(2) {
		case 0:
			t.Kind, t.Name = "ListenerSet", c.pick("ls-a", "ls-b")
			if c.rng.Intn(2) == 0 {
				t.SectionName = c.pick("http", "l4")
			}
		default:
			t.Kind, t.Name = c.pick("TLSRoute", "TCPRoute", "UDPRoute"), c.pick("r1", "t1")
			if c.rng.Intn(3) == 0 {
				t.SectionName = c.pick("main", "rule-0")
			}
		}
		return c.withRules(p, t)
	}
	switch c.rng.Intn(4) {
	case 0:
		t.Kind, t.Name = "Gateway", c.pick("gw-a", "gw-b", "gw-c")
		if c.rng.Intn(3) == 0 {
			t.SectionName = c.pick("http", "https")
		}
	case 1:
		t.Kind, t.Name = "GRPCRoute", c.pick("r1", "g1")
	default:
		t.Kind, t.Name = "HTTPRoute", c.pick("r1", "r2", "r3", "r4")
		if c.rng.Intn(3) == 0 {
			t.SectionName = c.pick("main", "admin", "rule-0")
		}
	}
	return c.withRules(p, t)
}

// withRules gives policy p target t and random blocks.
func (c *Churn) withRules(p *policy.Policy, t policy.TargetRef) *policy.Policy {
	p.Targets = []policy.TargetRef{t}
	rules := func() map[string]interface{} {
		m := map[string]interface{}{}
		for i, n := 0, 1+c.rng.Intn(3); i < n; i++ {
			m[c.pick("global", "per-user", "burst", "expensive")] = rate(int64(1 + c.rng.Intn(100)))
		}
		return m
	}
	strategy := func() string {
		if c.rng.Intn(2) == 0 {
			return policy.StrategyMerge
		}
		return policy.StrategyAtomic
	}
	switch c.rng.Intn(3) {
	case 0:
		p.Bare = &policy.Block{Strategy: policy.StrategyAtomic, Rules: rules()}
	case 1:
		p.Defaults = &policy.Block{Strategy: strategy(), Rules: rules()}
	}
	if c.rng.Intn(2) == 0 {
		p.Overrides = &policy.Block{Strategy: strategy(), Rules: rules()}
		if c.rng.Intn(2) == 0 {
			p.Overrides.When = "has(self.limits.expensive) && self.limits.expensive.rates[0].limit > 10"
		}
	}
	if c.rng.Intn(3) == 0 {
		p.Unset = []string{c.pick("burst", "global")}
	}
	return p
}
