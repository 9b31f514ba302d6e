package engine

import "sort"

// headMark stands, in a merge of the tail's entries, for a claim of the head (heads.go).
const headMark = -2

// tailReady says whether a mesh-level policy is one whose write meshWrite answers, and one that
// can sit in the tail of such a write: it selects every Dataplane (no proxyTypes, no namespace
// rule), has no from entries, and each to element targets the whole Mesh (selects every outbound).
func tailReady(p *Policy) bool {
	if !meshLevel(p) || len(p.TargetRef.ProxyTypes) > 0 || p.Kuma() && (p.Role == RoleConsumer || p.Role == RoleWorkloadOwner) {
		return false
	}
	if len(Entries([]*Policy{p}, From)) > 0 {
		return false
	}
	for i := range p.To {
		if p.To[i].TargetRef.Kind != Mesh {
			return false
		}
	}
	return true
}

// tailStat is one tail element's outcome over every (class, outbound) pair: whether it selected
// one with fields to set, whether it set a field, the leaves that a head claimed somewhere (with
// their prefixes) and the tail elements that blocked it.
type tailStat struct {
	selected, effective bool
	head                map[string][]string
	by                  map[elemKey]bool
}

// meshWrite answers WriteWarnings for a write of a mesh-level policy that selects every Dataplane
// (tailReady), in a mesh whose mesh-level policies are all tailReady, from the heads' sums: it
// merges the tail (the mesh-level policies after the write) once per shape of the heads, and
// names the head elements that block the tail through the cells they claim. Its cost follows the
// number of shapes and mesh-level policies, not of classes. ok is false when the write or the
// mesh is not of that form (or the index keeps Kuma's MeshTrafficPermission rules).
func (x *Index) meshWrite(written *Policy, advice []string, capped bool) (lines []string, ok bool) {
	if x.perms || !tailReady(written) {
		return nil, false
	}
	oldE, _ := x.pols.Get(written.ID())
	if oldE.p != nil && !tailReady(oldE.p) {
		return nil, false
	}
	wild, _ := x.polBy.Get(selKey{kind: '*'})
	tail := []*Policy{written}
	for _, pe := range wild {
		if pe.p == oldE.p || !meshLevel(pe.p) {
			continue
		}
		if !tailReady(pe.p) {
			return nil, false
		}
		tail = append(tail, pe.p)
	}
	sort.SliceStable(tail, func(a, b int) bool { return higher(tail[a], tail[b]) })
	stats := x.tailStats(EntriesAt(x.version, tail, To))
	same := func(p *Policy) bool {
		return p.Kind == written.Kind && p.Namespace == written.Namespace && p.Name == written.Name
	}
	// Before the write only which warnings there were matters (writeLines keeps a warning of
	// another policy only when it is new); the heads' policies keep theirs, and no warning of
	// theirs can name a mesh-level policy, which sits below them.
	var before []Warning
	was := map[string]bool{}
	for _, p := range tail {
		if p == written {
			continue
		}
		base, _ := x.agg.Get(p)
		for _, w := range (sums{base: base}).warnings(p, nil) {
			before = append(before, w.w)
			was[w.w.Ref.Kind+" "+w.w.ID()+" "+w.w.Path] = true
		}
	}
	byPolicy := map[*Policy][]elemKey{}
	for k := range stats {
		byPolicy[k.p] = append(byPolicy[k.p], k)
	}
	var after []sortable
	for _, p := range tail {
		keep := func(r Ref, names bool) bool {
			return p == written || (!was[r.Kind+" "+r.ID()+" "+r.Path] && names)
		}
		after = append(after, x.tailWarnings(p, byPolicy[p], stats, same, keep)...)
	}
	afterW := sortWarnings(after)
	more := make([]int, len(after))
	for i := range after {
		more[i] = after[i].more
	}
	return writeLines(written, advice, before, afterW, more, capped), true
}

// tailStats merges the tail's to entries once per shape of the heads, on top of the shape's
// claims, and sums each element's outcomes.
func (x *Index) tailStats(entries []Entry) map[elemKey]*tailStat {
	out := map[elemKey]*tailStat{}
	for it := x.shapes.Iterator(); !it.Done(); {
		_, sc, _ := it.Next()
		m := newMerger()
		for _, c := range sc.cells {
			m.claims[c[1:]] = claim{by: headMark, object: c[0] == 'O'}
		}
		for i := range entries {
			e := &entries[i]
			leaves := e.Element.leaves
			if leaves == nil {
				leaves = flatten(e.Element.Conf)
			}
			if len(leaves) == 0 {
				continue
			}
			k := e.key(To)
			s := out[k]
			if s == nil {
				s = &tailStat{head: map[string][]string{}, by: map[elemKey]bool{}}
				out[k] = s
			}
			s.selected = true
			for li := range leaves {
				l := &leaves[li]
				switch by := m.claimer(l); by {
				case -1:
					m.claim(i, l)
					s.effective = true
				case headMark:
					s.head[l.path] = l.prefixes
				default:
					s.by[entries[by].key(To)] = true
				}
			}
		}
	}
	return out
}

// headCells are the cells whose claimers block these leaves somewhere: the leaf's path claimed
// (by a leaf or below it), or a prefix of it claimed by a leaf.
func headCells(into map[string]bool, leaves map[string][]string) {
	for path, prefixes := range leaves {
		into[leafCell(path)], into[objectCell(path)] = true, true
		for _, p := range prefixes {
			into[leafCell(p)] = true
		}
	}
}

// tailWarnings are the warnings of tail policy p after the write, as sums.warnings gives them:
// the whole policy when none of its elements sets a field and another policy blocks one,
// else each element that sets none. keep is given each warning's Ref and whether it names the
// written policy. By lists the first head elements (or policies) and every tail one; more counts
// the head's left out.
func (x *Index) tailWarnings(p *Policy, keys []elemKey, stats map[elemKey]*tailStat, same func(*Policy) bool, keep func(Ref, bool) bool) []sortable {
	effective := false
	var elems []elemKey
	for _, k := range keys {
		switch s := stats[k]; {
		case !s.selected:
		case s.effective:
			effective = true
		default:
			elems = append(elems, k)
		}
	}
	if len(elems) == 0 {
		return nil
	}
	cells := map[string]bool{}
	tailBy := map[*Policy]bool{}
	for _, k := range elems {
		headCells(cells, stats[k].head)
		for b := range stats[k].by {
			if b.p != p {
				tailBy[b.p] = true
			}
		}
	}
	if effective || len(cells) == 0 && len(tailBy) == 0 {
		return x.elementWarnings(p, elems, stats, same, keep)
	}
	w := Warning{Ref: policyRef(p, "")}
	names := false
	for b := range tailBy {
		names = names || same(b)
	}
	if !keep(w.Ref, names) {
		return nil
	}
	total, first := x.headPols.claiming(cells, maxBy)
	for _, b := range first {
		w.By = append(w.By, policyRef(b, ""))
	}
	for _, b := range sortPolicies(tailBy) {
		w.By = append(w.By, policyRef(b, ""))
	}
	return []sortable{{w: w, k: elemKey{p: p, i: -1}, more: total - len(first)}}
}

// elementWarnings are the warnings of elements of p that select some outbound and set no field.
func (x *Index) elementWarnings(p *Policy, elems []elemKey, stats map[elemKey]*tailStat, same func(*Policy) bool, keep func(Ref, bool) bool) []sortable {
	var out []sortable
	for _, k := range elems {
		s := stats[k]
		w := Warning{Ref: policyRef(p, ElementPath(k.d, k.i))}
		names := false
		for b := range s.by {
			names = names || same(b.p)
		}
		if !keep(w.Ref, names) {
			continue
		}
		cells := map[string]bool{}
		headCells(cells, s.head)
		total, first := x.heads.claiming(cells, maxBy)
		for _, b := range first {
			w.By = append(w.By, policyRef(b.p, ElementPath(b.d, b.i)))
		}
		for _, b := range sortElems(s.by) {
			w.By = append(w.By, policyRef(b.p, ElementPath(b.d, b.i)))
		}
		out = append(out, sortable{w: w, k: k, more: total - len(first)})
	}
	return out
}
