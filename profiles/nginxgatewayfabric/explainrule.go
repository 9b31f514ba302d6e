package nginxgatewayfabric

import (
	"slices"
	"sort"

	"github.com/precedent-dev/precedent/internal/effective"
	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/profile"
	"github.com/precedent-dev/precedent/internal/topology"
	"github.com/precedent-dev/precedent/profiles/nginxgatewayfabric/engine"
)

// Rule ids of NGINX Gateway Fabric's kinds are the fields `effective` shows (`body.maxSize`,
// `tracing`; an UpstreamSettingsPolicy's under its Service, `cart.zoneSize`). A rule id names a
// field and everything beneath it (`keepAlive`); for an UpstreamSettingsPolicy it may leave the
// Service out (`zoneSize`: on every Service).

// ExplainRule is `precedent explain --target T --rule ID` for NGINX Gateway Fabric's kinds: on each
// (Gateway, route) path beneath target that a policy declaring the field reaches, those policies
// (the Gateway's first, then the route's) and what became of each: added (its value is in effect),
// or replaced by the policy whose value holds (a route's ClientSettingsPolicy over the Gateway's;
// the older policy a Conflicted one conflicts with; none for a policy not accepted otherwise).
func (Profile) ExplainRule(in *profile.Offline, k policy.Kind, target topology.Target, rule string) ([]effective.Explanation, error) {
	w := offlineWorld(in)
	decl := declaring(w, k.GVK.Kind, rule)
	if len(decl) == 0 {
		return nil, effective.Undeclared(k, rule)
	}
	statuses := w.Decide()
	actual := map[effective.ItemKey]map[string]string{}
	for _, it := range w.Items(k.GVK.Kind, statuses) {
		actual[itemKey(it)] = it.Sources
	}
	onPath := map[effective.ItemKey][]*engine.Policy{}
	for _, p := range decl {
		for _, it := range w.Reach(p) {
			if key := itemKey(it); key.Beneath(target) && len(matching(k.GVK.Kind, it.Sources, rule)) > 0 {
				onPath[key] = append(onPath[key], p)
			}
		}
	}
	keys := make([]effective.ItemKey, 0, len(onPath))
	for key := range onPath {
		keys = append(keys, key)
	}
	sort.Slice(keys, func(i, j int) bool { return effective.KeyLess(keys[i], keys[j]) })
	out := make([]effective.Explanation, 0, len(keys))
	for _, key := range keys {
		out = append(out, explainPath(key, rule, onPath[key], actual[key], statuses))
	}
	return out, nil
}

// Reach is `precedent explain --reach --rule ID` for NGINX Gateway Fabric's kinds: every (Gateway,
// route) path whose effective settings hold the field, and from which policy (once per policy when
// several set fields beneath it); with ref, only where that policy's value is in effect.
func (Profile) Reach(in *profile.Offline, k policy.Kind, rule string, ref *policy.Ref) ([]effective.ReachedPath, error) {
	w := offlineWorld(in)
	if len(declaring(w, k.GVK.Kind, rule)) == 0 {
		return nil, effective.Undeclared(k, rule)
	}
	out := []effective.ReachedPath{}
	for _, it := range w.Items(k.GVK.Kind, w.Decide()) {
		for _, from := range matching(k.GVK.Kind, it.Sources, rule) {
			if ref == nil || from == *ref {
				out = append(out, effective.ReachedPath{Path: itemKey(it), From: from})
			}
		}
	}
	return out, nil
}

// declaring are the policies of kind that set a field the rule names, Gateway-level ones first,
// then in precedence order.
func declaring(w *engine.World, kind, rule string) []*engine.Policy {
	var out []*engine.Policy
	for _, p := range w.Policies {
		if p.Kind == kind && declares(p, rule) {
			out = append(out, p)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		gi, gj := engine.Level(out[i]) == "gateway", engine.Level(out[j]) == "gateway"
		if gi != gj {
			return gi
		}
		return engine.Less(out[i], out[j])
	})
	return out
}

// declares reports whether p sets a field the rule names (for an UpstreamSettingsPolicy, with or
// without one of its Services).
func declares(p *engine.Policy, rule string) bool {
	for _, f := range p.SetFields() {
		if engine.Matches(p.Kind, f, rule) {
			return true
		}
		for _, t := range p.Targets {
			if engine.Matches(p.Kind, t.Name+"."+f, rule) {
				return true
			}
		}
	}
	return false
}

// matching are the policies the fields of sources that the rule names come from, sorted.
func matching(kind string, sources map[string]string, rule string) []policy.Ref {
	var out []policy.Ref
	for id, from := range sources {
		if !engine.Matches(kind, id, rule) {
			continue
		}
		for _, one := range engine.SourceRefs(from) {
			if r := policy.ParseRef(one); !slices.Contains(out, r) {
				out = append(out, r)
			}
		}
	}
	slices.SortFunc(out, policy.Ref.Compare)
	return out
}

func itemKey(it effective.Item) effective.ItemKey {
	return effective.ItemKey{Gateway: it.Gateway, Route: it.Route}
}

// explainPath words what the policies reaching one path did to the field.
func explainPath(key effective.ItemKey, rule string, pols []*engine.Policy, holds map[string]string, statuses engine.Statuses) effective.Explanation {
	kind := pols[0].Kind
	ex := effective.Explanation{Path: key, Rule: rule, Steps: []effective.Step{}}
	from := matching(kind, holds, rule)
	if len(from) > 0 {
		ex.From = &from[0]
	}
	for _, p := range pols {
		me := ref(p)
		step := effective.Step{Level: engine.Level(p), Policy: me, Action: effective.Added}
		st := engine.StatusOf(statuses, p)
		switch {
		case !st.Accepted():
			step.Action, step.Detail = effective.Replaced, accepted(st).Message
			if st.By != nil {
				other := ref(st.By)
				step.Other = &other
			}
		case !slices.Contains(from, me) && len(from) > 0:
			step.Action, step.Other = effective.Replaced, &from[0]
			step.Detail = "the route's value holds: NGINX inherits a setting from the server to a location only where the location does not set it"
		}
		ex.Steps = append(ex.Steps, step)
	}
	return ex
}

func ref(p *engine.Policy) policy.Ref {
	return policy.Ref{Namespace: p.Ref.Namespace, Name: p.Ref.Name}
}
