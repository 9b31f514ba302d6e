package validate

import (
	"slices"
	"strconv"
	"strings"

	"github.com/precedent-dev/precedent/internal/effective"
	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/printable"
)

// A write displaces a rule of another policy on a path when the rule is in the path's effective
// policy before the write, from that policy, and not after. The warnings about it name the policy
// and the rule id, never the rule's value: the requester may not be allowed to read it.

// How a rule of another policy leaves the effective policy.
const (
	displaceReplaced = "replaces" // its defaults give way to the written policy's rules
	displaceUnset    = "unsets"   // the written policy's unset removes it
	displaceOther    = "takes away"
)

// dispKey is what a displacement warning says, but the rule ids and the places.
type dispKey struct {
	verb   string
	owner  policy.Ref // the policy whose rules go
	reason string     // why, in the words of the model ("" when the write acts through other policies)
	// byDesign: a more specific policy's rules take the place of broader defaults, which is what
	// defaults are for: a note, not a warning.
	byDesign bool
}

// mayDisplace reports whether the events of a path's fold after a write, those naming the written
// policy ref, show that the write may take rules of other policies out of the path: defaults of
// another policy giving way to ref's rules, or unset by ref. (What ref's overrides replace is warned
// about rule by rule already.) Only then is the path's fold before read on a route-level write, so
// that a write displacing nothing costs no more than before.
func mayDisplace(m *effective.Mentions, ref policy.Ref) bool {
	for k := range m.Events {
		ev := &m.Events[k]
		if ev.Policy == ref || ev.Other == nil || *ev.Other != ref {
			continue
		}
		switch ev.Type {
		case effective.Replaced, effective.Kept, effective.Unset:
			return true
		}
	}
	return false
}

// displaced records the warnings about the rules of other policies that path i holds before the
// write (rb) and not after (ra), and returns their numbers: the long way, for the paths whose folds
// before and after are both at hand. after is the snapshot after the write.
func (w *warnings) displaced(after *effective.Snapshot, i int, ra, rb effective.Result) []int {
	var ids []string
	for id, e := range rb.Rules {
		if e.Source == w.ref {
			continue
		}
		if cur, ok := ra.Rules[id]; ok && cur.Source == e.Source {
			continue
		}
		ids = append(ids, id)
	}
	if len(ids) == 0 {
		return nil
	}
	slices.Sort(ids)
	// How each rule left, from one pass over the events after.
	type ruleOf struct {
		owner policy.Ref
		id    string // a rule id, or a block name for a block replaced whole
	}
	how := map[ruleOf]string{}
	overridden := map[ruleOf]bool{}
	for k := range ra.Events {
		ev := &ra.Events[k]
		switch {
		case ev.Other == nil:
		case ev.Policy == w.ref && (ev.Type == effective.Overridden || ev.Type == effective.Clipped):
			overridden[ruleOf{*ev.Other, ev.Rule}] = true
		case ev.Policy == w.ref || *ev.Other != w.ref:
		case ev.Type == effective.Unset:
			how[ruleOf{ev.Policy, ev.Rule}] = displaceUnset
		case ev.Type == effective.Kept:
			if _, ok := how[ruleOf{ev.Policy, ev.Rule}]; !ok {
				how[ruleOf{ev.Policy, ev.Rule}] = displaceReplaced
			}
		case ev.Type == effective.Replaced && ev.Rule == "":
			how[ruleOf{ev.Policy, "block:" + ev.Block}] = displaceReplaced
		}
	}
	var d displacements
	for _, id := range ids {
		e := rb.Rules[id]
		if overridden[ruleOf{e.Source, id}] {
			continue // spec.overrides replaces rule … of owner: said already
		}
		verb, ok := how[ruleOf{e.Source, id}]
		if !ok {
			verb, ok = how[ruleOf{e.Source, "block:" + e.Block}]
		}
		if !ok || w.deleted {
			verb = displaceOther
		}
		d.add(verb, e.Source, id)
	}
	return w.record(after, i, d)
}

// displacedMentions is displaced the short way, for a path whose fold after the write is not at
// hand, only the events that name the written policy (m) and the fold before (rb, memoized on the
// snapshot of the policies in force): another policy's default that ref's rules keep out or that
// ref unsets, and another policy's atomic defaults that ref's rules replace, where they were in
// effect before. A policy's rules leave a path's effective policy at its own level and do not come
// back from higher ones, so the fold after has nothing to add.
func (w *warnings) displacedMentions(after *effective.Snapshot, i int, m *effective.Mentions, rb effective.Result) []int {
	var d displacements
	was := func(owner policy.Ref, id string) bool {
		e, ok := rb.Rules[id]
		return ok && e.Source == owner
	}
	for k := range m.Events {
		ev := &m.Events[k]
		if ev.Policy == w.ref || ev.Other == nil || *ev.Other != w.ref {
			continue
		}
		switch ev.Type {
		case effective.Unset:
			if was(ev.Policy, ev.Rule) {
				d.add(displaceUnset, ev.Policy, ev.Rule)
			}
		case effective.Kept:
			if was(ev.Policy, ev.Rule) {
				d.add(displaceReplaced, ev.Policy, ev.Rule)
			}
		case effective.Replaced:
			p, ok := after.Policy(ev.Policy)
			if !ok {
				continue
			}
			for id, e := range rb.Rules {
				if e.Source == ev.Policy && e.Block == ev.Block && effective.Declares(p, ev.Block, id) {
					d.add(displaceReplaced, ev.Policy, id)
				}
			}
		}
	}
	return w.record(after, i, d)
}

// displacements are the rules of other policies one path loses, with how.
type displacements []displacement

type displacement struct {
	verb  string
	owner policy.Ref
	id    string
}

func (d *displacements) add(verb string, owner policy.Ref, id string) {
	*d = append(*d, displacement{verb, owner, id})
}

// record adds the displacements of path i to the warnings and returns their numbers.
func (w *warnings) record(after *effective.Snapshot, i int, d displacements) []int {
	if len(d) == 0 {
		return nil
	}
	slices.SortStableFunc(d, func(a, b displacement) int { return strings.Compare(a.id, b.id) })
	var out []int
	var levels []effective.LeveledPolicies // read when a reason needs them
	for _, x := range d {
		k := dispKey{verb: x.verb, owner: x.owner}
		if x.verb != displaceOther {
			if levels == nil {
				levels = after.Levels(after.Graph.Paths[i])
			}
			same := sameLevel(levels, x.owner, w.ref)
			k.reason = w.reason(x.verb, same)
			k.byDesign = x.verb == displaceReplaced && !same
		}
		n, ok := w.dindex[k]
		if !ok {
			if w.dindex == nil {
				w.dindex = make(map[dispKey]int, 4)
			}
			n = len(w.all)
			w.dindex[k] = n
			w.all = append(w.all, note{disp: &k})
		}
		w.all[n].rules.add(x.id)
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// sameLevel reports whether a and b are attached at the same level of a path.
func sameLevel(levels []effective.LeveledPolicies, a, b policy.Ref) bool {
	for _, lv := range levels {
		var hasA, hasB bool
		for _, p := range lv.Policies {
			hasA = hasA || p.Ref == a
			hasB = hasB || p.Ref == b
		}
		if hasA || hasB {
			return hasA && hasB
		}
	}
	return false
}

// reason is why a rule of another policy gives way to the written policy, in the words of the
// written kind's model.
func (w *warnings) reason(verb string, same bool) string {
	switch {
	case verb == displaceUnset:
		return w.model + ": a more specific policy's unset removes a default"
	case same && namesSameTarget(w.fold):
		return w.model + ": " + w.fold.(namedFold).SameTarget()
	case same:
		return w.model + ": the oldest policy on one target wins"
	}
	return w.model + ": a more specific policy's rules replace defaults"
}

// namedFold is a model's own fold (policy.Fold) that names itself in displacement warnings: its
// model's name and which of two policies on one target wins.
type namedFold interface {
	String() string
	SameTarget() string
}

func namesSameTarget(f policy.Fold) bool {
	_, ok := f.(namedFold)
	return ok
}

// modelName is how displacement warnings name a fold.
func modelName(f policy.Fold) string {
	if n, ok := f.(namedFold); ok {
		return n.String()
	}
	switch f {
	case policy.FoldFields:
		return "GEP-713"
	}
	return "defaults-overrides"
}

// renderDisplaced is the text of a displacement warning: "replaces shop/a's `x` and `y` on route
// shop/cart (Kuadrant: the newer policy on one target wins)".
func (w *warnings) renderDisplaced(k dispKey, rules []string, place string, deleted bool) string {
	var b strings.Builder
	if deleted {
		b.WriteString("removing this policy ")
	}
	b.WriteString(k.verb)
	b.WriteString(" ")
	b.WriteString(printable.String(k.owner.String()))
	b.WriteString("'s ")
	b.WriteString(ruleList(rules))
	b.WriteString(" on ")
	b.WriteString(place)
	if k.reason != "" {
		b.WriteString(" (")
		b.WriteString(k.reason)
		b.WriteString(")")
	}
	return b.String()
}

// ruleList names rule ids briefly, sorted: "`a`", "`a` and `b`", "`a`, `b`, `c` and 4 more".
func ruleList(ids []string) string {
	ids = slices.Sorted(slices.Values(ids))
	const show = 3
	quoted := make([]string, 0, show)
	for _, id := range ids[:min(show, len(ids))] {
		quoted = append(quoted, "`"+printable.String(id)+"`")
	}
	switch {
	case len(ids) == 1:
		return quoted[0]
	case len(ids) <= show:
		return strings.Join(quoted[:len(quoted)-1], ", ") + " and " + quoted[len(quoted)-1]
	}
	return strings.Join(quoted, ", ") + " and " + strconv.Itoa(len(ids)-show) + " more"
}
