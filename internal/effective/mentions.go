package effective

import (
	"slices"

	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/topology"
)

// Mentions are the events of one path's fold that name one policy, as the policy that acted or as
// the other side (the previous holder, the unsetter), in fold order: what the warnings about a write
// of that policy are made of.
type Mentions struct {
	Events []Event
}

// MentionsPath returns the events of the fold of the path with index i that name policy ref. Paths
// with the same fold share one *Mentions (callers may compare them by identity); it is shared:
// callers must not modify it.
//
// Above the least specific level that holds ref, no block is ref's own, so an event there names ref
// only for a rule whose state (its holder, its unsetter) names ref when those levels begin. When
// every block there treats rules one by one (merge defaults, and overrides, whose when conditions
// read named rules only), those levels are folded for these rules and the rules the conditions
// read only: a route-level write under a Gateway
// policy of thousands of rules costs what the route's own rules cost. Otherwise the events come
// from the path's memoized fold, or from a fold of the rules they concern (narrow.go) when that
// is much less than the path (a write beside a big policy on its own level), or from the whole
// fold.
func (s *Snapshot) MentionsPath(i int, ref policy.Ref) *Mentions {
	m, _ := s.MentionsPathKey(nil, i, ref)
	return m
}

// MentionsPathKey is MentionsPath that also appends the path's fold key (FoldKeyPath) to b.
func (s *Snapshot) MentionsPathKey(b []byte, i int, ref policy.Ref) (*Mentions, []byte) {
	var lv [topology.MaxTargets][]*policy.Policy
	var buf [1024]byte
	// The key is ref (names hold no NUL), then the fold key of the path.
	key := append(append(append(buf[:0], ref.Namespace...), 0), ref.Name...)
	key = append(key, 0)
	n := len(key)
	key, m := s.pathLevels(key, &lv, i)
	if b != nil {
		b = append(b, key[n:]...)
	}
	if s.mentions != nil {
		if r, ok := s.mentions.load(key, lv[:m]); ok {
			return r, b
		}
	}
	r := &Mentions{Events: s.mentionsOf(key[n:], lv[:m], ref)}
	if s.mentions != nil {
		r = s.mentions.store(key, r, lv[:m])
	}
	return r, b
}

// mentionsOf is MentionsPath for the levels of one path (most specific first) and their fold key.
func (s *Snapshot) mentionsOf(key []byte, levels [][]*policy.Policy, ref policy.Ref) []Event {
	k := -1 // the least specific level that holds ref
	for j, ps := range levels {
		for _, p := range ps {
			if p.Ref == ref {
				k = j
			}
		}
	}
	if k < 0 {
		return nil // nothing on this path is, or comes from, ref
	}
	var reads []string
	_, reduced := s.Kind.Fold().(Reducer)
	ok := k < len(levels)-1 && !reduced
	if ok {
		reads, ok = s.ruleWise(levels[k+1:])
	}
	if !ok {
		return s.mentionsWhole(key, levels, ref, reduced)
	}
	f := newFolder(s.Kind, levels[:k+1], s.Cond, s.conds)
	f.levels(levels[:k+1])
	out := naming(nil, f.events, ref)
	// The rules whose state names ref, and that state; the other rules' events above cannot name ref.
	var rules []string
	for id, e := range f.ep {
		if e.Source == ref {
			rules = append(rules, id)
		}
	}
	for id, by := range f.unset {
		if *by == ref {
			rules = append(rules, id)
		}
	}
	if len(rules) == 0 {
		return out
	}
	// And the rules the conditions above read, so that they are evaluated on what they read.
	rules = append(rules, reads...)
	slices.Sort(rules) // the order blocks walk their rules in (policy.Block.IDs)
	rules = slices.Compact(rules)
	g := &folder{kind: s.Kind, cond: s.Cond, memo: s.conds, ep: make(map[string]Entry, len(rules)), unset: make(map[string]*policy.Ref, len(rules))}
	for _, id := range rules {
		if e, ok := f.ep[id]; ok {
			g.ep[id] = e
		}
		if by, ok := f.unset[id]; ok {
			g.unset[id] = by
		}
	}
	for _, ps := range levels[k+1:] {
		for _, p := range ps {
			if b := p.DefaultsBlock(); b != nil {
				g.mergeDefaultsOf(p, b, rules)
			}
		}
		g.overridesAndUnsetsOf(ps, rules)
	}
	return naming(out, g.events, ref)
}

// mentionsWhole is mentionsOf where the levels above ref's do not settle it: the events of the
// fold of the whole path that name ref, from the memo when the fold is there, else from a fold of
// the rules they concern (narrowRules) when that is much less than the path's rules (a policy
// written beside a big one on the same level), else from the whole fold.
func (s *Snapshot) mentionsWhole(key []byte, levels [][]*policy.Policy, ref policy.Ref, reduced bool) []Event {
	if reduced {
		return naming(nil, s.computeKeyed(key, levels).Events, ref)
	}
	if s.results != nil {
		if r, ok := s.results.load(key, levels); ok {
			return naming(nil, r.Events, ref)
		}
	}
	if ruleCount(levels) >= narrowMin {
		if rules, total, blocks := s.narrowRules(levels, ref); len(rules)*blocks < total/2 {
			return naming(nil, s.foldRules(levels, rules), ref)
		}
	}
	return naming(nil, s.computeKeyed(key, levels).Events, ref)
}

// ruleWise reports whether every block of levels treats rules one by one, so that a rule's
// outcome depends on that rule's state and on the rules the blocks' when conditions read (which it
// returns): defaults merge (atomic defaults look at whether the effective policy has any rule), and
// a when condition reads named rules only (not, say, self.limits.size()). Overrides of either
// strategy qualify.
func (s *Snapshot) ruleWise(levels [][]*policy.Policy) ([]string, bool) {
	var reads []string
	when := func(b *policy.Block) bool {
		if b.When == "" || s.Cond == nil {
			return true // no condition to evaluate: the block applies
		}
		ids, ok := conditionReads(s.Kind, s.Cond, b.When)
		reads = append(reads, ids...)
		return ok
	}
	for _, ps := range levels {
		for _, p := range ps {
			if b := p.DefaultsBlock(); b != nil && (b.Strategy != policy.StrategyMerge || !when(b)) {
				return nil, false
			}
			if b := p.Overrides; b != nil && !when(b) {
				return nil, false
			}
		}
	}
	return reads, true
}

// defaultsApply names the defaults block b of p and reports whether it applies (its condition);
// when it does, it first emits the Unset events of its rules among rules (sorted), as defaults does.
func (f *folder) defaultsApply(p *policy.Policy, b *policy.Block, rules []string) (string, bool) {
	block := blockName(p, b)
	if !f.applies(p, b, block) {
		return block, false
	}
	for _, id := range rules {
		if _, ok := b.Rules[id]; ok {
			if by, ok := f.unset[id]; ok {
				f.emit(Unset, p, block, id, by)
			}
		}
	}
	return block, true
}

// mergeDefaultsOf is defaults for a merge block on the given rules only (sorted), emitting their
// events in the order defaults does; its condition reads none but these.
func (f *folder) mergeDefaultsOf(p *policy.Policy, b *policy.Block, rules []string) {
	block, ok := f.defaultsApply(p, b, rules)
	if !ok {
		return
	}
	for _, id := range rules {
		if _, ok := b.Rules[id]; ok {
			f.mergeDefault(p, b, block, id)
		}
	}
}

// overridesOf is overrides on the given rules only (sorted), emitting their events in the order
// overrides does; its condition reads none but these.
func (f *folder) overridesOf(p *policy.Policy, b *policy.Block, rules []string) {
	if !f.applies(p, b, "overrides") {
		return
	}
	replaceType := Overridden
	if b.When != "" {
		replaceType = Clipped
	}
	old := f.ep
	if b.Strategy != policy.StrategyMerge {
		for _, id := range rules {
			if _, in := b.Rules[id]; in {
				continue
			}
			if cur, ok := old[id]; ok {
				f.emit(replaceType, p, "overrides", id, source(cur))
			}
		}
		f.ep = make(map[string]Entry, len(rules))
	}
	for _, id := range rules {
		if _, in := b.Rules[id]; in {
			f.set(p, b, id, old, replaceType)
		}
	}
}

// naming appends to out the events that name ref, growing out once.
func naming(out, events []Event, ref policy.Ref) []Event {
	n := 0
	for k := range events {
		if names(&events[k], ref) {
			n++
		}
	}
	if n == 0 {
		return out
	}
	out = slices.Grow(out, n)
	for k := range events {
		if e := &events[k]; names(e, ref) {
			out = append(out, *e)
		}
	}
	return out
}

// names reports whether event e names ref.
func names(e *Event, ref policy.Ref) bool {
	return e.Policy == ref || (e.Other != nil && *e.Other == ref)
}

// overridesAndUnsetsOf applies, for the sorted rules only, the overrides of one level's policies ps
// (the most precedent last, so that it wins) and records the first unset of each rule.
func (g *folder) overridesAndUnsetsOf(ps []*policy.Policy, rules []string) {
	for j := len(ps) - 1; j >= 0; j-- {
		if p := ps[j]; p.Overrides != nil {
			g.overridesOf(p, p.Overrides, rules)
		}
	}
	for _, p := range ps {
		for _, id := range p.Unset {
			if _, in := slices.BinarySearch(rules, id); in {
				if _, ok := g.unset[id]; !ok {
					g.unset[id] = &p.Ref
				}
			}
		}
	}
}
