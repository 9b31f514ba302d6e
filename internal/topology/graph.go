package topology

import (
	"cmp"
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// Group is the Gateway API group.
const Group = "gateway.networking.k8s.io"

// Level of the hierarchy, least to most specific.
type Level int

const (
	LevelGatewayClass Level = iota
	LevelGateway
	LevelListenerSet
	LevelListener
	LevelRoute
	LevelRule
)

func (l Level) String() string {
	return [...]string{"gatewayclass", "gateway", "listenerset", "listener", "route", "rule"}[l]
}

// Key is a namespaced name.
type Key struct {
	Namespace string
	Name      string
}

func (k Key) String() string {
	if k.Namespace == "" {
		return k.Name
	}
	return k.Namespace + "/" + k.Name
}

// Compare orders keys as their String forms order, without building them (sorting ten thousand
// routes compares keys some hundred thousand times).
func (k Key) Compare(o Key) int {
	if k.Namespace == o.Namespace {
		return strings.Compare(k.Name, o.Name)
	}
	if n := min(len(k.Namespace), len(o.Namespace)); n > 0 {
		// Both String forms start with the namespaces: where those differ within the shorter, they
		// decide (sorting routes compares keys of different namespaces most of the time).
		if c := strings.Compare(k.Namespace[:n], o.Namespace[:n]); c != 0 {
			return c
		}
	}
	la, lb := k.strLen(), o.strLen()
	for i := 0; i < la && i < lb; i++ {
		if a, b := k.strByte(i), o.strByte(i); a != b {
			return cmp.Compare(a, b)
		}
	}
	return cmp.Compare(la, lb)
}

func (k Key) strLen() int {
	if k.Namespace == "" {
		return len(k.Name)
	}
	return len(k.Namespace) + 1 + len(k.Name)
}

// strByte is byte i of k.String().
func (k Key) strByte(i int) byte {
	switch {
	case k.Namespace == "":
		return k.Name[i]
	case i < len(k.Namespace):
		return k.Namespace[i]
	case i == len(k.Namespace):
		return '/'
	}
	return k.Name[i-len(k.Namespace)-1]
}

// Target identifies something a policy can target (kind is GatewayClass, Gateway, ListenerSet or a
// route kind, all of the Gateway API group); Section is a listener or route rule name.
type Target struct {
	Kind      string
	Namespace string
	Name      string
	Section   string
}

func (t Target) String() string {
	s := t.Kind + " " + Key{t.Namespace, t.Name}.String()
	if t.Section != "" {
		s += "#" + t.Section
	}
	return s
}

// Path is one (gateway, listener, route, rule) through the graph; Route and Rule are empty for a
// listener that no route attaches to. ListenerSet is set when the listener is one of a ListenerSet
// attached to the Gateway (Listener is then that ListenerSet's listener).
type Path struct {
	Class       string
	Gateway     Key
	ListenerSet Key
	Listener    string
	RouteKind   string
	Route       Key
	Rule        string
}

// MaxTargets is the most level targets a path has: class, Gateway, ListenerSet, listener, route, rule.
const MaxTargets = 6

// Targets lists what a policy may target to reach this path, least specific first, with its level.
func (p Path) Targets() []LeveledTarget {
	ts, n := p.LevelTargets()
	return ts[:n:n]
}

// Depth is the number of level targets of the path: 3 for a Gateway listener's own path, one more
// through a ListenerSet, two more for a route rule.
func (p Path) Depth() int {
	n := 3
	if p.ListenerSet.Name != "" {
		n++
	}
	if p.RouteKind != "" {
		n += 2
	}
	return n
}

// Levels is the level of each of the path's level targets (the first n entries, n as Depth).
func (p Path) Levels() (ls [MaxTargets]Level, n int) {
	ls[0], ls[1] = LevelGatewayClass, LevelGateway
	n = 2
	if p.ListenerSet.Name != "" {
		ls[n] = LevelListenerSet
		n++
	}
	ls[n] = LevelListener
	n++
	if p.RouteKind != "" {
		ls[n], ls[n+1] = LevelRoute, LevelRule
		n += 2
	}
	return ls, n
}

// LevelTargets is Targets without an allocation: the first n entries of the array are the targets
// (3 for a Gateway listener path, 5 for a route rule path, one more each through a ListenerSet).
// The listener of a ListenerSet is the ListenerSet with the listener as section.
func (p Path) LevelTargets() (ts [MaxTargets]LeveledTarget, n int) {
	ts[0] = LeveledTarget{LevelGatewayClass, Target{Kind: "GatewayClass", Name: p.Class}}
	ts[1] = LeveledTarget{LevelGateway, Target{Kind: "Gateway", Namespace: p.Gateway.Namespace, Name: p.Gateway.Name}}
	n = 2
	if p.ListenerSet.Name != "" {
		ts[2] = LeveledTarget{LevelListenerSet, Target{Kind: "ListenerSet", Namespace: p.ListenerSet.Namespace, Name: p.ListenerSet.Name}}
		ts[3] = LeveledTarget{LevelListener, Target{Kind: "ListenerSet", Namespace: p.ListenerSet.Namespace, Name: p.ListenerSet.Name, Section: p.Listener}}
		n = 4
	} else {
		ts[2] = LeveledTarget{LevelListener, Target{Kind: "Gateway", Namespace: p.Gateway.Namespace, Name: p.Gateway.Name, Section: p.Listener}}
		n = 3
	}
	if p.RouteKind == "" {
		return ts, n
	}
	ts[n] = LeveledTarget{LevelRoute, Target{Kind: p.RouteKind, Namespace: p.Route.Namespace, Name: p.Route.Name}}
	ts[n+1] = LeveledTarget{LevelRule, Target{Kind: p.RouteKind, Namespace: p.Route.Namespace, Name: p.Route.Name, Section: p.Rule}}
	return ts, n + 2
}

// LeveledTarget is a target and its level in the hierarchy.
type LeveledTarget struct {
	Level  Level
	Target Target
}

// Route is a route (HTTPRoute, GRPCRoute, TLSRoute, TCPRoute or UDPRoute) as far as attachment goes.
type Route struct {
	Kind    string
	Key     Key
	Parents []gwv1.ParentReference
	// Rules are the rule names, in order; unnamed rules get "rule-<index>" and are listed in Unnamed.
	Rules   []string
	Unnamed []string
	// Hostnames are the route's hostnames (HTTPRoute, GRPCRoute, TLSRoute), for listener hostnames.
	Hostnames []string
}

// Input is what the graph is built from.
type Input struct {
	GatewayClasses []gwv1.GatewayClass
	Gateways       []gwv1.Gateway
	HTTPRoutes     []gwv1.HTTPRoute
	GRPCRoutes     []gwv1.GRPCRoute
	ListenerSets   []gwv1.ListenerSet
	TLSRoutes      []gwv1.TLSRoute
	TCPRoutes      []gwv1.TCPRoute
	UDPRoutes      []gwv1.UDPRoute
	// NamespaceLabels holds the labels of known namespaces, for allowedRoutes selectors.
	NamespaceLabels map[string]map[string]string
}

func newRoute(kind, ns, name string, parents []gwv1.ParentReference, ruleNames []*gwv1.SectionName, hostnames []gwv1.Hostname) *Route {
	r := &Route{Kind: kind, Key: Key{ns, name}, Parents: parents}
	if len(hostnames) > 0 {
		r.Hostnames = make([]string, len(hostnames))
		for i, h := range hostnames {
			r.Hostnames[i] = string(h)
		}
	}
	if len(ruleNames) > 0 {
		r.Rules = make([]string, 0, len(ruleNames))
	}
	for i, n := range ruleNames {
		if n != nil && *n != "" {
			r.Rules = append(r.Rules, string(*n))
			continue
		}
		// Unnamed rules get a stable name from their index.
		gen := unnamedRule(i)
		r.Rules = append(r.Rules, gen)
		r.Unnamed = append(r.Unnamed, gen)
	}
	if len(r.Rules) == 0 {
		r.Rules = []string{unnamedRule(0)}
		r.Unnamed = r.Rules
	}
	return r
}

// unnamedRules are the names of the first unnamed rules, made once: every route of a cluster
// without rule names would otherwise hold its own copy of "rule-0".
var unnamedRules = func() (names [16]string) {
	for i := range names {
		names[i] = fmt.Sprintf("rule-%d", i)
	}
	return names
}()

// unnamedRule is the name of unnamed rule i.
func unnamedRule(i int) string {
	if i < len(unnamedRules) {
		return unnamedRules[i]
	}
	return fmt.Sprintf("rule-%d", i)
}

func routeCompare(a, b *Route) int {
	if c := a.Key.Compare(b.Key); c != 0 {
		return c
	}
	return strings.Compare(a.Kind, b.Kind)
}

// SelectsListener reports whether a parentRef's sectionName and port (when set) select listener l.
func SelectsListener(pr gwv1.ParentReference, l gwv1.Listener) bool {
	if pr.SectionName != nil && *pr.SectionName != "" && *pr.SectionName != l.Name {
		return false
	}
	return pr.Port == nil || *pr.Port == l.Port
}

// HostnamesIntersect reports whether a listener hostname (nil or empty: any) admits a route with
// hostnames (none: any): some route hostname equals it, or one is a wildcard (`*.` and a suffix of
// one or more labels) that covers the other, or both are wildcards one of whose suffixes covers
// the other's.
func HostnamesIntersect(listener *gwv1.Hostname, route []string) bool {
	if listener == nil || *listener == "" || len(route) == 0 {
		return true
	}
	l := string(*listener)
	for _, h := range route {
		if h == l || covers(l, h) || covers(h, l) {
			return true
		}
	}
	return false
}

// covers reports whether wildcard w (`*.suffix`) covers hostname h: h ends in `.suffix` after one
// or more labels (h may itself be a narrower wildcard).
func covers(w, h string) bool {
	suffix, ok := strings.CutPrefix(w, "*")
	return ok && strings.HasPrefix(suffix, ".") && len(h) > len(suffix) && strings.HasSuffix(h, suffix)
}

// ListenerOf is a ListenerSet's listener entry as a Gateway listener, for SelectsListener and Admits
// (allowedRoutes namespace Same then means the ListenerSet's namespace).
func ListenerOf(le gwv1.ListenerEntry) gwv1.Listener {
	return gwv1.Listener{Name: le.Name, Hostname: le.Hostname, Port: le.Port, Protocol: le.Protocol, AllowedRoutes: le.AllowedRoutes}
}

// Admits reports whether listener l of a Gateway in gwNS accepts a route of kind from routeNS
// (allowedRoutes kinds and namespaces). selectorMatches decides a Selector for routeNS: the graph
// matches namespace labels; a caller that does not know them may assume a match.
func Admits(l gwv1.Listener, gwNS, kind, routeNS string, selectorMatches func(*metav1.LabelSelector) bool) bool {
	return allowsKind(l, kind) && allowsNamespace(l, gwNS, routeNS, selectorMatches)
}

func allowsKind(l gwv1.Listener, kind string) bool {
	if l.AllowedRoutes != nil && len(l.AllowedRoutes.Kinds) > 0 {
		for _, k := range l.AllowedRoutes.Kinds {
			if (k.Group == nil || string(*k.Group) == Group) && string(k.Kind) == kind {
				return true
			}
		}
		return false
	}
	switch l.Protocol {
	case gwv1.HTTPProtocolType, gwv1.HTTPSProtocolType, "":
		return kind == "HTTPRoute" || kind == "GRPCRoute"
	case gwv1.TLSProtocolType:
		return kind == "TLSRoute"
	case gwv1.TCPProtocolType:
		return kind == "TCPRoute"
	case gwv1.UDPProtocolType:
		return kind == "UDPRoute"
	}
	return false
}

func allowsNamespace(l gwv1.Listener, gwNS, routeNS string, selectorMatches func(*metav1.LabelSelector) bool) bool {
	from := gwv1.NamespacesFromSame
	var sel *metav1.LabelSelector
	if l.AllowedRoutes != nil && l.AllowedRoutes.Namespaces != nil {
		if l.AllowedRoutes.Namespaces.From != nil {
			from = *l.AllowedRoutes.Namespaces.From
		}
		sel = l.AllowedRoutes.Namespaces.Selector
	}
	switch from {
	case gwv1.NamespacesFromAll:
		return true
	case gwv1.NamespacesFromSelector:
		return sel != nil && selectorMatches(sel)
	default:
		return gwNS == routeNS
	}
}
