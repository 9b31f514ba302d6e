package validate

import (
	"reflect"
	"slices"

	"github.com/precedent-dev/precedent/internal/effective"
	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/topology"
)

// Project compares the effective policies before and after a write of one policy, on the paths
// that policy reaches (before or after), and returns the warnings of DESIGN.md. written is nil for
// a delete. Warnings name policies, routes and rule ids only, never rule values.
func Project(before *effective.Snapshot, ref policy.Ref, written *policy.Policy) []string {
	return project(before, ref, written, true)
}

// project is Project; reuse allows the shortcut for a write the same as the stored version (tests
// compare it with the long way).
func project(before *effective.Snapshot, ref policy.Ref, written *policy.Policy, reuse bool) []string {
	old, hadOld := before.Policy(ref)
	var after *effective.Snapshot
	switch {
	case written == nil:
		after = before.Without(ref)
	case reuse && hadOld && written.SameAs(old):
		// A re-apply that changes nothing the engine reads (GitOps pipelines re-apply every manifest,
		// often with a server-side dry-run first): the effective policies after are those in force,
		// already folded in before's memo; the warnings are what the stored version's events say.
		after = before
	default:
		after = before.With(written)
	}
	var was, is []int
	if hadOld {
		was = before.PathsOf(old)
	}
	if written != nil {
		is = after.PathsOf(written)
	}
	idx := after.Graph.Union(was, is) // in path order, as warnings list places

	w := &warnings{graph: after.Graph, kind: kindOf(before, written), rulesField: before.Kind.RulesField, ref: ref, all: make([]note, 0, 8),
		fold: before.Kind.Fold(), model: modelName(before.Kind.Fold()), deleted: written == nil}
	if written != nil {
		w.targets(after, written)
	}
	// The summary of changed routes is given for Gateway-level writes (before or after) and for
	// deletes only.
	highLevel := (hadOld && isHighLevel(old)) || (written != nil && isHighLevel(written))
	countChanges := written == nil || highLevel
	var changedRoutes map[topology.Key]bool
	var edited map[string]bool // rule ids of ref whose body this write changes
	if hadOld && written != nil && after != before {
		edited = editedRules(old, written)
	}
	// Paths with the same folds before and after (memoized folds and their mentions of ref are
	// shared, so their identity tells) have the same warnings and the same change: each is looked at
	// once. The warnings need only the events that name the written policy (effective.Mentions),
	// which the engine gives without folding the rules of higher policies the write cannot reach.
	type outcome struct {
		key     [3]uintptr // the mentions of ref after; the rule maps after and before, when compared
		compare bool
		msgs    []int // warnings, by their number in w
		changed bool
	}
	outcomes := make([]outcome, 0, 8) // a handful of distinct ones: searched, not hashed
	// When the write keeps the policy's targets (a create, or an update with the same targetRefs),
	// the policies of a path before are those after without the written one, in the same places:
	// paths with the same fold after have the same fold before, which need not be looked up again.
	beforeFollows := written != nil && (!hadOld || slices.Equal(effective.TargetsOf(old), effective.TargetsOf(written)))
	find := func(match func(*outcome) bool) *outcome {
		for j := range outcomes {
			if match(&outcomes[j]) {
				return &outcomes[j]
			}
		}
		return nil
	}
	for _, i := range idx {
		path := &after.Graph.Paths[i]
		compare := countChanges && path.RouteKind != ""
		var key [3]uintptr
		var mentions *effective.Mentions
		if written != nil {
			mentions = after.MentionsPath(i, ref) // one per fold after: its identity stands for the fold
			key[0] = reflect.ValueOf(mentions).Pointer()
		}
		// Where the write may take rules of other policies out of the path (displace.go) and the
		// folds are not compared, the fold before is read (memoized on the snapshot in force).
		displace := !compare && mentions != nil && mayDisplace(mentions, ref)
		var o *outcome
		if beforeFollows {
			o = find(func(x *outcome) bool { return x.key[0] == key[0] && x.compare == compare })
		}
		var ra, rb effective.Result
		switch {
		case o == nil && compare:
			ra, rb = after.ComputePath(i), before.ComputePath(i)
			key[1], key[2] = mapID(ra.Rules), mapID(rb.Rules)
		case o == nil && displace:
			rb = before.ComputePath(i)
			key[2] = mapID(rb.Rules)
		}
		if o == nil {
			o = find(func(x *outcome) bool { return x.key == key && x.compare == compare })
		}
		if o == nil {
			outcomes = append(outcomes, outcome{key: key, compare: compare})
			o = &outcomes[len(outcomes)-1]
			if mentions != nil {
				for k := range mentions.Events {
					if n, ok := w.event(&mentions.Events[k]); ok {
						o.msgs = append(o.msgs, n)
					}
				}
			}
			switch {
			case compare && mapID(ra.Rules) != mapID(rb.Rules):
				o.msgs = append(o.msgs, w.displaced(after, i, ra, rb)...)
			case displace:
				o.msgs = append(o.msgs, w.displacedMentions(after, i, mentions, rb)...)
			}
			o.changed = compare && !sameRules(rb.Rules, ra.Rules, ref, edited)
		}
		for _, n := range o.msgs {
			w.addAt(n, i)
		}
		if o.changed {
			if changedRoutes == nil {
				changedRoutes = map[topology.Key]bool{}
			}
			changedRoutes[path.Route] = true
		}
	}
	if written != nil {
		for i, id := range written.Unset {
			if !w.unsetUsed[id] && policy.ValidRuleID(written.Kind, id) {
				w.unsetRemovesNothing(i, id)
			}
		}
	}
	// The summary comes first: it is about the whole write, and the warning limit cuts from the end.
	if len(changedRoutes) == 0 { // counted only when countChanges
		return w.list(nil)
	}
	return w.list([]string{w.summary(written == nil, len(changedRoutes))})
}

func kindOf(s *effective.Snapshot, p *policy.Policy) string {
	if p != nil {
		return p.Kind.GVK.Kind
	}
	return s.Kind.GVK.Kind
}

func isHighLevel(p *policy.Policy) bool {
	for _, t := range p.Targets {
		if t.Kind == "Gateway" || t.Kind == "GatewayClass" || t.Kind == "ListenerSet" {
			return true
		}
	}
	return false
}

// sameRules compares two effective policies. A rule of the written policy ref on both sides, from
// the same block, is the same unless edited says its body changed (computed once per write, not once
// per path).
func sameRules(a, b map[string]effective.Entry, ref policy.Ref, edited map[string]bool) bool {
	if len(a) != len(b) {
		return false
	}
	for id, ea := range a {
		eb, ok := b[id]
		if !ok || ea.Source != eb.Source {
			return false
		}
		if ea.Source == ref && edited != nil && ea.Block == eb.Block {
			if edited[id] {
				return false
			}
			continue
		}
		if !sameBody(ea.Body, eb.Body) {
			return false
		}
	}
	return true
}

// editedRules lists the rule ids whose body differs between two versions of a policy, per block.
func editedRules(old, cur *policy.Policy) map[string]bool {
	out := map[string]bool{}
	pairs := [][2]*policy.Block{{old.Bare, cur.Bare}, {old.Defaults, cur.Defaults}, {old.Overrides, cur.Overrides}}
	for _, pr := range pairs {
		var a, b map[string]interface{}
		if pr[0] != nil {
			a = pr[0].Rules
		}
		if pr[1] != nil {
			b = pr[1].Rules
		}
		for id, body := range a {
			if other, ok := b[id]; !ok || !reflect.DeepEqual(body, other) {
				out[id] = true
			}
		}
		for id := range b {
			if _, ok := a[id]; !ok {
				out[id] = true
			}
		}
	}
	return out
}

// sameBody compares rule bodies, first by identity: a rule of a policy the write did not touch is
// the very same object on both sides.
func sameBody(a, b interface{}) bool {
	ma, ok1 := a.(map[string]interface{})
	mb, ok2 := b.(map[string]interface{})
	if ok1 && ok2 && reflect.ValueOf(ma).UnsafePointer() == reflect.ValueOf(mb).UnsafePointer() {
		return true
	}
	return reflect.DeepEqual(a, b)
}

// mapID is the identity of a map.
func mapID(m map[string]effective.Entry) uintptr { return reflect.ValueOf(m).Pointer() }
