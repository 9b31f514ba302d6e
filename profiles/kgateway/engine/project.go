package engine

import (
	"sort"
	"strings"
)

// Reached are the routes whose paths p can reach in v: its target routes, the routes that name it
// in an extensionRef filter, the routes of its target Gateways and ListenerSets, and every route
// delegated to from those, each once, sorted.
func (v View) Reached(p *Policy) []Key {
	var starts []Key
	targets := append([]Target(nil), p.Targets...)
	for _, s := range p.Selectors {
		for _, k := range v.selected(s, p.Ref.Namespace) {
			targets = append(targets, Target{Kind: s.Kind, Name: k.Name, Section: s.Section})
		}
	}
	for _, t := range targets {
		k := Key{p.Ref.Namespace, t.Name}
		switch t.Kind {
		case "HTTPRoute":
			starts = append(starts, k)
		default:
			starts = append(starts, v.roots[k]...)
			if t.Kind == "Gateway" {
				for lk, ls := range v.ListenerSets {
					if ls.Parent == k {
						starts = append(starts, v.roots[lk]...)
					}
				}
			}
		}
	}
	starts = append(starts, v.extUsers[p.Ref]...)
	return v.under(starts)
}

// under are the routes starts and their descendants, each once, sorted.
func (v View) under(starts []Key) []Key {
	seen := map[Key]bool{}
	var out []Key
	for _, s := range starts {
		for _, d := range v.Descendants(s) {
			if !seen[d] {
				seen[d] = true
				out = append(out, d)
			}
		}
	}
	sortKeys(out)
	return out
}

// WriteWarnings are what a write of p (replacing the stored policy of its name, if any) loses on
// the paths it reaches: each field of p that another policy's value displaces, naming the parent
// whose annotation prefers it, or the policy that wins within the level.
func (w *World) WriteWarnings(p *Policy) []string {
	v := View{World: w, Drop: p.Ref, Add: p}
	seen := map[string]bool{}
	var out []string
	for _, rk := range v.Reached(p) {
		for _, path := range v.Paths(rk) {
			res := v.Compute(path)
			for _, d := range res.Displaced {
				if d.Policy != p.Ref {
					continue
				}
				msg := displacedMessage(d, attachedRoute(v, path, p))
				if !seen[msg] {
					seen[msg] = true
					out = append(out, msg)
				}
			}
		}
	}
	sort.Strings(out)
	return append(w.MissingTargets(p), out...)
}

// attachedRoute is where p sits on path: the nearest route of the chain it is attached to, or the
// path's parent when it is attached there.
func attachedRoute(v View, path Path, p *Policy) string {
	levels := v.Levels(path)
	for i, l := range levels {
		for _, x := range l.Policies {
			if x.Ref == p.Ref {
				return levels[i].Owner
			}
		}
	}
	return "route " + path.Leaf().Route.String()
}

func displacedMessage(d Displacement, at string) string {
	if d.Owner == "" {
		return CodeSameLevel.Linef("your `%s` on %s is ignored: TrafficPolicy %s sets it first at the same level (more specific attachment, or older)", d.Field, at, d.By)
	}
	return CodeParentPrefers.Linef("your `%s` on %s is ignored: parent %s sets %s", d.Field, at, d.Owner, d.Mode)
}

// ModeChange is what changing owner's annotation to m does to the routes beneath it: per field,
// the child routes that lose the owner's value (Lost) and those whose own value the owner's now
// replaces (Overridden).
type ModeChange struct {
	Lost, Overridden map[string][]Key
}

// ChangeMode projects a change of the annotation of owner ("route ns/name") to m on the routes
// beneath it; a Gateway's ("gateway ns/name") changes nothing on kgateway 2.2.
func (w *World) ChangeMode(owner string, m Mode) ModeChange { return w.changeMode(owner, nil, m) }

// ChangeModeFrom is ChangeMode from the mode was rather than the stored one: the annotation of the
// object an update replaces, which the cache may not hold yet.
func (w *World) ChangeModeFrom(owner string, was, m Mode) ModeChange {
	return w.changeMode(owner, map[string]Mode{owner: was}, m)
}

func (w *World) changeMode(owner string, from map[string]Mode, m Mode) ModeChange {
	before := View{World: w, Modes: from}
	after := View{World: w, Modes: map[string]Mode{owner: m}}
	out := ModeChange{Lost: map[string][]Key{}, Overridden: map[string][]Key{}}
	kind, name, _ := strings.Cut(owner, " ")
	ns, n, _ := strings.Cut(name, "/")
	k := Key{ns, n}
	if kind != "route" {
		return out // kgateway 2.2 reads the annotation on HTTPRoutes only: a Gateway's changes nothing
	}
	routes := before.under([]Key{k})
	lost, over := map[string]map[Key]bool{}, map[string]map[Key]bool{}
	for _, rk := range routes {
		if rk == k {
			continue
		}
		for _, path := range before.Paths(rk) {
			b, a := before.Compute(path), after.Compute(path)
			ownerRefs := ownerPolicies(before.Levels(path), owner)
			for f, bv := range b.Fields {
				av := a.Fields[f]
				bHas, aHas := anyOf(bv.Sources, ownerRefs), anyOf(av.Sources, ownerRefs)
				switch {
				case bHas && !aHas:
					add(lost, f, rk)
				case !bHas && aHas:
					add(over, f, rk)
				}
			}
		}
	}
	for f, ks := range lost {
		out.Lost[f] = keys(ks)
	}
	for f, ks := range over {
		out.Overridden[f] = keys(ks)
	}
	return out
}

// Warnings render the change, one line per field, sorted.
func (c ModeChange) Warnings() []string {
	var out []string
	for f, ks := range c.Lost {
		out = append(out, CodeModeTakesAway.Linef("this annotation change takes `%s` away from %d child %s", f, len(ks), routesWord(len(ks))))
	}
	for f, ks := range c.Overridden {
		out = append(out, CodeModeOverrides.Linef("this annotation change overrides `%s` of %d child %s with the parent's", f, len(ks), routesWord(len(ks))))
	}
	sort.Strings(out)
	return out
}

func routesWord(n int) string {
	if n == 1 {
		return "route"
	}
	return "routes"
}

func ownerPolicies(levels []Level, owner string) map[Key]bool {
	out := map[Key]bool{}
	for _, l := range levels {
		if l.Owner == owner {
			for _, p := range l.Policies {
				out[p.Ref] = true
			}
		}
	}
	return out
}

func anyOf(ks []Key, in map[Key]bool) bool {
	for _, k := range ks {
		if in[k] {
			return true
		}
	}
	return false
}

func add(m map[string]map[Key]bool, f string, k Key) {
	if m[f] == nil {
		m[f] = map[Key]bool{}
	}
	m[f][k] = true
}

func keys(m map[Key]bool) []Key { return mapKeys(m) }
