package engine

import (
	"fmt"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/precedent-dev/precedent/internal/topology"
)

// httpListener is a plain-HTTP listener of a Gateway or of a ListenerSet attached to it.
type httpListener struct {
	owner string // "ns/gateway" or "ns/listenerset"
	name  string
	port  gwv1.PortNumber
}

// PortOverlap is clienttrafficpolicy.go validatePortOverlapForClientTrafficPolicy for a
// ClientTrafficPolicy on one listener (a targetRef with sectionName): Envoy Gateway builds one
// HTTP listener per port, so the policy would reach the other plain-HTTP listeners on that port
// too, and it marks the policy Invalid. (A Gateway- or ListenerSet-wide policy conflicts only with
// listeners of other Gateways merged into one proxy, which needs the EnvoyProxy's mergeGateways.)
func PortOverlap(p *Policy, g *topology.Graph) field.ErrorList {
	if p.Kind != ClientTrafficPolicy || g == nil {
		return nil
	}
	var errs field.ErrorList
	for i, t := range p.Targets {
		if t.Section == "" || (t.Kind != "Gateway" && t.Kind != "ListenerSet") {
			continue
		}
		key := topology.Key{Namespace: p.Ref.Namespace, Name: t.Name}
		gw := key
		if t.Kind == "ListenerSet" {
			_, parent, ok := g.AttachedListenerSet(key)
			if !ok {
				continue
			}
			gw = parent
		}
		all := httpListeners(g, gw)
		var mine *httpListener
		for j := range all {
			if all[j].owner == key.String() && all[j].name == t.Section {
				mine = &all[j]
			}
		}
		if mine == nil {
			continue
		}
		var others []string
		for _, l := range all {
			if l.port == mine.port && (l.owner != mine.owner || l.name != mine.name) {
				others = append(others, l.owner+"/"+l.name)
			}
		}
		if len(others) == 0 {
			continue
		}
		path := specPath.Child("targetRefs").Index(i).Child("sectionName")
		if _, ok := p.Raw["targetRef"]; ok {
			path = specPath.Child("targetRef", "sectionName")
		}
		errs = append(errs, field.Invalid(path, t.Section, fmt.Sprintf("listener %s/%s shares port %d with the plain-HTTP listeners %s: Envoy Gateway marks the policy Invalid; target the Gateway or give the listener its own port",
			key, t.Section, mine.port, strings.Join(others, ", "))))
	}
	return errs
}

// httpListeners are the plain-HTTP listeners of Gateway gw and of the ListenerSets attached to it.
func httpListeners(g *topology.Graph, gw topology.Key) []httpListener {
	var out []httpListener
	if gateway, ok := g.Gateway(gw); ok {
		for _, l := range gateway.Spec.Listeners {
			if l.Protocol == gwv1.HTTPProtocolType {
				out = append(out, httpListener{owner: gw.String(), name: string(l.Name), port: l.Port})
			}
		}
	}
	for _, k := range g.ListenerSetKeys() {
		ls, parent, ok := g.AttachedListenerSet(k)
		if !ok || parent != gw {
			continue
		}
		for _, l := range ls.Spec.Listeners {
			if l.Protocol == gwv1.HTTPProtocolType {
				out = append(out, httpListener{owner: k.String(), name: string(l.Name), port: l.Port})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].owner+"/"+out[i].name < out[j].owner+"/"+out[j].name })
	return out
}
