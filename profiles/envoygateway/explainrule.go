package envoygateway

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/precedent-dev/precedent/internal/effective"
	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/profile"
	"github.com/precedent-dev/precedent/internal/topology"
	engine "github.com/precedent-dev/precedent/profiles/envoygateway/engine"
)

var _ profile.RuleExplainer = Profile{}

// Rule ids of Envoy Gateway's kinds are spec fields: a top-level field (`jwt`, `timeout`), or a
// deeper one where a merge splits it (`rateLimit.global.rules[1]`). A rule id given to explain
// names a field and everything beneath it.

// ExplainRule is `precedent explain --target T --rule ID` for Envoy Gateway's kinds: on each path
// beneath target, the policies of the path that declare the field, broadest first, and what became
// of each: added (its value is in effect, alone or merged), or replaced by the policy that holds the
// path (a more specific policy without mergeType, a merge whose value wins, a parent a one-hop
// merge does not reach, or a route-level policy a rule-level merge skips).
func (Profile) ExplainRule(in *profile.Offline, k policy.Kind, target topology.Target, rule string) ([]effective.Explanation, error) {
	snap := offlineWorld(in, nil).snap
	if !declares(snap, in, k, rule) {
		return nil, effective.Undeclared(k, rule)
	}
	var out []effective.Explanation
	for _, r := range results(snap, k.GVK.Kind) {
		key := snap.KeyOf(k.GVK.Kind, r.Path)
		if !key.Beneath(target) {
			continue
		}
		out = append(out, explainPath(key, r, rule))
	}
	return out, nil
}

// Reach is `precedent explain --reach --rule ID` for Envoy Gateway's kinds: every path whose
// effective policy holds the field, and from which policy (a field merged from several policies
// lists the path once per policy); with ref, only where that policy's value is in effect.
func (Profile) Reach(in *profile.Offline, k policy.Kind, rule string, ref *policy.Ref) ([]effective.ReachedPath, error) {
	snap := offlineWorld(in, nil).snap
	if !declares(snap, in, k, rule) {
		return nil, effective.Undeclared(k, rule)
	}
	out := []effective.ReachedPath{}
	for _, r := range results(snap, k.GVK.Kind) {
		for _, from := range contributors(r.Sources, rule) {
			if ref == nil || from == *ref {
				out = append(out, effective.ReachedPath{Path: snap.KeyOf(k.GVK.Kind, r.Path), From: from})
			}
		}
	}
	return out, nil
}

// results are the computed paths of kind, one per displayed key, sorted as `effective` sorts them.
func results(snap *engine.Snapshot, kind string) []engine.Result {
	seen := map[effective.ItemKey]bool{}
	var out []engine.Result
	for i, n := 0, snap.PathCount(kind); i < n; i++ {
		r, ok := snap.Compute(kind, i)
		if !ok {
			continue
		}
		if k := snap.KeyOf(kind, r.Path); !seen[k] {
			seen[k] = true
			out = append(out, r)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		return effective.KeyLess(snap.KeyOf(kind, out[i].Path), snap.KeyOf(kind, out[j].Path))
	})
	return out
}

// declares reports whether a policy of kind k in the input sets the field rule names.
func declares(snap *engine.Snapshot, in *profile.Offline, k policy.Kind, rule string) bool {
	for _, u := range in.Objects {
		if u.GroupVersionKind().GroupKind() != k.GVK.GroupKind() {
			continue
		}
		if p, errs := engine.Read(u); len(errs) == 0 && sets(p, rule) {
			return true
		}
	}
	return false
}

// sets reports whether p sets the top-level field of rule.
func sets(p *engine.Policy, rule string) bool {
	top := rule
	if i := strings.IndexAny(rule, ".["); i >= 0 {
		top = rule[:i]
	}
	_, ok := p.Fields[top]
	return ok
}

// within reports whether the field id is rule or beneath it, or rule beneath id (a merged
// field's source covers what is under it).
func within(id, rule string) bool {
	beneath := func(a, b string) bool {
		return a == b || strings.HasPrefix(a, b+".") || strings.HasPrefix(a, b+"[")
	}
	return beneath(id, rule) || beneath(rule, id)
}

// contributors are the policies the field's value comes from on a path, sorted.
func contributors(sources map[string]string, rule string) []policy.Ref {
	seen := map[string]bool{}
	var out []policy.Ref
	for id, from := range sources {
		if within(id, rule) && !seen[from] {
			seen[from] = true
			out = append(out, policy.ParseRef(from))
		}
	}
	slices.SortFunc(out, policy.Ref.Compare)
	return out
}

// inEffect names, among the policies a field's value comes from (sorted), the one a path's
// explanation credits: the holder when it is among them, else the first; nil when there are none.
func inEffect(from []policy.Ref, holder policy.Ref) *policy.Ref {
	switch {
	case slices.Contains(from, holder):
		return &holder
	case len(from) > 0:
		return &from[0]
	}
	return nil
}

// explainPath words what the policies of one path did to the field.
func explainPath(key effective.ItemKey, r engine.Result, rule string) effective.Explanation {
	ex := effective.Explanation{Path: key, Rule: rule, Steps: []effective.Step{}}
	from := contributors(r.Sources, rule)
	in := func(p *engine.Policy) bool { return slices.Contains(from, ref(p)) }
	holder := ref(r.Holder)
	ex.From = inEffect(from, holder)
	step := func(p *engine.Policy, sc engine.Scope, action effective.EventType, other *policy.Ref, detail string) {
		if p != nil && sets(p, rule) {
			ex.Steps = append(ex.Steps, effective.Step{Level: level(sc), Policy: ref(p), Action: action, Other: other, Detail: detail})
		}
	}
	replaced := slices.Clone(r.Replaced)
	slices.SortStableFunc(replaced, func(a, b engine.Placed) int { return int(a.Scope.Level()) - int(b.Scope.Level()) })
	for _, pl := range replaced {
		detail := fmt.Sprintf("%s on %s replaces the whole policy (no mergeType)", holder, r.Scope)
		if r.Parent != nil {
			detail = fmt.Sprintf("the merge of %s reaches only the closest parent, %s", holder, ref(r.Parent))
		}
		step(pl.Policy, pl.Scope, effective.Replaced, &holder, detail)
	}
	if r.Parent != nil {
		if in(r.Parent) {
			step(r.Parent, r.ParentScope, effective.Added, nil, fmt.Sprintf("merged into %s (mergeType %s)", holder, r.Holder.MergeType))
		} else {
			step(r.Parent, r.ParentScope, effective.Replaced, &holder, fmt.Sprintf("the value of %s wins the merge (mergeType %s)", holder, r.Holder.MergeType))
		}
	}
	if r.Skipped != nil {
		step(r.Skipped.Policy, r.Skipped.Scope, effective.Replaced, &holder, "a rule-level merge skips the route-level policy (no chaining)")
	}
	if in(r.Holder) {
		detail := ""
		if r.Parent != nil && in(r.Parent) {
			detail = fmt.Sprintf("merged with %s (mergeType %s)", ref(r.Parent), r.Holder.MergeType)
		}
		step(r.Holder, r.Scope, effective.Added, nil, detail)
	}
	return ex
}

func ref(p *engine.Policy) policy.Ref {
	return policy.Ref{Namespace: p.Ref.Namespace, Name: p.Ref.Name}
}

// level names a scope's level as the engine's explanations do.
func level(sc engine.Scope) string {
	return [...]string{"gateway", "listenerset", "listener", "route", "rule"}[sc.Level()]
}
