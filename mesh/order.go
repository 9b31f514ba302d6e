package mesh

import (
	"sort"
	"strings"
)

// Entry is one element of the concatenated to (or from) array of a proxy, with the policy it
// came from and its path in that policy.
type Entry struct {
	Policy  *Policy
	Index   int // index of the element in the policy's array
	Element *Element
}

// Path is the entry's field path in its policy, e.g. "spec.to[1]".
func (e *Entry) Path(d Direction) string { return ElementPath(d, e.Index) }

// nameOrder decides, within one level, which of two policy names has priority.
type nameOrder func(a, b string) bool

// laterNameFirst is the MADR's order: the name that sorts later has priority.
func laterNameFirst(a, b string) bool { return a > b }

// smallerNameFirst is current Kuma's order: the name that sorts first has priority.
func smallerNameFirst(a, b string) bool { return a < b }

// Order returns the policies of kind whose top-level targetRef selects proxy, highest priority
// first: the most specific level first (Proxy, ServiceSubset, Service, MeshSubset, Mesh), and
// within one level the policy whose name sorts later first (then namespace, likewise).
func Order(kind string, policies []Policy, proxy *Dataplane) []*Policy {
	return order(kind, policies, proxy, laterNameFirst)
}

func order(kind string, policies []Policy, proxy *Dataplane, before nameOrder) []*Policy {
	var out []*Policy
	for i := range policies {
		p := &policies[i]
		if p.Kind == kind && p.TargetRef.SelectsProxy(proxy) {
			out = append(out, p)
		}
	}
	sort.Slice(out, func(i, j int) bool { return higher(out[i], out[j], before) })
	return out
}

// higher says whether policy a has priority over policy b.
func higher(a, b *Policy, before nameOrder) bool {
	la, lb := level(a.TargetRef.Kind), level(b.TargetRef.Kind)
	if la != lb {
		return la > lb
	}
	if a.Name != b.Name {
		return before(a.Name, b.Name)
	}
	if a.Namespace != b.Namespace {
		return before(a.Namespace, b.Namespace)
	}
	return false
}

// Entries concatenates the direction's arrays of the ordered policies, highest priority first,
// each array in its own order.
func Entries(ordered []*Policy, d Direction) []Entry {
	n := 0
	for _, p := range ordered {
		n += len(p.Elements(d))
	}
	out := make([]Entry, 0, n)
	for _, p := range ordered {
		elems := p.Elements(d)
		for i := range elems {
			out = append(out, Entry{Policy: p, Index: i, Element: &elems[i]})
		}
	}
	return out
}

// joinPath appends a field name to a dotted path.
func joinPath(prefix, name string) string {
	if prefix == "" {
		return name
	}
	var b strings.Builder
	b.Grow(len(prefix) + 1 + len(name))
	b.WriteString(prefix)
	b.WriteByte('.')
	b.WriteString(name)
	return b.String()
}
