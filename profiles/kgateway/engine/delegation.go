package engine

import (
	"reflect"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// InheritMatcherAnnotation makes a child route inherit its parent's matcher (api/annotations
// DelegationInheritMatcher).
const InheritMatcherAnnotation = "delegation.kgateway.dev/inherit-parent-matcher"

// Match is one HTTPRouteMatch as delegation compares it: the path (defaulted to PathPrefix "/" as
// the API server defaults it), and the header, query and method matchers as written.
type Match struct {
	PathType, Path string
	Headers        []interface{}
	Query          []interface{}
	Method         string
}

// readMatches reads a rule's matches; a rule without any matches every path, as the API server's
// default [{path: {type: PathPrefix, value: /}}] says.
func readMatches(rule map[string]interface{}) []Match {
	ms, _ := rule["matches"].([]interface{})
	if len(ms) == 0 {
		return []Match{{PathType: "PathPrefix", Path: "/"}}
	}
	out := make([]Match, 0, len(ms))
	for _, x := range ms {
		m, _ := x.(map[string]interface{})
		mt := Match{PathType: "PathPrefix", Path: "/", Method: str(m, "method")}
		if p, ok := m["path"].(map[string]interface{}); ok {
			if t := str(p, "type"); t != "" {
				mt.PathType = t
			}
			if v, ok := p["value"].(string); ok {
				mt.Path = v
			}
		}
		mt.Headers, _ = m["headers"].([]interface{})
		mt.Query, _ = m["queryParams"].([]interface{})
		out = append(out, mt)
	}
	return out
}

// readDelegation reads what decides whether a child attaches: its parentRefs to HTTPRoutes, its
// hostnames, and whether it inherits its parent's matcher.
func readDelegation(r *Route, u *unstructured.Unstructured) {
	prs, _, _ := unstructured.NestedSlice(u.Object, "spec", "parentRefs")
	r.HasParentRefs = len(prs) > 0
	for _, x := range prs {
		m, _ := x.(map[string]interface{})
		if str(m, "kind") != "HTTPRoute" || str(m, "group") != GatewayGroup {
			continue
		}
		ns := str(m, "namespace")
		if ns == "" {
			ns = r.Key.Namespace
		}
		r.ParentRoutes = append(r.ParentRoutes, Key{ns, str(m, "name")})
	}
	hs, _, _ := unstructured.NestedStringSlice(u.Object, "spec", "hostnames")
	r.Hosts = hs
	switch strings.ToLower(u.GetAnnotations()[InheritMatcherAnnotation]) {
	case "true", "yes", "enabled":
		r.InheritMatcher = true
	}
}

// delegated are the routes a delegation selects: a named route; every route of the namespace for
// the name "*" or "" (pkg/kgateway/query/route.go fetchRoutesByRef); or the routes with the
// delegation label, in the namespace or ("all") every namespace.
func (w *World) delegated(d Delegation) []Key {
	if d.Label == "" && d.Name != "" && d.Name != "*" {
		k := Key{d.Namespace, d.Name}
		if _, ok := w.Routes[k]; ok {
			return []Key{k}
		}
		return nil
	}
	if d.Label == "" {
		var out []Key
		for _, k := range w.routeKeys() {
			if k.Namespace == d.Namespace {
				out = append(out, k)
			}
		}
		return out
	}
	var out []Key
	for _, k := range w.byLabel[d.Label] {
		if d.Namespace == WildcardNamespace || k.Namespace == d.Namespace {
			out = append(out, k)
		}
	}
	return out
}

// attachedRules are the rules of child c that parent p's rule i delegates traffic to, nil when
// the child does not attach: a child whose parentRefs do not name p
// (pkg/kgateway/utils/delegation/delegation.go ChildRouteCanAttachToParentRef), a child that sets
// hostnames (pkg/kgateway/translator/httproute/delegation.go validateChildRoute), and each child
// rule none of whose matches lies under one of the parent rule's
// (pkg/kgateway/translator/httproute/delegation_helpers.go filterDelegatedChildren,
// IsDelegatedRouteMatch; every rule is kept when the child inherits the parent's matcher).
func attachedRules(p *Route, i int, c *Route) []int {
	if len(c.Hosts) > 0 || !canAttach(c, p.Key) {
		return nil
	}
	var out []int
	for ci, rule := range c.Rules {
		if c.InheritMatcher || anyUnder(p.Rules[i].Matches, rule.Matches) {
			out = append(out, ci)
		}
	}
	return out
}

// canAttach: a child without parentRefs attaches to any parent; otherwise one of its parentRefs
// names the parent.
func canAttach(c *Route, parent Key) bool {
	if !c.HasParentRefs {
		return true
	}
	for _, k := range c.ParentRoutes {
		if k == parent {
			return true
		}
	}
	return false
}

func anyUnder(parents, children []Match) bool {
	for _, pm := range parents {
		for _, cm := range children {
			if under(pm, cm) {
				return true
			}
		}
	}
	return false
}

// under is IsDelegatedRouteMatch: the parent matches a path prefix the child's path starts with,
// the child's headers and query matchers include the parent's, and the child keeps the parent's
// method.
func under(parent, child Match) bool {
	if parent.PathType != "PathPrefix" || !strings.HasPrefix(child.Path, parent.Path) {
		return false
	}
	if !includes(child.Headers, parent.Headers) || !includes(child.Query, parent.Query) {
		return false
	}
	return parent.Method == "" || parent.Method == child.Method
}

func includes(have, want []interface{}) bool {
	for _, w := range want {
		found := false
		for _, h := range have {
			if reflect.DeepEqual(w, h) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}
