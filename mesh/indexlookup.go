package mesh

import (
	"sort"
	"strings"
)

// polKey is the key a policy's top-level targetRef is indexed under: one thing every Dataplane it
// selects carries (dataplaneKeys), or "*" when it may select any. Route kinds select none (false).
func polKey(r *TargetRef) (string, bool) {
	switch r.Kind {
	case MeshGatewayRoute, HTTPRoute:
		return "", false
	case Service, MeshService, ServiceSubset, MeshServiceSubset:
		if r.Name != "" {
			return "s:" + r.Name, true
		}
	case MeshSubset:
		if len(r.Tags) > 0 {
			return "t:" + firstTag(r.Tags), true
		}
	case Proxy:
		return "n:" + r.Name, true
	case DataplaneRef:
		switch {
		case len(r.Labels) > 0:
			return "l:" + firstTag(r.Labels), true
		case r.Name != "":
			return "n:" + r.Name, true
		}
	}
	return "*", true
}

func newDPEntry(dp *Dataplane) *dpEntry { return &dpEntry{dp, dataplaneKeys(dp)} }

// dataplaneKeys are the keys of polKey that may select dp.
func dataplaneKeys(dp *Dataplane) []string {
	keys := []string{"*", "n:" + dp.Name}
	for k, v := range dp.Labels {
		keys = append(keys, "l:"+k+"="+v)
	}
	for _, in := range dp.Inbound {
		keys = append(keys, "s:"+in[ServiceTag])
		for k, v := range in {
			keys = append(keys, "t:"+k+"="+v)
		}
	}
	return keys
}

// fromKey is the key a from element's targetRef is indexed under: one thing every source it
// selects carries (sourceKeys). Elements that select every source or none tell no sources apart
// and are not indexed (false).
func fromKey(r *TargetRef) (string, bool) {
	switch r.Kind {
	case Service, MeshService, ServiceSubset, MeshServiceSubset:
		return "s:" + r.Name, true
	case MeshSubset:
		if len(r.Tags) > 0 {
			return "t:" + firstTag(r.Tags), true
		}
	}
	return "", false
}

// firstTag is the tag of the smallest key, "k=v".
func firstTag(tags map[string]string) string {
	first := ""
	for k := range tags {
		if first == "" || k < first {
			first = k
		}
	}
	return first + "=" + tags[first]
}

// policiesSelecting returns the indexed policies whose top-level targetRef selects dp, in slot
// order, and the signature of their class.
func (x *Index) policiesSelecting(e *dpEntry) (string, []*Policy) {
	dp := e.dp
	var found []polEntry
	for _, k := range e.keys {
		l, _ := x.polBy.get(k)
		for _, e := range l {
			if e.p.SelectsProxy(dp) {
				found = append(found, e)
			}
		}
	}
	sort.Slice(found, func(i, j int) bool { return found[i].slot < found[j].slot })
	slots := make([]int, 0, len(found))
	out := make([]*Policy, 0, len(found))
	for i, e := range found {
		if i > 0 && found[i-1].p == e.p {
			continue // indexed under one key, but a Dataplane may carry it twice
		}
		slots = append(slots, e.slot)
		out = append(out, e.p)
	}
	return signature(slots), out
}

// candidates returns the members of the smallest set among the tags' (a superset of those
// carrying every tag: callers check each), or all = true when tags is empty.
func candidates(idx pmap[string, keySet], tags map[string]string) (ids keySet, all bool) {
	if len(tags) == 0 {
		return ids, true
	}
	first := true
	for k, v := range tags {
		l, _ := idx.get(k + "=" + v)
		if first || l.len() < ids.len() {
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
		cand, _ = x.inTags.get(ServiceTag + "=" + r.Name)
	case ServiceSubset, MeshServiceSubset:
		tags := map[string]string{ServiceTag: r.Name}
		for k, v := range r.Tags {
			tags[k] = v
		}
		cand, _ = candidates(x.inTags, tags)
	case MeshSubset:
		cand, all = candidates(x.inTags, r.Tags)
	case Proxy:
		cand, _ = x.names.get("name=" + r.Name)
	case DataplaneRef:
		switch {
		case len(r.Labels) > 0:
			cand, _ = candidates(x.labels, r.Labels)
		case r.Name != "":
			cand, _ = x.names.get("name=" + r.Name)
		default:
			all = true
		}
	case Mesh:
		all = true
	}
	var out []*dpEntry
	if all {
		for _, e := range x.dps.all() {
			if p.SelectsProxy(e.dp) {
				out = append(out, e)
			}
		}
		return out
	}
	for k := range cand.all() {
		if e, ok := x.dps.get(k); ok && p.SelectsProxy(e.dp) {
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
		cand, _ = x.srcTags.get(ServiceTag + "=" + r.Name)
	case MeshSubset:
		cand, all = candidates(x.srcTags, r.Tags)
	}
	var out []string
	if all {
		for k, s := range x.sources.all() {
			if r.Selects(&s.sel) {
				out = append(out, k)
			}
		}
		return out
	}
	for k := range cand.all() {
		if s, ok := x.sources.get(k); ok && r.Selects(&s.sel) {
			out = append(out, k)
		}
	}
	return out
}

// groupKey names the group of a source: the indexed from elements that select it.
func (x *Index) groupKey(s *Selector) string {
	var refs []fromRef
	visit := func(k string) {
		l, _ := x.fromBy.get(k)
		for _, f := range l {
			if f.p.From[f.i].TargetRef.Selects(s) {
				refs = append(refs, f)
			}
		}
	}
	visit("s:" + s.service())
	for k, v := range s.Tags {
		visit("t:" + k + "=" + v)
	}
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
