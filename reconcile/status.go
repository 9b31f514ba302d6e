package reconcile

import (
	"fmt"
	"sort"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/precedent-dev/precedent/effective"
	"github.com/precedent-dev/precedent/policy"
	"github.com/precedent-dev/precedent/settings"
	"github.com/precedent-dev/precedent/topology"
	"github.com/precedent-dev/precedent/validate"
)

// Condition types and reasons (the RFC's "Possible statuses of an inherited policy").
const (
	TypeAccepted = "Accepted"
	TypeEnforced = "Enforced"

	ReasonAccepted          = "Accepted"
	ReasonInvalid           = "Invalid"
	ReasonTargetNotFound    = "TargetNotFound"
	ReasonConflicted        = "Conflicted"
	ReasonEnforced          = "Enforced"
	ReasonPartiallyEnforced = "PartiallyEnforced"
	ReasonOverridden        = "Overridden"
	ReasonUnknown           = "Unknown"
)

// Status is the computed status of one policy.
type Status struct {
	Conditions []metav1.Condition
	// Gateways are the Gateway ancestors of the paths the policy reaches, sorted (at most 16).
	Gateways []topology.Key
}

// MaxAncestors is Gateway API's limit on PolicyAncestorStatus entries.
const MaxAncestors = 16

// Compute derives the status of p (as stored) from snap, the snapshot holding every policy of its
// kind. invalid are the errors the webhook would give p now (stateless and stateful).
func Compute(snap *effective.Snapshot, p *policy.Policy, invalid field.ErrorList, s settings.Settings) Status {
	gen := p.Generation
	cond := func(t string, ok bool, reason, msg string) metav1.Condition {
		st := metav1.ConditionFalse
		if ok {
			st = metav1.ConditionTrue
		}
		return metav1.Condition{Type: t, Status: st, Reason: reason, Message: msg, ObservedGeneration: gen}
	}
	var st Status
	accepted := acceptedCondition(snap, p, invalid, s)
	st.Conditions = append(st.Conditions, cond(TypeAccepted, accepted.ok, accepted.reason, accepted.msg))
	if !accepted.ok {
		st.Conditions = append(st.Conditions, cond(TypeEnforced, false, ReasonUnknown, "Policy has encountered some issues: it is not accepted"))
		return st
	}
	e, gws := enforced(snap, p)
	st.Conditions = append(st.Conditions, cond(TypeEnforced, e.ok, e.reason, e.msg))
	st.Gateways = gws
	return st
}

type verdict struct {
	ok     bool
	reason string
	msg    string
}

func acceptedCondition(snap *effective.Snapshot, p *policy.Policy, invalid field.ErrorList, s settings.Settings) verdict {
	if len(invalid) > 0 {
		return verdict{false, ReasonInvalid, truncate("Policy is invalid: "+invalid.ToAggregate().Error(), 1024)}
	}
	var missing []string
	for _, t := range effective.TargetsOf(p) {
		if !snap.Graph.Exists(t) {
			missing = append(missing, t.String())
		}
	}
	if len(missing) > 0 && len(missing) == len(p.Targets) {
		return verdict{false, ReasonTargetNotFound, fmt.Sprintf("Policy target %s was not found", strings.Join(missing, ", "))}
	}
	if s.OnePolicyPerTarget {
		for _, t := range effective.TargetsOf(p) {
			for _, q := range snap.At(t) {
				if q.Ref != p.Ref && policy.Less(q, p) {
					return verdict{false, ReasonConflicted, fmt.Sprintf("Policy is conflicted by %s", q.Ref)}
				}
			}
		}
	}
	return verdict{true, ReasonAccepted, "Policy has been accepted"}
}

// enforced folds every path p reaches and reads p's fate from the events.
func enforced(snap *effective.Snapshot, p *policy.Policy) (verdict, []topology.Key) {
	paths := snap.PathsOf(p)
	if len(paths) == 0 {
		return verdict{false, ReasonUnknown, "Policy has encountered some issues: it is not in the path of any route or listener"}, nil
	}
	declared := p.RuleIDs()
	inEffect := map[string]bool{}
	overriddenBy := map[string]map[string]bool{} // policy → rule ids of p it overrode
	addedBy := map[string]map[string]bool{}      // policy → default rule ids it added next to p's
	gws := map[topology.Key]bool{}
	lost := func(by policy.Ref, rule string) {
		if overriddenBy[by.String()] == nil {
			overriddenBy[by.String()] = map[string]bool{}
		}
		if rule != "" {
			overriddenBy[by.String()][rule] = true
		}
	}
	for _, i := range paths {
		path := snap.Graph.Paths[i]
		gws[path.Gateway] = true
		r := snap.Compute(path)
		level := map[policy.Ref]topology.Level{}
		for _, lv := range snap.Levels(path) {
			for _, q := range lv.Policies {
				level[q.Ref] = lv.Level
			}
		}
		for id, e := range r.Rules {
			if e.Source == p.Ref {
				inEffect[id] = true
			} else if e.Block != "overrides" && level[e.Source] < level[p.Ref] {
				// a default of a less specific policy, added next to p's rules
				if addedBy[e.Source.String()] == nil {
					addedBy[e.Source.String()] = map[string]bool{}
				}
				addedBy[e.Source.String()][id] = true
			}
		}
		for _, ev := range r.Events {
			switch {
			case ev.Other != nil && *ev.Other == p.Ref && (ev.Type == effective.Overridden || ev.Type == effective.Clipped):
				lost(ev.Policy, ev.Rule)
			case ev.Policy == p.Ref && (ev.Type == effective.Kept || ev.Type == effective.Replaced) && ev.Other != nil:
				lost(*ev.Other, ev.Rule)
			}
		}
	}
	var notInEffect []string
	for _, id := range declared {
		if !inEffect[id] {
			notInEffect = append(notInEffect, id)
		}
	}
	keys := sortedGateways(gws)
	switch {
	case len(declared) > 0 && len(notInEffect) == len(declared):
		return verdict{false, ReasonOverridden, fmt.Sprintf("Policy has been overridden by %s", strings.Join(sortedKeys(overriddenBy), ", "))}, keys
	case len(notInEffect) > 0 || len(overriddenBy) > 0:
		return verdict{true, ReasonPartiallyEnforced, truncate(fmt.Sprintf("Policy has been successfully enforced. The following rules have been overridden by %s%s",
			byList(overriddenBy), addedSuffix("; the following defaults have been added by ", addedBy)), 32768)}, keys
	}
	return verdict{true, ReasonEnforced, truncate("Policy has been successfully enforced"+addedSuffix(". The following defaults have been added by ", addedBy), 32768)}, keys
}

func byList(m map[string]map[string]bool) string {
	var parts []string
	for _, who := range sortedKeys(m) {
		ids := sortedKeys(m[who])
		if len(ids) == 0 {
			parts = append(parts, who)
			continue
		}
		parts = append(parts, who+": "+strings.Join(ids, ", "))
	}
	return strings.Join(parts, "; ")
}

func addedSuffix(prefix string, m map[string]map[string]bool) string {
	if len(m) == 0 {
		return ""
	}
	return prefix + byList(m)
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func sortedGateways(m map[topology.Key]bool) []topology.Key {
	out := make([]topology.Key, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	if len(out) > MaxAncestors {
		out = out[:MaxAncestors]
	}
	return out
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n-3] + "..."
}

// Invalid returns the errors the webhook would give p now: the stateless checks and the forbidden
// unsets (a second policy on one target is Conflicted, not Invalid).
func Invalid(snap *effective.Snapshot, p *policy.Policy, s settings.Settings) field.ErrorList {
	errs := validate.Stateless(p, s, snap.Cond)
	if len(errs) > 0 {
		return errs
	}
	s.OnePolicyPerTarget = false
	serrs, _ := validate.Stateful(snap, p, s)
	return serrs
}
