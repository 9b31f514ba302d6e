package kgateway

import (
	"fmt"
	"sort"
	"strings"

	"github.com/precedent-dev/precedent/internal/diff"
	"github.com/precedent-dev/precedent/internal/effective"
	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/profile"
	"github.com/precedent-dev/precedent/internal/topology"
	"github.com/precedent-dev/precedent/profiles/kgateway/engine"
)

// Effective: kgateway's merged TrafficPolicy per (listener, leaf route rule) path, with the
// policies each field comes from, on paths through target (a Gateway, a route of the chain, or any
// for a GatewayClass; nil: all).
func (Profile) Effective(in *profile.Offline, _ policy.Kind, target *topology.Target) ([]effective.Item, error) {
	w := engine.New(in.Objects)
	items := w.Items()
	if target == nil || target.Kind == "GatewayClass" {
		return items, nil
	}
	name := target.Namespace + "/" + target.Name
	var out []effective.Item
	for _, it := range items {
		switch {
		case target.Kind == "Gateway" && it.Gateway == name, target.Kind == "HTTPRoute" && through(w, it.Route, name):
			out = append(out, it)
		}
	}
	return out, nil
}

// through reports whether leaf route leaf is route name or delegated to from it.
func through(w *engine.World, leaf, name string) bool {
	if leaf == name {
		return true
	}
	for k := range w.Routes {
		if k.String() != name {
			continue
		}
		for _, d := range (engine.View{World: w}).Descendants(k) {
			if d.String() == leaf {
				return true
			}
		}
	}
	return false
}

// Diff compares the effective TrafficPolicies of base and head.
func (p Profile) Diff(base, head *profile.Offline, kind string) ([]diff.Change, bool, error) {
	return profile.DiffEffective(Name, base, head, kind, p.Effective)
}

// ExplainPolicy: whether the TrafficPolicy reaches a route, and the fate of each of its top-level
// fields on the paths it reaches: kept, merged (deep) or displaced, by whom.
func (Profile) ExplainPolicy(in *profile.Offline, k policy.Kind, ref policy.Ref) (*profile.PolicyExplanation, error) {
	w := engine.New(in.Objects)
	key := engine.Key{Namespace: ref.Namespace, Name: ref.Name}
	pol := w.Policy(key)
	if pol == nil {
		return nil, fmt.Errorf("no %s %s in the input (or it does not parse)", k.GVK.Kind, key)
	}
	out := &profile.PolicyExplanation{Kind: k.GVK.Kind, Policy: key.String(),
		Accepted: profile.Condition{Status: "True", Reason: "Accepted", Message: "read by the kgateway profile; kgateway's controller writes the status"}}
	fates := map[string]map[string]int{} // field → "state\x00by" → paths
	v := engine.View{World: w}
	paths := 0
	for _, rk := range v.Reached(pol) {
		for _, path := range v.Paths(rk) {
			paths++
			res := v.Compute(path)
			for _, f := range pol.FieldNames() {
				state, by := fate(res, f, key)
				if fates[f] == nil {
					fates[f] = map[string]int{}
				}
				fates[f][state+"\x00"+by]++
			}
		}
	}
	if paths == 0 {
		out.Enforced = profile.Condition{Status: "False", Reason: "NoPaths", Message: "no route of the input is reached"}
	} else {
		out.Enforced = profile.Condition{Status: "True", Reason: "Enforced", Message: fmt.Sprintf("reaches %d %s", paths, map[bool]string{true: "path", false: "paths"}[paths == 1])}
	}
	for _, f := range pol.FieldNames() {
		best, n := "", 0
		for sb, c := range fates[f] {
			if c > n || (c == n && sb < best) {
				best, n = sb, c
			}
		}
		state, by := "unreached", ""
		if best != "" {
			state, by = split(best)
		}
		out.Rules = append(out.Rules, profile.RuleFate{ID: f, State: state, By: by, Paths: n})
	}
	sort.Slice(out.Rules, func(i, j int) bool { return out.Rules[i].ID < out.Rules[j].ID })
	return out, nil
}

// fate is what the fold did with field f of policy key: kept alone, merged with others, or
// replaced by another policy (named).
func fate(res engine.Result, f string, key engine.Key) (string, string) {
	v, ok := res.Fields[f]
	if !ok {
		return "replaced", ""
	}
	for _, s := range v.Sources {
		if s == key {
			if len(v.Sources) > 1 {
				return "merged", ""
			}
			return "kept", ""
		}
	}
	return "replaced", engine.TrafficPolicy + " " + v.Sources[0].String()
}

func split(s string) (string, string) {
	state, by, _ := strings.Cut(s, "\x00")
	return state, by
}
