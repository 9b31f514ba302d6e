package engine

import (
	"sort"

	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/precedent-dev/precedent/internal/topology"
)

// egListener is a listener of a Gateway or of a ListenerSet attached to it, as Envoy Gateway's
// translator sees it when it applies a ClientTrafficPolicy.
type egListener struct {
	gateway topology.Key
	set     topology.Key // the ListenerSet; zero for a Gateway's own listener
	l       gwv1.Listener
}

// irName is the listener's name in Envoy Gateway's IR: "ns/gateway/listener", or
// "ns/gateway/ns/listenerset/listener" for a ListenerSet's (helpers.go irListenerName).
func (l egListener) irName() string {
	if l.set.Name != "" {
		return l.gateway.String() + "/" + l.set.String() + "/" + string(l.l.Name)
	}
	return l.gateway.String() + "/" + string(l.l.Name)
}

// target is the listener as a topology target (for the routes beneath it).
func (l egListener) target() topology.Target {
	if l.set.Name != "" {
		return topology.Target{Kind: "ListenerSet", Namespace: l.set.Namespace, Name: l.set.Name, Section: string(l.l.Name)}
	}
	return topology.Target{Kind: "Gateway", Namespace: l.gateway.Namespace, Name: l.gateway.Name, Section: string(l.l.Name)}
}

// gatewayListeners are the listeners of Gateway gw and of the ListenerSets attached to it, sorted
// by IR name.
func gatewayListeners(g *topology.Graph, gw topology.Key) []egListener {
	var out []egListener
	if gateway, ok := g.Gateway(gw); ok {
		for _, l := range gateway.Spec.Listeners {
			out = append(out, egListener{gateway: gw, l: l})
		}
	}
	for _, k := range g.ListenerSetKeys() {
		ls, parent, ok := g.AttachedListenerSet(k)
		if !ok || parent != gw {
			continue
		}
		for _, le := range ls.Spec.Listeners {
			out = append(out, egListener{gateway: gw, set: k, l: topology.ListenerOf(le)})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].irName() < out[j].irName() })
	return out
}

// targetListeners are the listeners a Gateway or ListenerSet targetRef of a policy in namespace ns
// reaches (one with a sectionName, all of them without), with those of the whole Gateway the
// target belongs to; none for another kind or a target that is not there.
func targetListeners(g *topology.Graph, ns string, t TargetRef) (mine, all []egListener) {
	key := topology.Key{Namespace: ns, Name: t.Name}
	gw := key
	var set topology.Key
	switch t.Kind {
	case "Gateway":
	case "ListenerSet":
		_, parent, ok := g.AttachedListenerSet(key)
		if !ok {
			return nil, nil
		}
		gw, set = parent, key
	default:
		return nil, nil
	}
	all = gatewayListeners(g, gw)
	for _, l := range all {
		if (t.Kind == "Gateway" && t.Section == "") || (l.set == set && (t.Section == "" || string(l.l.Name) == t.Section)) {
			mine = append(mine, l)
		}
	}
	return mine, all
}
