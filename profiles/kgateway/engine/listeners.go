package engine

import (
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Listener is one listener of a Gateway or ListenerSet: what decides which routes it serves.
type Listener struct {
	Name, Hostname, Protocol string
}

func readListeners(u *unstructured.Unstructured) []Listener {
	ls, _, _ := unstructured.NestedSlice(u.Object, "spec", "listeners")
	out := make([]Listener, 0, len(ls))
	for _, x := range ls {
		m, _ := x.(map[string]interface{})
		out = append(out, Listener{Name: str(m, "name"), Hostname: str(m, "hostname"), Protocol: str(m, "protocol")})
	}
	return out
}

// listenersOf are the listeners a route's parentRef is served through: the one it names, else every
// HTTP or HTTPS listener of the Gateway or ListenerSet whose hostname the route's hostnames meet.
// A policy on a listener (a targetRef with sectionName) applies to every route served through it,
// whether or not the route's parentRef names the listener: kgateway attaches it to the listener's
// IR and merges it into each of its routes (pkg/krtcollections/policy.go getPolicyAttachments for
// the listener, pkg/kgateway/translator/irtranslator/route.go runRoutePlugins with the listener's
// policies as a parent level). An owner without listeners (as written in a test) has one unnamed.
func (w *World) listenersOf(pr ParentRef, r *Route) []string {
	if pr.Section != "" {
		return []string{pr.Section}
	}
	var owner *Owner
	if pr.Kind == "Gateway" {
		owner = w.Gateways[pr.Key]
	} else {
		owner = w.ListenerSets[pr.Key]
	}
	if owner == nil || len(owner.Listeners) == 0 {
		return []string{""}
	}
	var out []string
	for _, l := range owner.Listeners {
		if (l.Protocol == "" || l.Protocol == "HTTP" || l.Protocol == "HTTPS") && hostsMeet(l.Hostname, r.Hosts) {
			out = append(out, l.Name)
		}
	}
	return out
}

// hostsMeet reports whether a listener's hostname admits one of a route's hostnames (Gateway API's
// hostname intersection, with a leading "*." wildcard on either side).
func hostsMeet(listener string, route []string) bool {
	if listener == "" || len(route) == 0 {
		return true
	}
	for _, h := range route {
		if h == listener || wildcardHas(listener, h) || wildcardHas(h, listener) {
			return true
		}
	}
	return false
}

func wildcardHas(pattern, host string) bool {
	return strings.HasPrefix(pattern, "*.") && strings.HasSuffix(host, pattern[1:]) && len(host) > len(pattern)-1
}
