package engine

// sums is one policy's per-element counts as a write leaves them: the index's sums (base) with the
// write's change on top, read without copying either.
type sums struct {
	base, change map[elemKey]*counts
}

// addDelta adds (sign 1) or subtracts (sign -1) a class's contribution to a write's change. Unlike
// addCounts it keeps the elements whose counts reach zero: a change is added to sums, not read
// alone, and an element's blockers may change while its counts do not.
func addDelta(change map[*Policy]map[elemKey]*counts, contrib map[elemKey]*counts, sign int) {
	addEach(change, contrib, func(m map[elemKey]*counts, k elemKey, c *counts) { addTo(m, k, c, sign) })
}

// each calls f with every element's summed selected and effective counts.
func (s sums) each(f func(k elemKey, selected, effective int)) {
	for k, b := range s.base {
		sel, eff := b.selected, b.effective
		if c := s.change[k]; c != nil {
			sel, eff = sel+c.selected, eff+c.effective
		}
		f(k, sel, eff)
	}
	for k, c := range s.change {
		if _, ok := s.base[k]; !ok {
			f(k, c.selected, c.effective)
		}
	}
}

// blocks reports whether f is true of some element that blocks element k in the sums.
func (s sums) blocks(k elemKey, f func(b elemKey) bool) bool {
	var base, change map[elemKey]int
	if b := s.base[k]; b != nil {
		base = b.by
	}
	if c := s.change[k]; c != nil {
		change = c.by
	}
	for b, n := range base {
		if n+change[b] > 0 && f(b) {
			return true
		}
	}
	for b, n := range change {
		if _, ok := base[b]; !ok && n > 0 && f(b) {
			return true
		}
	}
	return false
}

// warnings are collect's warnings of policy p over the sums, unsorted. With keep nil they carry no
// By (a caller that only asks which warnings there are); otherwise only those keep accepts are
// made, given the warning's Ref and a test of whether some policy named in its By satisfies a
// predicate.
func (s sums) warnings(p *Policy, keep func(r Ref, names func(func(*Policy) bool) bool) bool) []sortable {
	effective := false
	var elems []elemKey
	s.each(func(k elemKey, sel, eff int) {
		switch {
		case sel <= 0:
		case eff > 0:
			effective = true
		default:
			elems = append(elems, k)
		}
	})
	if len(elems) == 0 {
		return nil
	}
	others := func(match func(*Policy) bool) bool {
		for _, k := range elems {
			if s.blocks(k, func(b elemKey) bool { return b.p != k.p && match(b.p) }) {
				return true
			}
		}
		return false
	}
	if !effective && others(func(*Policy) bool { return true }) {
		w := Warning{Ref: policyRef(p, "")}
		if keep != nil {
			if !keep(w.Ref, others) {
				return nil
			}
			by := map[*Policy]bool{}
			for _, k := range elems {
				s.blocks(k, func(b elemKey) bool {
					if b.p != k.p {
						by[b.p] = true
					}
					return false
				})
			}
			for _, b := range sortPolicies(by) {
				w.By = append(w.By, policyRef(b, ""))
			}
		}
		return []sortable{{w: w, k: elemKey{p: p, i: -1}}}
	}
	out := make([]sortable, 0, len(elems))
	for _, k := range elems {
		w := Warning{Ref: policyRef(p, ElementPath(k.d, k.i))}
		if keep != nil {
			names := func(match func(*Policy) bool) bool {
				return s.blocks(k, func(b elemKey) bool { return match(b.p) })
			}
			if !keep(w.Ref, names) {
				continue
			}
			by := map[elemKey]bool{}
			s.blocks(k, func(b elemKey) bool { by[b] = true; return false })
			for _, b := range sortElems(by) {
				w.By = append(w.By, policyRef(b.p, ElementPath(b.d, b.i)))
			}
		}
		out = append(out, sortable{w: w, k: k})
	}
	return out
}
