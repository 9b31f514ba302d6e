package kgateway

import (
	"fmt"
	"sort"
	"strings"

	"github.com/precedent-dev/precedent/internal/effective"
	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/profile"
	"github.com/precedent-dev/precedent/internal/topology"
	"github.com/precedent-dev/precedent/profiles/kgateway/engine"
)

var _ profile.RuleExplainer = Profile{}

// Rule ids of TrafficPolicy are its top-level fields, as `effective` shows them (`rateLimit`,
// `cors`); a deeper id (`transformation.request`) names the top-level field it is under, which is
// what kgateway merges.

// ExplainRule is `precedent explain --target T --rule ID` for kgateway's TrafficPolicy: on each
// (listener, leaf route rule) path through target that a policy declaring the field reaches, those
// policies from the Gateway's level down to the leaf route's, and what the fold did with each:
// added (its value holds, alone or deep-merged with others), or replaced by the policy whose value
// holds, with the parent and annotation that decided it.
func (Profile) ExplainRule(in *profile.Offline, k policy.Kind, target topology.Target, rule string) ([]effective.Explanation, error) {
	w, field, err := declaring(in, k, rule)
	if err != nil {
		return nil, err
	}
	v := engine.View{World: w}
	out := []effective.Explanation{}
	seen := map[effective.ItemKey]bool{}
	for _, at := range paths(w) {
		if !within(w, at.key, target) || seen[at.key] {
			continue
		}
		seen[at.key] = true
		if ex, ok := explainPath(v, at, rule, field); ok {
			out = append(out, ex)
		}
	}
	return out, nil
}

// Reach is `precedent explain --reach --rule ID` for kgateway's TrafficPolicy: every path whose
// merged TrafficPolicy holds the field, and from which policy (each, when deep-merged); with ref,
// only where that policy's value is in effect.
func (Profile) Reach(in *profile.Offline, k policy.Kind, rule string, ref *policy.Ref) ([]effective.ReachedPath, error) {
	w, field, err := declaring(in, k, rule)
	if err != nil {
		return nil, err
	}
	v := engine.View{World: w}
	out := []effective.ReachedPath{}
	seen := map[effective.ItemKey]bool{}
	for _, at := range paths(w) {
		if seen[at.key] {
			continue
		}
		seen[at.key] = true
		val, ok := v.Compute(at.path).Fields[field]
		if !ok {
			continue
		}
		for _, s := range val.Sources {
			if from := (policy.Ref{Namespace: s.Namespace, Name: s.Name}); ref == nil || from == *ref {
				out = append(out, effective.ReachedPath{Path: at.key, From: from})
			}
		}
	}
	return out, nil
}

// pathAt is one path of the world with the key `effective` shows it under.
type pathAt struct {
	key  effective.ItemKey
	path engine.Path
}

// paths are every (parent, leaf route rule) path of w, in `effective`'s order (a key once).
func paths(w *engine.World) []pathAt {
	v := engine.View{World: w}
	var out []pathAt
	for _, rk := range w.RouteKeys() {
		for _, p := range v.Paths(rk) {
			out = append(out, pathAt{key: w.KeyOf(rk, p), path: p})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return effective.KeyLess(out[i].key, out[j].key) })
	return out
}

// topField is the top-level TrafficPolicy field a rule id names.
func topField(rule string) string {
	f, _, _ := strings.Cut(rule, ".")
	return f
}

// declaring is the world of the input and the top-level field the rule names; an error when no
// TrafficPolicy sets it.
func declaring(in *profile.Offline, k policy.Kind, rule string) (*engine.World, string, error) {
	w, field := engine.New(in.Objects), topField(rule)
	for _, p := range w.Policies() {
		if _, ok := p.Fields[field]; ok {
			return w, field, nil
		}
	}
	return nil, "", effective.Undeclared(k, rule)
}

// within reports whether the path key is through target: its Gateway or ListenerSet, a route of
// its delegation chain, or any for a GatewayClass.
func within(w *engine.World, key effective.ItemKey, target topology.Target) bool {
	name := target.Namespace + "/" + target.Name
	switch target.Kind {
	case "ListenerSet", "XListenerSet":
		return key.Gateway == "ListenerSet "+name
	case "HTTPRoute":
		return through(w, key.Route, name)
	case "GRPCRoute":
		return false // the paths are HTTPRoutes'
	}
	return key.Beneath(target)
}

// explainPath words what the fold of one path did with field: a step per policy declaring it,
// from the Gateway's level down to the leaf route's; false when no policy on the path declares it.
func explainPath(v engine.View, at pathAt, rule, field string) (effective.Explanation, bool) {
	levels := v.Levels(at.path)
	res := engine.Fold(levels)
	ex := effective.Explanation{Path: at.key, Rule: rule, Steps: []effective.Step{}}
	holds := map[engine.Key]bool{}
	if val, ok := res.Fields[field]; ok {
		for _, s := range val.Sources {
			holds[s] = true
		}
		from := refOf(val.Sources[0])
		ex.From = &from
	}
	for i := len(levels) - 1; i >= 0; i-- {
		for _, p := range levels[i].Policies {
			if _, ok := p.Fields[field]; ok {
				ex.Steps = append(ex.Steps, step(levels[i], p, field, holds, res))
			}
		}
	}
	return ex, len(ex.Steps) > 0
}

// step is what became of policy p's field on a level: added when its value holds, else replaced by
// the policy that displaced it, with why (the owner's annotation, or specificity and age at one
// level).
func step(l engine.Level, p *engine.Policy, field string, holds map[engine.Key]bool, res engine.Result) effective.Step {
	lvl, _, _ := strings.Cut(l.Owner, " ")
	st := effective.Step{Level: lvl, Policy: refOf(p.Ref), Action: effective.Added}
	if holds[p.Ref] {
		return st
	}
	st.Action = effective.Replaced
	for _, d := range res.Displaced {
		if d.Field != field || d.Policy != p.Ref {
			continue
		}
		by := refOf(d.By)
		st.Other = &by
		if d.Owner != "" {
			st.Detail = fmt.Sprintf("%s sets %s", d.Owner, d.Mode)
		} else {
			st.Detail = "the more specific, then older, policy at the same level holds"
		}
		break
	}
	return st
}

func refOf(k engine.Key) policy.Ref { return policy.Ref{Namespace: k.Namespace, Name: k.Name} }
