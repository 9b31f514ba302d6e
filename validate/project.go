package validate

import (
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/precedent-dev/precedent/effective"
	"github.com/precedent-dev/precedent/policy"
	"github.com/precedent-dev/precedent/topology"
)

// Project compares the effective policies before and after a write of one policy, on the paths
// that policy reaches (before or after), and returns the warnings of DESIGN.md. written is nil for
// a delete. Warnings name policies, routes and rule ids only, never rule values.
func Project(before *effective.Snapshot, ref policy.Ref, written *policy.Policy) []string {
	var after *effective.Snapshot
	if written != nil {
		after = before.With(written)
	} else {
		after = before.Without(ref)
	}
	paths := map[int]bool{}
	if old, ok := before.Policy(ref); ok {
		for _, i := range before.PathsOf(old) {
			paths[i] = true
		}
	}
	if written != nil {
		for _, i := range after.PathsOf(written) {
			paths[i] = true
		}
	}
	idx := make([]int, 0, len(paths))
	for i := range paths {
		idx = append(idx, i)
	}
	sort.Ints(idx)

	w := &warnings{index: make(map[string]int, 32), order: make([]string, 0, 32), places: make([][]string, 0, 32)}
	if written != nil {
		w.targets(after, written)
	}
	unsetUsed := map[string]bool{}
	changedRoutes := map[topology.Key]bool{}
	// The summary of changed routes is given for Gateway-level writes (before or after) and for
	// deletes only.
	old, hadOld := before.Policy(ref)
	highLevel := (hadOld && isHighLevel(old)) || (written != nil && isHighLevel(written))
	countChanges := written == nil || highLevel
	var edited map[string]bool // rule ids of ref whose body this write changes
	if hadOld && written != nil {
		edited = editedRules(old, written)
	}
	// Paths with the same folds before and after (memoized folds are shared, so the identity of their
	// rule maps tells) have the same warnings and the same change: each pair is looked at once.
	type outcome struct {
		msgs    []int // warnings, by their number in w
		changed bool
	}
	outcomes := map[[2]uintptr]*outcome{}
	var where string
	var lastRoute topology.Key
	for _, i := range idx {
		path := after.Graph.Paths[i]
		ra := after.ComputePath(i)
		compare := countChanges && path.RouteKind != ""
		var rb effective.Result
		key := [2]uintptr{mapID(ra.Rules)}
		if compare {
			rb = before.ComputePath(i)
			key[1] = mapID(rb.Rules)
		}
		o, ok := outcomes[key]
		if !ok {
			o = &outcome{}
			if written != nil {
				for _, ev := range ra.Events {
					if msg := w.event(ev, ref, written.Kind, unsetUsed); msg != "" {
						o.msgs = append(o.msgs, w.number(msg))
					}
				}
			}
			o.changed = compare && !sameRules(rb.Rules, ra.Rules, ref, edited)
			outcomes[key] = o
		}
		if len(o.msgs) > 0 {
			if path.RouteKind == "" || path.Route != lastRoute || where == "" {
				where, lastRoute = describe(path), path.Route // the paths of a route come one after another
			}
			for _, n := range o.msgs {
				w.addAt(n, where)
			}
		}
		if o.changed {
			changedRoutes[path.Route] = true
		}
	}
	if written != nil {
		for i, id := range written.Unset {
			if !unsetUsed[id] && policy.ValidRuleID(written.Kind, id) {
				w.add(fmt.Sprintf("spec.unset[%d]: unset of %s removes nothing: no higher policy sets it as a default on the routes of this policy", i, id))
			}
		}
	}
	// The summary comes first: it is about the whole write, and the warning limit cuts from the end.
	var summary string
	if len(changedRoutes) > 0 { // counted only when countChanges
		verb := "this write changes"
		if written == nil {
			verb = "removing this policy changes"
		}
		summary = fmt.Sprintf("%s the effective %s of %d route%s", verb, kindOf(before, written), len(changedRoutes), plural(len(changedRoutes)))
	}
	if summary == "" {
		return w.list()
	}
	return append([]string{summary}, w.list()...)
}

func kindOf(s *effective.Snapshot, p *policy.Policy) string {
	if p != nil {
		return p.Kind.GVK.Kind
	}
	return s.Kind.GVK.Kind
}

func isHighLevel(p *policy.Policy) bool {
	for _, t := range p.Targets {
		if t.Kind == "Gateway" || t.Kind == "GatewayClass" {
			return true
		}
	}
	return false
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// describe names a path for warnings: "route shop/cart" (rule and listener only when they matter to
// a human reading a warning about a rule-level or listener-only path).
func describe(p topology.Path) string {
	if p.RouteKind == "" {
		return fmt.Sprintf("gateway %s listener %s", p.Gateway, p.Listener)
	}
	return "route " + p.Route.String()
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

// warnings groups messages that differ only in where they happen, and keeps first-seen order.
type warnings struct {
	order  []string   // messages, numbered by first sight
	places [][]string // places of each message
	index  map[string]int
}

func (w *warnings) add(msg string) { w.addAt(w.number(msg), "") }

// number returns the number of msg (a format with one %s for the place, or a plain message).
func (w *warnings) number(msg string) int {
	n, ok := w.index[msg]
	if !ok {
		n = len(w.order)
		w.index[msg] = n
		w.order = append(w.order, msg)
		w.places = append(w.places, nil)
	}
	return n
}

// addAt records message number n at a place ("" for none).
func (w *warnings) addAt(n int, where string) {
	if where == "" {
		return
	}
	for _, p := range w.places[n] {
		if p == where {
			return
		}
	}
	w.places[n] = append(w.places[n], where)
}

func (w *warnings) list() []string {
	out := make([]string, 0, len(w.order))
	for n, msg := range w.order {
		places := w.places[n]
		if !strings.Contains(msg, "%s") {
			out = append(out, msg)
			continue
		}
		out = append(out, fill(msg, places1(places)))
	}
	return out
}

// fill puts place where the format msg has %s, and unescapes its %% (what fmt.Sprintf(msg, place)
// does for these one-verb formats, without the reflection).
func fill(msg, place string) string {
	if !strings.Contains(msg, "%%") {
		return strings.Replace(msg, "%s", place, 1)
	}
	var b strings.Builder
	b.Grow(len(msg) + len(place))
	for i := 0; i < len(msg); i++ {
		if msg[i] == '%' && i+1 < len(msg) {
			switch msg[i+1] {
			case 's':
				b.WriteString(place)
				i++
				continue
			case '%':
				b.WriteByte('%')
				i++
				continue
			}
		}
		b.WriteByte(msg[i])
	}
	return b.String()
}

// places1 renders a list of places briefly: "route a/b", or "3 routes (a/b, a/c, and 1 more)".
func places1(places []string) string {
	if len(places) == 1 {
		return places[0]
	}
	const show = 2
	names := make([]string, 0, show)
	for i, p := range places {
		if i == show {
			break
		}
		names = append(names, p[strings.LastIndex(p, " ")+1:])
	}
	more := ""
	if len(places) > show {
		more = fmt.Sprintf(", and %d more", len(places)-show)
	}
	return fmt.Sprintf("%d paths (%s%s)", len(places), strings.Join(names, ", "), more)
}

func (w *warnings) targets(s *effective.Snapshot, p *policy.Policy) {
	unattached := map[topology.Target]bool{}
	for _, t := range s.Graph.Unattached {
		unattached[t] = true
	}
	for _, r := range p.Targets {
		if r.Group != topology.Group {
			continue
		}
		t := topology.Target{Kind: r.Kind, Namespace: p.Ref.Namespace, Name: r.Name, Section: r.SectionName}
		if r.Kind == "GatewayClass" {
			t.Namespace = ""
		}
		switch {
		case !s.Graph.Exists(t):
			w.add(fmt.Sprintf("%s: target %s not found: the policy has no effect until it exists", r.Path, t))
		case unattached[topology.Target{Kind: t.Kind, Namespace: t.Namespace, Name: t.Name}]:
			w.add(fmt.Sprintf("%s: %s %s is attached to no Gateway listener: the policy has no effect until it is", r.Path, t.Kind, topology.Key{Namespace: t.Namespace, Name: t.Name}))
		}
	}
}

// event returns the warning (a format with one %s for the place) an event of a fold gives about
// the write of ref, or "" for none; an unset of ref that took effect is recorded in unsetUsed.
func (w *warnings) event(ev effective.Event, ref policy.Ref, k policy.Kind, unsetUsed map[string]bool) string {
	if ev.Policy != ref && (ev.Other == nil || *ev.Other != ref) {
		return "" // neither side is the written policy: nothing to say about this write
	}
	if ev.Type == effective.Unset && ev.Other != nil && *ev.Other == ref {
		unsetUsed[ev.Rule] = true
		return ""
	}
	return w.format(ev, ref, k)
}

// mapID is the identity of a map.
func mapID(m map[string]effective.Entry) uintptr { return reflect.ValueOf(m).Pointer() }

// format renders the warning of one event ("" when the event warrants none); %s stands for the place.
func (w *warnings) format(ev effective.Event, ref policy.Ref, k policy.Kind) string {
	other := ""
	if ev.Other != nil {
		other = ev.Other.String()
	}
	kind := k.GVK.Kind
	esc := func(s string) string { return strings.ReplaceAll(s, "%", "%%") } // the text is a format for the place
	// Concatenation, not Sprintf: a Gateway-level write formats a few dozen of these per admission.
	switch {
	case ev.Policy == ref:
		switch ev.Type {
		case effective.Replaced:
			return "spec." + ev.Block + " of this policy are replaced by " + kind + " " + esc(other) + " on %s"
		case effective.Kept:
			return "default rule " + esc(ev.Rule) + " is replaced by " + kind + " " + esc(other) + " on %s"
		case effective.Unset:
			return "default rule " + esc(ev.Rule) + " is unset by " + kind + " " + esc(other) + " on %s"
		case effective.Clipped:
			return "the constraint in spec.overrides clips rule " + esc(ev.Rule) + " of " + kind + " " + esc(other) + " on %s"
		case effective.Overridden:
			return "spec.overrides replaces rule " + esc(ev.Rule) + " of " + kind + " " + esc(other) + " on %s"
		case effective.UnsetIneffective:
			return "the override of " + esc(ev.Rule) + " makes the unset in " + kind + " " + esc(other) + " ineffective on %s"
		case effective.ConditionError:
			return "spec." + ev.Block + ".when does not apply on %s: " + esc(ev.Message)
		}
	case ev.Other != nil && *ev.Other == ref:
		switch ev.Type {
		case effective.Overridden:
			return "rule " + esc(ev.Rule) + " on %s is overridden by " + kind + " " + esc(other0(ev))
		case effective.Clipped:
			return "rule " + esc(ev.Rule) + " on %s is clipped by the constraint of " + kind + " " + esc(other0(ev))
		case effective.UnsetIneffective:
			return "spec.unset of " + esc(ev.Rule) + " has no effect on %s: " + kind + " " + esc(other0(ev)) + " overrides it"
		}
	}
	return ""
}

// other0 is the acting policy of an event seen from the other side.
func other0(ev effective.Event) string { return ev.Policy.String() }

// Limit deduplicates warnings and caps them at n, the last one saying how many were left out.
func Limit(ws []string, n int) []string {
	out := make([]string, 0, len(ws))
	var seen map[string]bool // for long lists; a short one is searched
	if len(ws) > 32 {
		seen = make(map[string]bool, len(ws))
	}
	for i, w := range ws {
		if seen != nil {
			if seen[w] {
				continue
			}
			seen[w] = true
		} else if slices.Contains(ws[:i], w) {
			continue
		}
		out = append(out, truncate(w, 240))
	}
	if n > 0 && len(out) > n {
		rest := len(out) - (n - 1)
		out = append(out[:n-1], fmt.Sprintf("and %d more warnings", rest))
	}
	return out
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n-3] + "..."
}
