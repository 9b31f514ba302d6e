package engine

import (
	"cmp"
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/precedent-dev/precedent/internal/warning"
)

// Write is one admission request on a policy: Old nil for a create, New nil for a delete.
type Write struct {
	Old, New *Policy
}

// Projection is the world before and after a write, on the paths the write can reach.
type Projection struct {
	Kind   string
	Write  Write
	Before []Result // per affected path, aligned with After; a zero Result has no Holder
	After  []Result
	// Resolution is where the new policy's targets land (zero for a delete).
	Resolution Resolution
	// Conflicts are the scopes where an older policy of the kind holds the new one off.
	Conflicts []Placed
}

// Project computes the effective policies before and after a write on every path beneath the
// scopes of the old and new policy; its cost depends on those paths, not on the size of the world.
func (s *Snapshot) Project(w Write) Projection {
	p := w.New
	if p == nil {
		p = w.Old
	}
	pr := Projection{Kind: p.Kind, Write: w}
	scopes := map[Scope]bool{}
	var old *Ref
	if w.Old != nil {
		old = &w.Old.Ref
		for _, sc := range s.resolved[p.Kind].get(w.Old.Ref).Scopes {
			scopes[sc] = true
		}
	}
	if w.New != nil {
		pr.Resolution = s.Resolve(w.New)
		for _, sc := range pr.Resolution.Scopes {
			scopes[sc] = true
		}
	}
	before, after := s.base(p.Kind), s.overlay(p.Kind, old, w.New, pr.Resolution.Scopes)
	if w.New != nil {
		for _, sc := range pr.Resolution.Scopes {
			if h := first(after(sc)); h != nil && h != w.New {
				pr.Conflicts = append(pr.Conflicts, Placed{h, sc})
			}
		}
	}
	under := s.index(p.Kind).under
	seen := map[int32]bool{}
	memo := merges{}
	ordered := make([]Scope, 0, len(scopes))
	for sc := range scopes {
		ordered = append(ordered, sc)
	}
	sort.Slice(ordered, func(i, j int) bool { return scopeLess(ordered[i], ordered[j]) })
	total := 0
	for _, sc := range ordered {
		total += len(under.get(sc))
	}
	pr.Before, pr.After = make([]Result, 0, total), make([]Result, 0, total)
	for _, sc := range ordered {
		for _, i := range under.get(sc) {
			if seen[i] {
				continue
			}
			seen[i] = true
			path := s.pathOf(p.Kind, int(i))
			b, _ := s.compute(p.Kind, path, before, memo)
			a, _ := s.compute(p.Kind, path, after, memo)
			pr.Before = append(pr.Before, b)
			pr.After = append(pr.After, a)
		}
	}
	return pr
}

func scopeLess(a, b Scope) bool {
	return cmp.Or(cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name), cmp.Compare(a.Section, b.Section)) < 0
}

// place names what a path is about in a warning: its route, or its listener.
func place(p Path) string {
	if p.RouteKind != "" {
		return "route " + p.Route.String()
	}
	if p.ListenerSet.Name != "" {
		return "listener " + p.ListenerSet.String() + "#" + p.Listener
	}
	return "listener " + p.Gateway.String() + "#" + p.Listener
}

// MissingTarget words a targetRef that names nothing. Envoy Gateway writes no status for a target
// object that does not exist, but when the object exists and its sectionName does not, it writes
// Accepted=False with reason TargetNotFound on the ancestor (internal/gatewayapi/validate.go
// validateGatewayListenerSectionName, validateListenerSetListenerSectionName,
// validateRouteRuleSectionName).
func MissingTarget(ns string, t TargetRef, sectionOnly bool) string {
	sc := Scope{Kind: t.Kind, Namespace: ns, Name: t.Name, Section: t.Section}
	if sectionOnly {
		return fmt.Sprintf("target %s not found: %s %s/%s has no section %s; Envoy Gateway writes Accepted=False (TargetNotFound) on the ancestor", sc, t.Kind, ns, t.Name, t.Section)
	}
	return fmt.Sprintf("target %s not found: Envoy Gateway ignores it and writes no status for it", sc)
}

// Warnings renders a projection: policies and field ids only, never values.
func (pr Projection) Warnings() []string {
	var out []string
	w := pr.Write
	if w.New != nil {
		for _, t := range pr.Resolution.Missing {
			out = append(out, warning.CodeTargetNotFound.Line(MissingTarget(w.New.Ref.Namespace, t, false)))
		}
		for _, t := range pr.Resolution.NoSection {
			out = append(out, warning.CodeTargetNotFound.Line(MissingTarget(w.New.Ref.Namespace, t, true)))
		}
		for _, sc := range pr.Resolution.Ignored {
			out = append(out, codeSelectorIgnored.Linef("targetSelectors match %s is ignored: no ReferenceGrant in %s lets %s from %s reach it", sc, sc.Namespace, w.New.Kind, w.New.Ref.Namespace))
		}
		for _, c := range pr.Conflicts {
			out = append(out, codeConflicted.Linef("will be Conflicted on %s: %s is older and holds it", c.Scope, c.Policy.Ref))
		}
		out = append(out, pr.drops()...)
		out = append(out, pr.displaces()...)
		out = append(out, pr.skips()...)
	}
	if w.New == nil && w.Old != nil {
		out = append(out, pr.losses()...)
	}
	if s := pr.summary(); s != "" {
		out = append(out, s)
	}
	return out
}

// drops is envoyproxy/gateway #8781: a route or rule policy without mergeType replaces the whole
// policy, so the fields a broader policy sets are gone on its paths.
func (pr Projection) drops() []string {
	n := pr.Write.New
	if n.MergeType != "" || pr.Kind == ClientTrafficPolicy {
		return nil
	}
	type key struct{ from, at string }
	lost := map[key]map[string]bool{}
	var order []key
	for _, a := range pr.After {
		if a.Holder != n || a.Scope.Level() < LevelRoute {
			continue
		}
		for _, rp := range a.Replaced {
			for f := range rp.Policy.Fields {
				if _, ok := n.Fields[f]; ok {
					continue
				}
				k := key{rp.Policy.Ref.String(), place(a.Path)}
				if lost[k] == nil {
					lost[k] = map[string]bool{}
					order = append(order, k)
				}
				lost[k][f] = true
			}
		}
	}
	out := make([]string, 0, len(order))
	for _, k := range order {
		out = append(out, codeDrops.Linef("drops %s from %s on %s; set `mergeType: StrategicMerge` to keep it", ticks(lost[k]), k.from, k.at))
	}
	return out
}

// displaces is drops for a policy on a listener or ListenerSet (where mergeType is not allowed):
// the fields of the broader policies it replaces whole on the paths beneath it that were in effect
// there before the write, by policy and by the scope the written policy holds.
func (pr Projection) displaces() []string {
	n := pr.Write.New
	if pr.Kind == ClientTrafficPolicy {
		return nil // a ClientTrafficPolicy claims its listeners; Conflicted says who holds them
	}
	type key struct {
		from string
		at   Scope
	}
	lost := map[key]map[string]bool{}
	var order []key
	for i, a := range pr.After {
		if a.Holder != n || a.Scope.Level() >= LevelRoute || a.Scope.Level() == LevelGateway {
			continue
		}
		for _, rp := range a.Replaced {
			from := rp.Policy.Ref.String()
			was := map[string]bool{} // its fields in effect here before
			for id, src := range pr.Before[i].Sources {
				if src == from {
					was[root(id)] = true
				}
			}
			for f := range rp.Policy.Fields {
				if !was[f] {
					continue
				}
				k := key{from, a.Scope}
				if lost[k] == nil {
					lost[k] = map[string]bool{}
					order = append(order, k)
				}
				lost[k][f] = true
			}
		}
	}
	out := make([]string, 0, len(order))
	for _, k := range order {
		out = append(out, codeReplacesBroader.Linef("replaces %s of %s beneath %s (Envoy Gateway: the most specific policy replaces the broader one whole)", ticks(lost[k]), k.from, k.at))
	}
	return out
}

// skips is the no-chaining rule: a rule-level merge merges into the listener or Gateway policy and
// skips the route-level one.
func (pr Projection) skips() []string {
	seen := map[string]bool{}
	var out []string
	for _, a := range pr.After {
		if a.Holder != pr.Write.New || a.Skipped == nil {
			continue
		}
		msg := fmt.Sprintf("%s on %s skips route-level %s: a merge reaches one parent only", pr.Write.New.MergeType, a.Scope, a.Skipped.Policy.Ref)
		if a.Parent != nil {
			msg += fmt.Sprintf(" (%s)", a.Parent.Ref)
		}
		if !seen[msg] {
			seen[msg] = true
			out = append(out, codeSkips.Line(msg))
		}
	}
	return out
}

// losses says, on a delete, which places lose which fields of the deleted policy.
func (pr Projection) losses() []string {
	old := pr.Write.Old.Ref.String()
	var out []string
	seen := map[string]bool{}
	for i, b := range pr.Before {
		gone := map[string]bool{}
		for id, src := range b.Sources {
			if src == old {
				if _, still := pr.After[i].Sources[id]; !still {
					gone[root(id)] = true
				}
			}
		}
		if len(gone) == 0 {
			continue
		}
		msg := fmt.Sprintf("deleting %s removes %s on %s", old, ticks(gone), place(b.Path))
		if !seen[msg] {
			seen[msg] = true
			out = append(out, codeDeleteRemoves.Line(msg))
		}
	}
	return out
}

// summary counts the places whose effective policy changes, for a Gateway, ListenerSet or listener
// level write.
func (pr Projection) summary() string {
	p := pr.Write.New
	if p == nil {
		p = pr.Write.Old
	}
	broad := false
	for _, t := range p.Targets {
		if t.Kind == "Gateway" || t.Kind == "ListenerSet" {
			broad = true
		}
	}
	for _, sel := range p.Selectors {
		if sel.Kind == "Gateway" || sel.Kind == "ListenerSet" {
			broad = true
		}
	}
	if !broad {
		return ""
	}
	// Only the written policy changed: a path's effective policy changes when its sources do, or
	// when a field it takes from the written policy changed value.
	edited := pr.editedFields()
	changed := map[string]bool{}
	var names []string
	for i, b := range pr.Before {
		a := pr.After[i]
		if sameSources(b.Sources, a.Sources) && !takesEdited(a.Sources, p.Ref.String(), edited) {
			continue
		}
		pl := place(b.Path)
		if !changed[pl] {
			changed[pl] = true
			names = append(names, pl)
		}
	}
	if len(names) == 0 {
		return ""
	}
	sort.Strings(names)
	more := ""
	if len(names) > 3 {
		more = fmt.Sprintf(" and %d more", len(names)-3)
		names = names[:3]
	}
	places := "places"
	if len(changed) == 1 {
		places = "place"
	}
	return codeChangesEffective.Linef("changes the effective %s of %d %s: %s%s", pr.Kind, len(changed), places, strings.Join(names, ", "), more)
}

// editedFields are the top-level fields whose value differs between the old and new policy (all
// of them for a create or delete).
func (pr Projection) editedFields() map[string]bool {
	out := map[string]bool{}
	o, n := pr.Write.Old, pr.Write.New
	if o == nil || n == nil {
		return nil
	}
	for k, v := range o.Fields {
		if nv, ok := n.Fields[k]; !ok || !reflect.DeepEqual(v, nv) {
			out[k] = true
		}
	}
	for k := range n.Fields {
		if _, ok := o.Fields[k]; !ok {
			out[k] = true
		}
	}
	return out
}

func sameSources(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// takesEdited reports whether sources take an edited field from the written policy (edited nil:
// a create or delete, whose sources already differ where it matters).
func takesEdited(sources map[string]string, ref string, edited map[string]bool) bool {
	for id, src := range sources {
		if src == ref && edited[root(id)] {
			return true
		}
	}
	return false
}

func ticks(set map[string]bool) string {
	ids := make([]string, 0, len(set))
	for id := range set {
		ids = append(ids, "`"+id+"`")
	}
	sort.Strings(ids)
	return strings.Join(ids, ", ")
}
