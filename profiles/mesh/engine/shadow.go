package engine

import (
	"fmt"
	"sort"
	"strings"

	"github.com/precedent-dev/precedent/internal/warning"
)

// maxBy is how many shadowing elements or policies a warning names before "and N more".
const maxBy = 3

// MaxWarnings is how many warnings WriteWarnings returns before one that counts the rest.
const MaxWarnings = 10

// Ref names one element of a policy (Path "spec.to[0]"), or the whole policy (Path "").
type Ref struct {
	Kind      string
	Namespace string
	Name      string
	Path      string
}

// ID is the referenced policy's namespace/name (its name alone when it has no namespace).
func (r Ref) ID() string {
	if r.Namespace == "" {
		return r.Name
	}
	return r.Namespace + "/" + r.Name
}

// Warning says that an element (or, Path "", a whole policy) can never take effect on any
// Dataplane of the mesh because every field it sets is always decided by a higher-priority
// element; By names those elements (or, for a whole policy, those policies), highest priority first.
type Warning struct {
	Ref
	By []Ref
	// Reason, when set, replaces "every field it sets is decided by %s" (rules warnings, ruleshadow.go).
	Reason string
}

// String renders the warning in one short line, e.g.
// `MeshTimeout web: spec.to[1] never takes effect on any Dataplane: every field it sets is decided by spec.to[0] of base`.
func (w Warning) String() string { return w.line(0) }

// line renders the warning as String does when more of its By were left out of the list.
func (w Warning) line(more int) string {
	names := make([]string, 0, maxBy)
	for i, b := range w.By {
		if i == maxBy {
			break
		}
		if b.Path == "" {
			names = append(names, b.ID())
		} else {
			names = append(names, b.Path+" of "+b.ID())
		}
	}
	by := strings.Join(names, ", ")
	if n := len(w.By) + more - maxBy; n > 0 {
		by += fmt.Sprintf(" and %d more", n)
	}
	reason := "every field it sets is decided by %s"
	if w.Reason != "" {
		reason = w.Reason
	}
	if w.Path == "" {
		return codeNeverTakesEffect.Linef("%s %s never takes effect on any Dataplane: "+reason, w.Kind, w.ID(), by)
	}
	return codeNeverTakesEffect.Linef("%s %s: %s never takes effect on any Dataplane: "+reason, w.Kind, w.ID(), w.Path, by)
}

type elemKey struct {
	p *Policy
	d Direction
	i int
}

type elemStat struct {
	selected  bool // selected some target of some proxy, with fields to set
	effective bool // set a field somewhere
	by        map[elemKey]bool
}

// Shadowed returns a warning per element that can never take effect on any of the Dataplanes
// (it selects some outbound or source of some proxy, and wherever it does every field it sets is
// already set by a higher-priority element), and per whole policy none of whose elements ever
// takes effect (then instead of its elements' warnings). Outbounds are the Dataplanes' declared
// outbounds; sources are the distinct inbound tag sets of the Dataplanes. Elements that set no
// field and elements that select nothing are not reported. Without Dataplanes it returns nil.
func Shadowed(policies []Policy, dataplanes []Dataplane) []Warning {
	return ShadowedAt(Versions[len(Versions)-1], policies, dataplanes)
}

// ShadowedAt is Shadowed predicting Kuma version v (EntriesAt, classPermissions).
func ShadowedAt(v Version, policies []Policy, dataplanes []Dataplane) []Warning {
	if len(dataplanes) == 0 {
		return nil
	}
	stats := map[elemKey]*elemStat{}
	sources := Sources(dataplanes)
	kinds := map[string]bool{}
	for i := range policies {
		kinds[policies[i].Kind] = true
	}
	var permissions []Warning
	for kind := range kinds {
		var classes [][]*Policy
		for di := range dataplanes {
			dp := &dataplanes[di]
			ordered := Order(kind, policies, dp)
			if len(ordered) == 0 {
				continue
			}
			classes = append(classes, ordered)
			for _, d := range []Direction{To, From} {
				entries := EntriesAt(v, ordered, d)
				if len(entries) == 0 {
					continue
				}
				targets := sources
				if d == To {
					targets = make([]Selector, 0, len(dp.Outbound))
					for _, o := range dp.Outbound {
						targets = append(targets, Selector{Service: o[ServiceTag], Tags: o})
					}
				}
				for _, t := range targets {
					simulate(entries, d, t, stats)
				}
			}
		}
		if kind == KindMeshTrafficPermission {
			permissions = append(permissions, permissionShadowed(v, classes)...)
		}
	}
	return append(collect(stats), permissions...)
}

// simulate merges the entries for one target and records each element's outcome.
func simulate(entries []Entry, d Direction, t Selector, stats map[elemKey]*elemStat) {
	out := make([]outcome, len(entries))
	newMerger().run(entries, t, out)
	for i, o := range out {
		if !o.selected || (!o.set && len(o.blocked) == 0) {
			continue
		}
		e := &entries[i]
		k := e.key(d)
		s := stats[k]
		if s == nil {
			s = &elemStat{by: map[elemKey]bool{}}
			stats[k] = s
		}
		s.selected = true
		if o.set {
			s.effective = true
			continue
		}
		for _, b := range o.blocked {
			if b >= 0 {
				s.by[entries[b].key(d)] = true
			}
		}
	}
}

func collect(stats map[elemKey]*elemStat) []Warning {
	type policyStat struct {
		effective bool
		elems     []elemKey
		by        map[*Policy]bool
	}
	policies := map[*Policy]*policyStat{}
	for k, s := range stats {
		ps := policies[k.p]
		if ps == nil {
			ps = &policyStat{by: map[*Policy]bool{}}
			policies[k.p] = ps
		}
		if s.effective {
			ps.effective = true
			continue
		}
		ps.elems = append(ps.elems, k)
		for b := range s.by {
			if b.p != k.p {
				ps.by[b.p] = true
			}
		}
	}
	var list []sortable
	for p, ps := range policies {
		if len(ps.elems) == 0 {
			continue
		}
		if !ps.effective && len(ps.by) > 0 {
			w := Warning{Ref: policyRef(p, "")}
			for _, b := range sortPolicies(ps.by) {
				w.By = append(w.By, policyRef(b, ""))
			}
			list = append(list, sortable{w: w, k: elemKey{p: p, i: -1}})
			continue
		}
		for _, k := range ps.elems {
			w := Warning{Ref: policyRef(p, ElementPath(k.d, k.i))}
			for _, b := range sortElems(stats[k].by) {
				w.By = append(w.By, policyRef(b.p, ElementPath(b.d, b.i)))
			}
			list = append(list, sortable{w: w, k: k})
		}
	}
	return sortWarnings(list)
}

// sortable is a warning with the element it is about (i -1: the whole policy), and how many of
// its By were left out of the list (an index's write of a mesh-level policy lists the first few).
type sortable struct {
	w    Warning
	k    elemKey
	more int
}

// sortWarnings orders warnings by kind, policy and element.
func sortWarnings(list []sortable) []Warning {
	sort.Slice(list, func(i, j int) bool {
		a, b := list[i], list[j]
		if a.w.Kind != b.w.Kind {
			return a.w.Kind < b.w.Kind
		}
		if a.w.ID() != b.w.ID() {
			return a.w.ID() < b.w.ID()
		}
		if a.k.d != b.k.d {
			return a.k.d < b.k.d
		}
		return a.k.i < b.k.i
	})
	out := make([]Warning, len(list))
	for i := range list {
		out[i] = list[i].w
	}
	return out
}

func policyRef(p *Policy, path string) Ref {
	return Ref{Kind: p.Kind, Namespace: p.Namespace, Name: p.Name, Path: path}
}

func sortPolicies(set map[*Policy]bool) []*Policy {
	out := make([]*Policy, 0, len(set))
	for p := range set {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return higher(out[i], out[j]) })
	return out
}

func sortElems(set map[elemKey]bool) []elemKey {
	out := make([]elemKey, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.p != b.p {
			return higher(a.p, b.p)
		}
		if a.d != b.d {
			return a.d < b.d
		}
		return a.i < b.i
	})
	return out
}

// WriteWarnings returns the warnings that concern a write of policy written, as admission warnings:
// its own elements (or itself) that can never take effect, and the elements of other policies that
// this write newly shadows. existing are the policies before the write (an older version of
// written among them is replaced). capped: at most MaxWarnings lines, then one that counts the rest;
// uncapped, every line, for a caller that keeps to a limit of its own (the webhook's warning limit),
// so that two cuts do not miscount.
func WriteWarnings(written Policy, existing []Policy, dataplanes []Dataplane, capped bool) []string {
	return WriteWarningsAt(Versions[len(Versions)-1], written, existing, dataplanes, capped)
}

// WriteWarningsAt is WriteWarnings predicting Kuma version v.
func WriteWarningsAt(v Version, written Policy, existing []Policy, dataplanes []Dataplane, capped bool) []string {
	advice := ruleAdvice(&written)
	if len(dataplanes) == 0 {
		return capLines(advice, capped)
	}
	same := func(p *Policy) bool {
		return p.Kind == written.Kind && p.Namespace == written.Namespace && p.Name == written.Name
	}
	// Kinds do not shadow each other: only the written kind is analysed.
	var kept, after []Policy
	for i := range existing {
		if existing[i].Kind != written.Kind {
			continue
		}
		kept = append(kept, existing[i])
		if !same(&existing[i]) {
			after = append(after, existing[i])
		}
	}
	after = append(after, written)
	return writeLines(&written, advice, ShadowedAt(v, kept, dataplanes), ShadowedAt(v, after, dataplanes), nil, capped)
}

// writeLines renders the warnings of a write of written from the shadowed elements before and after
// it: written's own, and those of other policies that written newly shadows; deduplicated, and
// capped at MaxWarnings lines plus one that counts the rest when capped. more, when set, says per
// warning after how many of its By were left out of its list.
func writeLines(written *Policy, advice []string, before, after []Warning, more []int, capped bool) []string {
	same := func(p *Policy) bool {
		return p.Kind == written.Kind && p.Namespace == written.Namespace && p.Name == written.Name
	}
	was := make(map[string]bool, len(before))
	for _, w := range before {
		was[w.Ref.Kind+" "+w.ID()+" "+w.Path] = true
	}
	lines := append([]string(nil), advice...)
	seen := map[string]bool{}
	for i, w := range after {
		mine := same(&Policy{Kind: w.Kind, Namespace: w.Namespace, Name: w.Name})
		if !mine && (!shadowedBy(w, same) || was[w.Ref.Kind+" "+w.ID()+" "+w.Path]) {
			continue
		}
		n := 0
		if more != nil {
			n = more[i]
		}
		if s := w.line(n); !seen[s] {
			seen[s] = true
			lines = append(lines, s)
		}
	}
	return capLines(lines, capped)
}

// capLines keeps at most MaxWarnings lines plus one that counts the rest, when capped.
func capLines(lines []string, capped bool) []string {
	if capped { // MaxWarnings lines, and one that counts the rest
		lines = warning.Limit{N: MaxWarnings + 1, More: func(_, rest int) string {
			return codeMoreMesh.Linef("%d more mesh policy warnings not shown", rest)
		}}.Apply(lines)
	}
	return lines
}

func shadowedBy(w Warning, same func(*Policy) bool) bool {
	for _, b := range w.By {
		if same(&Policy{Kind: b.Kind, Namespace: b.Namespace, Name: b.Name}) {
			return true
		}
	}
	return false
}
