package validate

import (
	"slices"
	"strconv"
	"strings"

	"github.com/precedent-dev/precedent/internal/effective"
	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/printable"
	"github.com/precedent-dev/precedent/internal/topology"
	"github.com/precedent-dev/precedent/internal/warning"
)

// warnings collects the warnings of one write in first-seen order. A warning about fold events is
// kept as what it says (msgKey), with the policies on the other side and the places where it
// happens, and rendered once at the end: a Gateway-level write meets the same events on many paths,
// and one line per rule says more within the warning limit than one line per route.
type warnings struct {
	graph      *topology.Graph
	kind       string     // the written kind, as warnings name it
	rulesField string     // the kind's bare rules field ("rules", "limits"), as warnings name it
	ref        policy.Ref // the written policy
	all        []note
	index      map[msgKey]int
	unsetUsed  map[string]bool // rule ids whose unset by ref took effect somewhere
	dindex     map[dispKey]int // displacement warnings (displace.go), by what they say
	model      string          // the written kind's model, as displacement warnings name it
	fold       policy.Fold
	deleted    bool // the write is a delete
	// affected are the paths each rendered line is about (list fills it), by the line; keyOf names
	// a path as the effective policies after the write do, nil when no paths are asked for (the
	// webhook sends lines only, and does not pay for naming the paths).
	affected map[string][]string
	keyOf    func(topology.Path) effective.ItemKey
}

// A note is one warning: a plain message, or one about fold events.
type note struct {
	text string // a plain message; empty for a keyed one
	key  msgKey
	// others are the policies on the other side from the written one, first seen first, with
	// repeats (removed when rendered: the events of a Gateway-level write name them over and over).
	others []*policy.Ref
	places set[int32] // places, by the index of their first path (topology.Graph.PlaceID)
	paths  set[int32] // the paths themselves, by index: the finding's affected paths
	disp   *dispKey   // a displacement of other policies' rules (displace.go), with their ids
	rules  set[string]
}

// msgKey is what a fold event's warning says, but the other policies and the places.
type msgKey struct {
	typ     effective.EventType
	mine    bool   // the written policy acted; else the other policies did
	block   string // the acting block, where the text names it
	rule    string // the rule id
	message string // a condition's error
}

// set is a list without duplicates, in insertion order.
type set[T comparable] struct {
	list []T
	seen map[T]bool // for long lists; a short one is searched
}

func (s *set[T]) add(v T) {
	if n := len(s.list); n > 0 && s.list[n-1] == v {
		return // the usual repeat: the paths of one route come one after another
	}
	switch {
	case s.seen != nil:
		if s.seen[v] {
			return
		}
		s.seen[v] = true
	case slices.Contains(s.list, v):
		return
	case len(s.list) == 16:
		s.seen = make(map[T]bool, 64)
		for _, x := range s.list {
			s.seen[x] = true
		}
		s.seen[v] = true
	}
	s.list = append(s.list, v)
}

// add records a plain message.
func (w *warnings) add(msg string) {
	for _, x := range w.all {
		if x.text == msg {
			return
		}
	}
	w.all = append(w.all, note{text: msg})
}

// addAt records warning number n at path i, once per place (topology.Graph.PlaceID), and the path.
func (w *warnings) addAt(n int, i int) {
	w.all[n].places.add(w.graph.PlaceID(i))
	if w.keyOf != nil {
		w.all[n].paths.add(int32(i))
	}
}

// event returns the number of the warning an event of a fold gives about the write of w.ref, false
// for none; an unset of ref that took effect is recorded in unsetUsed.
func (w *warnings) event(ev *effective.Event) (int, bool) {
	if ev.Type == effective.Unset && ev.Other != nil && *ev.Other == w.ref {
		if w.unsetUsed == nil {
			w.unsetUsed = map[string]bool{}
		}
		w.unsetUsed[ev.Rule] = true
		return 0, false
	}
	var k msgKey
	var other *policy.Ref
	switch {
	case ev.Policy == w.ref:
		switch ev.Type {
		case effective.Replaced, effective.Kept, effective.Unset, effective.Clipped, effective.Overridden, effective.UnsetIneffective, effective.ConditionError:
		default:
			return 0, false
		}
		// Only what the text says goes into the key, so that events saying the same are one warning.
		k = msgKey{typ: ev.Type, mine: true, rule: ev.Rule}
		switch ev.Type {
		case effective.Replaced:
			k.block, k.rule = ev.Block, ""
		case effective.ConditionError:
			k.block, k.rule, k.message = ev.Block, "", ev.Message
		}
		if ev.Type != effective.ConditionError {
			other = ev.Other
		}
	case ev.Other != nil && *ev.Other == w.ref:
		switch ev.Type {
		case effective.Overridden, effective.Clipped, effective.UnsetIneffective:
		default:
			return 0, false
		}
		k = msgKey{typ: ev.Type, rule: ev.Rule}
		other = &ev.Policy
	default:
		return 0, false // neither side is the written policy: nothing to say about this write
	}
	n, ok := w.index[k]
	if !ok {
		if w.index == nil {
			w.index = make(map[msgKey]int, 16)
		}
		n = len(w.all)
		w.index[k] = n
		w.all = append(w.all, note{key: k})
	}
	if other != nil {
		x := &w.all[n]
		if k := len(x.others); k == 0 || (x.others[k-1] != other && *x.others[k-1] != *other) {
			x.others = append(x.others, other)
		}
	}
	return n, true
}

// unsetRemovesNothing records that spec.unset[i], of rule id, took effect nowhere.
func (w *warnings) unsetRemovesNothing(i int, id string) {
	w.add(codeUnsetRemovesNothing.Line("spec.unset[" + strconv.Itoa(i) + "]: unset of " + printable.String(id) + " removes nothing: no higher policy sets it as a default on the routes of this policy"))
}

// summary is the line on how many routes' effective policy the write (or the delete) changes.
func (w *warnings) summary(deleted bool, routes int) string {
	verb := "this write changes"
	if deleted {
		verb = "removing this policy changes"
	}
	return codeSummary.Line(verb + " the effective " + w.kind + " of " + strconv.Itoa(routes) + " route" + plural(routes))
}

// list renders the warnings after the given ones, and records the paths each is about.
func (w *warnings) list(first []string) []string {
	out := append(make([]string, 0, len(first)+len(w.all)), first...)
	for _, x := range w.all {
		if x.text != "" {
			out = append(out, x.text)
			continue
		}
		var line string
		if x.disp != nil {
			c := codeDisplaced
			if x.disp.byDesign {
				c = codeDefaultsGiveWay
			}
			line = c.Line(w.renderDisplaced(*x.disp, x.rules.list, w.places(x.places.list), w.deleted))
		} else {
			line = w.render(x.key, w.policies(x.others), w.places(x.places.list))
		}
		w.affect(line, x.paths.list)
		out = append(out, line)
	}
	return out
}

// MaxAffected is the most paths a warning lists as affected; a Gateway-level write may reach
// thousands.
const MaxAffected = 100

// affect records that line is about the paths ps (indices into the graph's paths, in path order),
// named as `precedent effective` names a path (PathName), at most MaxAffected of them.
func (w *warnings) affect(line string, ps []int32) {
	if w.keyOf == nil || len(ps) == 0 {
		return
	}
	if w.affected == nil {
		w.affected = map[string][]string{}
	}
	names := make([]string, 0, min(len(ps), MaxAffected))
	seen := map[string]bool{}
	for _, i := range ps {
		n := PathName(w.keyOf(w.graph.Paths[i]))
		if !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
		if len(names) == MaxAffected {
			break
		}
	}
	w.affected[line] = names
}

// PathName names the path of an effective policy as the affected paths of a finding do, with the
// parts `precedent effective` shows (the listener and the rule where a policy targets them): the
// Gateway and listener, then the route and rule, "gateway-system/gw/http → shop/cart".
func PathName(k effective.ItemKey) string {
	s := k.Gateway
	if k.Listener != "" {
		s += "/" + k.Listener
	}
	if k.Route != "" {
		s += " → " + k.Route
		if k.Rule != "" {
			s += "/" + k.Rule
		}
	}
	return printable.String(s)
}

// places renders a list of places briefly: "route a/b", "3 routes (a/b, a/c, and 1 more)", or, when
// some are Gateway listeners without routes, "2 places (route a/b, gateway c/d listener l)".
func (w *warnings) places(ps []int32) string {
	if len(ps) == 1 {
		return describe(&w.graph.Paths[ps[0]])
	}
	routes := true
	for _, i := range ps {
		if w.graph.Paths[i].RouteKind == "" {
			routes = false
			break
		}
	}
	const show = 2
	var b strings.Builder
	b.WriteString(strconv.Itoa(len(ps)))
	if routes {
		b.WriteString(" routes (")
	} else {
		b.WriteString(" places (")
	}
	for j, i := range ps[:min(show, len(ps))] {
		if j > 0 {
			b.WriteString(", ")
		}
		if p := &w.graph.Paths[i]; routes {
			b.WriteString(p.Route.String())
		} else {
			b.WriteString(describe(p))
		}
	}
	if len(ps) > show {
		b.WriteString(", and ")
		b.WriteString(strconv.Itoa(len(ps) - show))
		b.WriteString(" more")
	}
	b.WriteString(")")
	return b.String()
}

// policies renders the policies on the other side briefly: "AuthPolicy a/b", "AuthPolicy a/b and
// c/d", or "AuthPolicy a/b, c/d and 3 more".
func (w *warnings) policies(refs []*policy.Ref) string {
	var distinct set[policy.Ref]
	for _, r := range refs {
		distinct.add(*r)
	}
	ds := distinct.list
	switch len(ds) {
	case 0:
		return w.kind
	case 1:
		return w.kind + " " + ds[0].String()
	case 2:
		return w.kind + " " + ds[0].String() + " and " + ds[1].String()
	}
	return w.kind + " " + ds[0].String() + ", " + ds[1].String() + " and " + strconv.Itoa(len(ds)-2) + " more"
}

// render is the text of the warning k with the policies on the other side and the place.
func (w *warnings) render(k msgKey, other, place string) string {
	rule := printable.String(k.rule) // rule ids are map keys: anything a YAML key can hold
	if k.mine {
		switch k.typ {
		case effective.Replaced:
			block := k.block
			if block == "rules" && w.rulesField != "" {
				block = w.rulesField // bare rules, named by the kind's field (spec.limits)
			}
			return codeReplaced.Line("spec." + block + " of this policy are replaced by " + other + " on " + place)
		case effective.Kept:
			return codeReplaced.Line("default rule " + rule + " is replaced by " + other + " on " + place)
		case effective.Unset:
			return codeDefaultUnset.Line("default rule " + rule + " is unset by " + other + " on " + place)
		case effective.Clipped:
			return codeClipsOthers.Line("the constraint in spec.overrides clips rule " + rule + " of " + other + " on " + place)
		case effective.Overridden:
			return codeOverridesOthers.Line("spec.overrides replaces rule " + rule + " of " + other + " on " + place)
		case effective.UnsetIneffective:
			return codeMakesUnsetIneffective.Line("the override of " + rule + " makes the unset in " + other + " ineffective on " + place)
		default: // effective.ConditionError
			return codeConditionError.Line("spec." + k.block + ".when does not apply on " + place + ": " + printable.String(k.message))
		}
	}
	switch k.typ {
	case effective.Overridden:
		return codeOverridden.Line("rule " + rule + " on " + place + " is overridden by " + other)
	case effective.Clipped:
		return codeClipped.Line("rule " + rule + " on " + place + " is clipped by the constraint of " + other)
	default: // effective.UnsetIneffective
		return codeUnsetIneffective.Line("spec.unset of " + rule + " has no effect on " + place + ": " + other + " overrides it")
	}
}

func (w *warnings) targets(s *effective.Snapshot, p *policy.Policy) {
	for _, r := range p.Targets {
		t, ok := effective.TargetOf(p, r)
		switch {
		case !ok:
		case !s.Graph.Exists(t):
			w.add(warning.TargetNotFound(r.Path.String(), t.String()))
		case s.Graph.IsUnattached(t):
			w.add(codeUnattached.Line(r.Path.String() + ": " + t.Kind + " " + topology.Key{Namespace: t.Namespace, Name: t.Name}.String() + " is attached to no Gateway listener: the policy has no effect until it is"))
		}
	}
	w.otherControllers(s, p)
}

// otherControllers warns when every path p's targets reach is through Gateways of GatewayClasses
// whose controllers p's kind does not apply to. It costs nothing for a kind that applies to any.
func (w *warnings) otherControllers(s *effective.Snapshot, p *policy.Policy) {
	c := s.Kind.Controllers()
	if c == nil {
		return
	}
	for _, r := range p.Targets { // allocation-free: most policies reach a served path
		if t, ok := effective.TargetOf(p, r); ok && len(s.PathsFor(t)) > 0 {
			return
		}
	}
	var un []int
	for _, t := range effective.TargetsOf(p) {
		un = s.Graph.Union(un, s.Unserved(t))
	}
	if len(un) > 0 {
		w.add(topology.OtherControllers(s.Kind.String(), s.Graph.ClassesOf(un), c))
	}
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// describe names a path for warnings: "route shop/cart" (rule and listener only when they matter to
// a human reading a warning about a rule-level or listener-only path).
func describe(p *topology.Path) string {
	if p.RouteKind == "" && p.ListenerSet.Name != "" {
		return "listenerset " + p.ListenerSet.String() + " listener " + p.Listener
	}
	if p.RouteKind == "" {
		return "gateway " + p.Gateway.String() + " listener " + p.Listener
	}
	return "route " + p.Route.String()
}

// Limit deduplicates warnings and caps them at n (warning.Limit), the last one saying how many were
// left out. Notes count like warnings (the webhook drops them afterwards unless asked for them).
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
		out = append(out, truncate(w, maxWarningLen))
	}
	return warning.Limit{N: n, More: func(_, rest int) string { return codeMoreWarnings.Linef("and %d more warnings", rest) }}.Apply(out)
}

// maxWarningLen is the longest warning line Limit keeps whole.
const maxWarningLen = 240

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n-3] + "..."
}
