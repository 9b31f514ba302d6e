package engine

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/precedent-dev/precedent/internal/topology"
)

// PortOverlap is clienttrafficpolicy.go validatePortOverlapForClientTrafficPolicy: Envoy Gateway
// builds one plain-HTTP listener per port, so a ClientTrafficPolicy would reach every plain-HTTP
// listener on that port, and it marks the policy Invalid when that reaches beyond its target. On
// one listener (a sectionName), any other plain-HTTP listener on its port conflicts; on a whole
// ListenerSet, those of the Gateway and of other ListenerSets do (the IR name does not begin with
// the ListenerSet's). A Gateway-wide policy conflicts only with listeners of other Gateways merged
// into one proxy, which needs the EnvoyProxy's mergeGateways: not checked. Listeners that a more
// specific ClientTrafficPolicy claims are checked all the same (an approximation: Envoy Gateway
// skips them for a ListenerSet-wide policy).
func PortOverlap(p *Policy, g *topology.Graph) field.ErrorList {
	if p.Kind != ClientTrafficPolicy || g == nil {
		return nil
	}
	var errs field.ErrorList
	for i, t := range p.Targets {
		if t.Kind == "Gateway" && t.Section == "" {
			continue
		}
		mine, all := targetListeners(g, p.Ref.Namespace, t)
		for _, l := range mine {
			others := samePort(l, all, t.Section == "")
			if len(others) == 0 {
				continue
			}
			errs = append(errs, field.Invalid(targetPath(p, i, t), targetValue(t), fmt.Sprintf("listener %s shares port %d with the plain-HTTP listeners %s: Envoy Gateway marks the policy Invalid; %s",
				l.irName(), l.l.Port, strings.Join(others, ", "), overlapFix(t))))
		}
	}
	return errs
}

// samePort names the plain-HTTP listeners of all other than l on l's port (none when l is not
// plain HTTP); wide keeps only those outside l's ListenerSet (helpers.go
// extractListenerSetPrefixFromListener).
func samePort(l egListener, all []egListener, wide bool) []string {
	if l.l.Protocol != gwv1.HTTPProtocolType {
		return nil
	}
	prefix := ""
	if wide {
		prefix = l.gateway.String() + "/" + l.set.String() + "/"
	}
	var out []string
	for _, o := range all {
		if o.l.Protocol != gwv1.HTTPProtocolType || o.l.Port != l.l.Port || o.irName() == l.irName() {
			continue
		}
		if wide && strings.HasPrefix(o.irName(), prefix) {
			continue
		}
		out = append(out, o.irName())
	}
	return out
}

// targetPath is the field path of targetRef i of p (targetRef when the policy has the single form),
// at its sectionName when it has one.
func targetPath(p *Policy, i int, t TargetRef) *field.Path {
	path := specPath.Child("targetRefs").Index(i)
	if _, ok := p.Raw["targetRef"]; ok {
		path = specPath.Child("targetRef")
	}
	if t.Section != "" {
		return path.Child("sectionName")
	}
	return path.Child("name")
}

func targetValue(t TargetRef) string {
	if t.Section != "" {
		return t.Section
	}
	return t.Name
}

func overlapFix(t TargetRef) string {
	if t.Section != "" {
		return "target the Gateway or give the listener its own port"
	}
	return "give the ListenerSet's listeners ports of their own"
}
