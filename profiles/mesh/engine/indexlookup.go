package engine

import (
	"slices"
	"sort"
	"strings"

	"github.com/benbjohnson/immutable"
)

// selKey is what a targetRef selects by: a name ('n'), a label k=v ('l'), a service ('s'), an
// inbound tag k=v ('t'), or anything ('*').
type selKey struct {
	kind byte
	k, v string
}

// polKey is the key a policy's top-level targetRef is indexed under: one thing every Dataplane it
// selects carries (dataplaneKeys), or '*' when it may select any. Route kinds select none (false).
func polKey(r *TargetRef) (selKey, bool) {
	switch r.Kind {
	case MeshGatewayRoute, HTTPRoute:
		return selKey{}, false
	case Service, MeshService, ServiceSubset, MeshServiceSubset:
		if r.Name != "" {
			return selKey{kind: 's', k: r.Name}, true
		}
	case MeshSubset:
		if len(r.Tags) > 0 {
			return firstTag('t', r.Tags), true
		}
	case Proxy:
		return selKey{kind: 'n', k: r.Name}, true
	case DataplaneRef:
		switch {
		case len(r.Labels) > 0:
			return firstTag('l', r.Labels), true
		case r.Name != "":
			return selKey{kind: 'n', k: r.Name}, true
		}
	}
	return selKey{kind: '*'}, true
}

func newDPEntry(dp *Dataplane) *dpEntry { return &dpEntry{dp, dataplaneKeys(dp)} }

// dataplaneKeys are the keys of polKey that may select dp.
func dataplaneKeys(dp *Dataplane) []selKey {
	n := 2 + len(dp.Labels)
	for _, in := range dp.Inbound {
		n += 1 + len(in)
	}
	keys := make([]selKey, 0, n)
	keys = append(keys, selKey{kind: '*'}, selKey{kind: 'n', k: dp.Name})
	for k, v := range dp.Labels {
		keys = append(keys, selKey{'l', k, v})
	}
	for _, in := range dp.selectableTags() {
		keys = append(keys, selKey{kind: 's', k: in[ServiceTag]})
		for k, v := range in {
			keys = append(keys, selKey{'t', k, v})
		}
	}
	return keys
}

// fromKey is the key a from element's targetRef is indexed under: one thing every source it
// selects carries (groupKey visits them). Elements that select every source or none tell no
// sources apart and are not indexed (false).
func fromKey(r *TargetRef) (selKey, bool) {
	switch r.Kind {
	case Service, MeshService, ServiceSubset, MeshServiceSubset:
		return selKey{kind: 's', k: r.Name}, true
	case MeshSubset:
		if len(r.Tags) > 0 {
			return firstTag('t', r.Tags), true
		}
	}
	return selKey{}, false
}

// firstTag is the key of the tag of the smallest name.
func firstTag(kind byte, tags map[string]string) selKey {
	first := ""
	for k := range tags {
		if first == "" || k < first {
			first = k
		}
	}
	return selKey{kind, first, tags[first]}
}

// policiesSelecting returns the indexed policies whose top-level targetRef selects a Dataplane, in
// slot order, and the signature of their class.
func (x *Index) policiesSelecting(e *dpEntry) (string, []polEntry) {
	var found []polEntry
	for _, k := range e.keys {
		l, _ := x.polBy.Get(k)
		for _, pe := range l {
			if pe.p.SelectsProxy(e.dp) {
				found = append(found, pe)
			}
		}
	}
	slices.SortFunc(found, func(a, b polEntry) int { return a.slot - b.slot })
	found = slices.CompactFunc(found, func(a, b polEntry) bool { return a.p == b.p }) // a Dataplane may carry a key twice
	var b strings.Builder
	b.Grow(4 * len(found))
	for _, pe := range found {
		writeSlot(&b, pe.slot)
	}
	return b.String(), found
}

// policiesOf returns the policies of entries.
func policiesOf(entries []polEntry) []*Policy {
	out := make([]*Policy, len(entries))
	for i, pe := range entries {
		out[i] = pe.p
	}
	return out
}

// candidates returns the members of the smallest set among the tags' (a superset of those
// carrying every tag: callers check each), or all = true when tags is empty.
func candidates(idx immutable.Map[string, keySet], tags map[string]string) (ids keySet, all bool) {
	if len(tags) == 0 {
		return ids, true
	}
	first := true
	for k, v := range tags {
		l, _ := idx.Get(k + "=" + v)
		if first || l.Len() < ids.Len() {
			ids, first = l, false
		}
	}
	return ids, false
}

// selectedBy returns the Dataplanes p's top-level targetRef selects, visiting only the candidates
// the indexes give for its kind.
func (x *Index) selectedBy(p *Policy) []*dpEntry {
	var cand keySet
	all := false
	r := &p.TargetRef
	switch r.Kind {
	case Service, MeshService:
		cand, _ = x.inTags.Get(ServiceTag + "=" + r.Name)
	case ServiceSubset, MeshServiceSubset:
		tags := map[string]string{ServiceTag: r.Name}
		for k, v := range r.Tags {
			tags[k] = v
		}
		cand, _ = candidates(x.inTags, tags)
	case MeshSubset:
		cand, all = candidates(x.inTags, r.Tags)
	case Proxy:
		cand, _ = x.names.Get("name=" + r.Name)
	case DataplaneRef:
		switch {
		case len(r.Labels) > 0:
			cand, _ = candidates(x.labels, r.Labels)
		case r.Name != "":
			cand, _ = x.names.Get("name=" + r.Name)
		default:
			all = true
		}
	case Mesh:
		all = true
	}
	var out []*dpEntry
	if all {
		for it := x.dps.Iterator(); !it.Done(); {
			_, e, _ := it.Next()
			if p.SelectsProxy(e.dp) {
				out = append(out, e)
			}
		}
		return out
	}
	for it := cand.Iterator(); !it.Done(); {
		k, _, _ := it.Next()
		if e, ok := x.dps.Get(k); ok && p.SelectsProxy(e.dp) {
			out = append(out, e)
		}
	}
	return out
}

// sourcesSelectedBy returns the sources an element targetRef selects, by key, through the tag index.
func (x *Index) sourcesSelectedBy(r *TargetRef) []string {
	var cand keySet
	all := false
	switch r.Kind {
	case Mesh:
		all = true
	case Service, MeshService, ServiceSubset, MeshServiceSubset:
		cand, _ = x.srcTags.Get(ServiceTag + "=" + r.Name)
	case MeshSubset:
		cand, all = candidates(x.srcTags, r.Tags)
	}
	var out []string
	if all {
		for it := x.sources.Iterator(); !it.Done(); {
			k, s, _ := it.Next()
			if r.Selects(&s.sel) {
				out = append(out, k)
			}
		}
		return out
	}
	for it := cand.Iterator(); !it.Done(); {
		k, _, _ := it.Next()
		if s, ok := x.sources.Get(k); ok && r.Selects(&s.sel) {
			out = append(out, k)
		}
	}
	return out
}

// groupKey names the group of a source: the indexed from elements that select it.
func (x *Index) groupKey(s *Selector) string {
	refs := x.fromRefsSelecting(s)
	sort.Slice(refs, func(i, j int) bool {
		if refs[i].slot != refs[j].slot {
			return refs[i].slot < refs[j].slot
		}
		return refs[i].i < refs[j].i
	})
	var b strings.Builder
	for _, f := range refs {
		b.WriteString(signature([]int{f.slot, f.i}))
	}
	return b.String()
}
