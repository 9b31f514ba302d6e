package validate

import (
	"fmt"
	"slices"
	"sort"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/precedent-dev/precedent/internal/effective"
	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/printable"
	"github.com/precedent-dev/precedent/internal/settings"
	"github.com/precedent-dev/precedent/internal/topology"
	"github.com/precedent-dev/precedent/internal/warning"
)

// Stateful checks p against the other policies of the snapshot: every stateful check, or those
// named in only (settings.CheckUnsetOverride, settings.CheckOnePolicyPerTarget). Checks configured
// to warn return their findings as warnings instead of errors.
func Stateful(snap *effective.Snapshot, p *policy.Policy, s settings.Settings, only ...string) (field.ErrorList, []string) {
	errs, _, warns := stateful(snap, p, s, only...)
	return errs, warns
}

// stateful is Stateful with the check id of each error. A finding of a check configured to warn
// keeps its check's code (PRC-E...) in the warning.
func stateful(snap *effective.Snapshot, p *policy.Policy, s settings.Settings, only ...string) (errs field.ErrorList, ids, warns []string) {
	selected := func(check string) bool { return len(only) == 0 || slices.Contains(only, check) }
	add := func(check string, es field.ErrorList) {
		if s.Action(check) == settings.ActionWarn {
			for _, e := range es {
				warns = append(warns, warning.ForCheck(check).Line(e.Error()))
			}
			return
		}
		errs = append(errs, es...)
		for range es {
			ids = append(ids, check)
		}
	}
	if selected(settings.CheckUnsetOverride) {
		add(settings.CheckUnsetOverride, unsetOverrides(snap, p))
	}
	if s.OnePolicyPerTarget && selected(settings.CheckOnePolicyPerTarget) {
		add(settings.CheckOnePolicyPerTarget, onePerTarget(snap, p))
	}
	return errs, ids, warns
}

// unsetOverrides rejects an unset of a rule that a higher policy's overrides set on any path p reaches.
func unsetOverrides(snap *effective.Snapshot, p *policy.Policy) field.ErrorList {
	if len(p.Unset) == 0 {
		return nil
	}
	want := map[string]int{}
	for i, id := range p.Unset {
		if _, ok := want[id]; !ok {
			want[id] = i
		}
	}
	found := map[string]policy.Ref{}
	own := map[topology.Target]bool{}
	for _, t := range effective.TargetsOf(p) {
		own[t] = true
	}
	view := snap.With(p)
	for _, i := range view.PathsOf(p) {
		path := view.Graph.Paths[i]
		ts := path.Targets()
		// Walk from the most specific level up; the levels above p's own are the higher ones.
		above := false
		for j := len(ts) - 1; j >= 0; j-- {
			if own[ts[j].Target] {
				above = true
				continue
			}
			if !above {
				continue
			}
			for _, q := range view.At(ts[j].Target) {
				if q.Overrides == nil || q.Ref == p.Ref {
					continue
				}
				for id := range want {
					if _, ok := q.Overrides.Rules[id]; !ok {
						continue
					}
					if prev, ok := found[id]; !ok || q.Ref.String() < prev.String() {
						found[id] = q.Ref
					}
				}
			}
		}
	}
	ids := make([]string, 0, len(found))
	for id := range found {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(a, b int) bool { return want[ids[a]] < want[ids[b]] })
	var errs field.ErrorList
	for _, id := range ids {
		errs = append(errs, field.Forbidden(p.UnsetPath.Index(want[id]),
			fmt.Sprintf("rule %s is set by the overrides of %s %s and cannot be unset: remove it from spec.unset", printable.String(id), p.Kind.GVK.Kind, found[id])))
	}
	return errs
}

// onePerTarget rejects a policy whose target already holds an older policy of the same kind.
func onePerTarget(snap *effective.Snapshot, p *policy.Policy) field.ErrorList {
	var errs field.ErrorList
	others := snap.Without(p.Ref)
	for _, r := range p.Targets {
		t, ok := effective.TargetOf(p, r)
		if !ok {
			continue
		}
		for _, q := range others.At(t) {
			if policy.Less(q, p) {
				errs = append(errs, field.Forbidden(r.Path, fmt.Sprintf("%s %s already targets %s and one policy per target is configured: edit that policy instead", p.Kind.GVK.Kind, q.Ref, t)))
				break
			}
		}
	}
	return errs
}
