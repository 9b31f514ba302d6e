package effective

import (
	"slices"

	"github.com/precedent-dev/precedent/internal/policy"
)

// A write of a policy beside a big one (a Gateway-level policy on a Gateway whose 5,000-rule policy
// sits on the same level) gets no help from the levels-above way of mentionsOf: the big policy is on
// ref's own level. Yet the events that name ref concern ref's rules only, bar a few that look at the
// whole effective policy so far: atomic defaults (added whole when it is empty, else replaced,
// naming every holder), ref's own atomic overrides (naming every rule they drop) and conditions
// that read more than named rules. narrowRules picks the rules a fold must follow to give those
// events exactly, and foldRules folds the path for them only.

// narrowMin is the fewest rules a path's blocks must hold for a narrow fold to be tried: below it
// the whole fold costs about what choosing the rules would.
const narrowMin = 64

// ruleCount is how many rules the blocks of levels hold.
func ruleCount(levels [][]*policy.Policy) int {
	n := 0
	for _, ps := range levels {
		for _, p := range ps {
			if b := p.DefaultsBlock(); b != nil {
				n += len(b.Rules)
			}
			if p.Overrides != nil {
				n += len(p.Overrides.Rules)
			}
		}
	}
	return n
}

// narrowRules returns the rules (sorted, without duplicates) whose fold over levels (most specific
// first) gives every event of the whole fold that names ref, in the same order: ref's rules and
// unsets, the rules the when conditions read, and, wherever a block looks at the whole effective
// policy so far, every rule that may be in it then. It also returns how many rules the blocks of
// levels hold in all and how many blocks hold rules, so that callers can tell whether folding these
// rules alone is worth it.
func (s *Snapshot) narrowRules(levels [][]*policy.Policy, ref policy.Ref) (rules []string, total, blocks int) {
	// pending are the blocks of other policies whose rules may be in the effective policy so far
	// and are not among rules yet.
	var pending []*policy.Block
	flush := func() {
		for _, b := range pending {
			for id := range b.Rules {
				rules = append(rules, id)
			}
		}
		pending = pending[:0]
	}
	visit := func(p *policy.Policy, b *policy.Block, defaults bool) {
		total += len(b.Rules)
		if len(b.Rules) > 0 {
			blocks++
		}
		cond := b.When != "" && s.Cond != nil
		if cond {
			if ids, ok := conditionReads(s.Kind, s.Cond, b.When); ok {
				rules = append(rules, ids...)
			} else {
				flush() // the condition reads the whole effective policy so far
			}
		}
		atomic := b.Strategy != policy.StrategyMerge
		switch {
		case atomic && (defaults || p.Ref == ref):
			flush() // the block looks at the whole effective policy so far
		case atomic && !cond:
			pending = pending[:0] // the effective policy becomes this block
		}
		if p.Ref == ref {
			for id := range b.Rules {
				rules = append(rules, id)
			}
		} else if len(b.Rules) > 0 {
			pending = append(pending, b)
		}
	}
	for _, ps := range levels {
		for _, p := range ps {
			if b := p.DefaultsBlock(); b != nil {
				visit(p, b, true)
			}
		}
		for j := len(ps) - 1; j >= 0; j-- {
			if p := ps[j]; p.Overrides != nil {
				visit(p, p.Overrides, false)
			}
		}
		for _, p := range ps {
			if p.Ref == ref {
				rules = append(rules, p.Unset...)
			}
		}
	}
	slices.Sort(rules) // the order blocks walk their rules in (policy.Block.IDs)
	return slices.Compact(rules), total, blocks
}

// foldRules folds levels (most specific first) for the given rules only (sorted, as narrowRules
// returns them) and returns the events: those of the whole fold about these rules, and the
// events about no rule, in fold order, wherever the blocks that look at the whole effective policy
// so far see it whole.
func (s *Snapshot) foldRules(levels [][]*policy.Policy, rules []string) []Event {
	return s.foldRulesTraced(levels, rules, nil).events
}

// foldRulesTraced is foldRules with a trace of the outcomes (folder.trace); it returns the folder,
// whose effective policy is that of the whole fold for these rules.
func (s *Snapshot) foldRulesTraced(levels [][]*policy.Policy, rules []string, trace func(*policy.Policy, *policy.Block, byte)) *folder {
	g := &folder{kind: s.Kind, cond: s.Cond, memo: s.conds, ep: make(map[string]Entry, len(rules)), unset: map[string]*policy.Ref{}, trace: trace}
	for _, ps := range levels {
		for _, p := range ps {
			switch b := p.DefaultsBlock(); {
			case b == nil:
			case b.Strategy == policy.StrategyMerge:
				g.mergeDefaultsOf(p, b, rules)
			default:
				g.atomicDefaultsOf(p, b, rules)
			}
		}
		g.overridesAndUnsetsOf(ps, rules)
	}
	return g
}

// atomicDefaultsOf is defaults for an atomic block on the given rules only (sorted), emitting their
// events in the order defaults does; the effective policy so far must hold no other rules.
func (f *folder) atomicDefaultsOf(p *policy.Policy, b *policy.Block, rules []string) {
	block, ok := f.defaultsApply(p, b, rules)
	if !ok {
		return
	}
	if f.trace != nil {
		f.trace(p, b, outcome(len(f.ep) == 0, nil))
	}
	if len(f.ep) > 0 {
		for _, h := range holders(f.ep) {
			h := h
			f.emit(Replaced, p, block, "", &h)
		}
		return
	}
	for _, id := range rules {
		if _, ok := b.Rules[id]; ok && !f.unsetBy(id) {
			f.ep[id] = entry(p, b, block, id)
			f.emit(Added, p, block, id, nil)
		}
	}
}
