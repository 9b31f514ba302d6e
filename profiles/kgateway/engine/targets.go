package engine

import "fmt"

// MissingTargets are the warnings for p's targetRefs whose object, or whose section (a listener of
// a Gateway or ListenerSet, a rule of a route), does not exist: kgateway resolves each targetRef
// on its own and attaches nothing through one that names nothing (pkg/krtcollections/policy.go,
// the policy index keyed by target).
func (w *World) MissingTargets(p *Policy) []string {
	var out []string
	for _, t := range p.Targets {
		k := Key{p.Ref.Namespace, t.Name}
		kind := t.Kind
		if kind == "XListenerSet" {
			kind = "ListenerSet"
		}
		exists, sections := w.sections(kind, k)
		switch {
		case !exists:
			out = append(out, CodeNoTarget.Line(fmt.Sprintf("%s %s does not exist: this TrafficPolicy applies nowhere through it", kind, k)))
		case t.Section != "" && !sections[t.Section]:
			out = append(out, CodeNoTarget.Line(fmt.Sprintf("%s %s has no %s %q: this TrafficPolicy applies nowhere through it", kind, k, sectionWord(kind), t.Section)))
		}
	}
	return out
}

// sections reports whether the object exists and names its listeners or rules.
func (w *World) sections(kind string, k Key) (bool, map[string]bool) {
	names := map[string]bool{}
	switch kind {
	case "HTTPRoute":
		r := w.Routes[k]
		if r == nil {
			return false, nil
		}
		for _, rule := range r.Rules {
			names[rule.Name] = true
		}
	default:
		o := w.Gateways[k]
		if kind == "ListenerSet" {
			o = w.ListenerSets[k]
		}
		if o == nil {
			return false, nil
		}
		for _, l := range o.Listeners {
			names[l.Name] = true
		}
	}
	return true, names
}

func sectionWord(kind string) string {
	if kind == "HTTPRoute" {
		return "rule"
	}
	return "listener"
}
