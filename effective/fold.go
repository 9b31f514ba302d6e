package effective

import (
	"github.com/precedent-dev/precedent/cel"
	"github.com/precedent-dev/precedent/policy"
)

// Level is the group of policies attached at one level of the hierarchy for a path.
type Level struct {
	// Policies in precedence order (oldest first, then namespace/name).
	Policies []*policy.Policy
}

// Result is the effective policy of one path.
type Result struct {
	Rules  map[string]Entry
	Events []Event
}

// folder holds the state of one fold.
type folder struct {
	kind   policy.Kind
	cond   *cel.Evaluator
	ep     map[string]Entry
	unset  map[string]policy.Ref // rule id → the most specific policy that unsets it
	events []Event
}

// Fold computes the effective policy from levels ordered most specific first.
//
// Within one level, the defaults blocks (bare rules count as atomic defaults) are merged in
// precedence order, so the oldest policy's default wins; then the overrides blocks in reverse
// precedence order, so the oldest policy's override, applied last, wins. The unset lists of a level
// apply to the levels above it. cond evaluates when conditions (nil: conditions are ignored).
func Fold(kind policy.Kind, levels []Level, cond *cel.Evaluator) Result {
	f := &folder{kind: kind, cond: cond, ep: map[string]Entry{}, unset: map[string]policy.Ref{}}
	for _, lvl := range levels {
		for _, p := range lvl.Policies {
			if b := p.DefaultsBlock(); b != nil {
				f.defaults(p, b)
			}
		}
		for i := len(lvl.Policies) - 1; i >= 0; i-- {
			p := lvl.Policies[i]
			if p.Overrides != nil {
				f.overrides(p, p.Overrides)
			}
		}
		for _, p := range lvl.Policies {
			for _, id := range p.Unset {
				if _, ok := f.unset[id]; !ok {
					f.unset[id] = p.Ref
				}
			}
		}
	}
	return Result{Rules: f.ep, Events: f.events}
}

func blockName(p *policy.Policy, b *policy.Block) string {
	switch b {
	case p.Bare:
		return "rules"
	case p.Overrides:
		return "overrides"
	}
	return "defaults"
}

func (f *folder) emit(t EventType, p *policy.Policy, block, rule string, other *policy.Ref) {
	f.events = append(f.events, Event{Type: t, Rule: rule, Policy: p.Ref, Block: block, Other: other})
}

// applies evaluates a block's when condition against the effective policy so far.
func (f *folder) applies(p *policy.Policy, b *policy.Block, block string) bool {
	if b.When == "" || f.cond == nil {
		return true
	}
	rules := make(map[string]interface{}, len(f.ep))
	for id, e := range f.ep {
		rules[id] = e.Body
	}
	ok, err := f.cond.Eval(b.When, policy.BareForm(f.kind, rules))
	if err != nil {
		f.events = append(f.events, Event{Type: ConditionError, Policy: p.Ref, Block: block, Message: err.Error()})
		return false
	}
	if !ok {
		f.emit(ConditionFalse, p, block, "", nil)
	}
	return ok
}

func (f *folder) defaults(p *policy.Policy, b *policy.Block) {
	block := blockName(p, b)
	if !f.applies(p, b, block) {
		return
	}
	ids := sortedIDs(b.Rules)
	// Drop what lower policies unset.
	kept := ids[:0:0]
	for _, id := range ids {
		if by, ok := f.unset[id]; ok {
			by := by
			f.emit(Unset, p, block, id, &by)
			continue
		}
		kept = append(kept, id)
	}
	if len(f.ep) == 0 {
		for _, id := range kept {
			f.ep[id] = Entry{Body: b.Rules[id], Source: p.Ref, Block: block}
			f.emit(Added, p, block, id, nil)
		}
		return
	}
	if b.Strategy != policy.StrategyMerge {
		// Atomic: the lower set of rules stands whole; this block is replaced.
		for _, h := range holders(f.ep) {
			h := h
			f.emit(Replaced, p, block, "", &h)
		}
		return
	}
	for _, id := range kept {
		if cur, ok := f.ep[id]; ok {
			src := cur.Source
			f.emit(Kept, p, block, id, &src)
			continue
		}
		f.ep[id] = Entry{Body: b.Rules[id], Source: p.Ref, Block: block}
		f.emit(Added, p, block, id, nil)
	}
}

func (f *folder) overrides(p *policy.Policy, b *policy.Block) {
	const block = "overrides"
	if !f.applies(p, b, block) {
		return
	}
	replaceType := Overridden
	if b.When != "" {
		replaceType = Clipped
	}
	ids := sortedIDs(b.Rules)
	if b.Strategy != policy.StrategyMerge {
		// Atomic: the effective policy becomes this block, whole.
		for _, id := range sortedIDs(entryBodies(f.ep)) {
			if _, ok := b.Rules[id]; ok {
				continue
			}
			src := f.ep[id].Source
			f.emit(replaceType, p, block, id, &src)
		}
		old := f.ep
		f.ep = make(map[string]Entry, len(b.Rules))
		for _, id := range ids {
			f.set(p, b, id, old, replaceType)
		}
		return
	}
	for _, id := range ids {
		f.set(p, b, id, f.ep, replaceType)
	}
}

func (f *folder) set(p *policy.Policy, b *policy.Block, id string, old map[string]Entry, replaceType EventType) {
	if cur, ok := old[id]; ok && cur.Source != p.Ref {
		src := cur.Source
		f.emit(replaceType, p, "overrides", id, &src)
	} else if !ok {
		f.emit(Added, p, "overrides", id, nil)
	}
	if by, ok := f.unset[id]; ok {
		by := by
		f.emit(UnsetIneffective, p, "overrides", id, &by)
	}
	f.ep[id] = Entry{Body: b.Rules[id], Source: p.Ref, Block: "overrides"}
}
