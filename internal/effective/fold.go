package effective

import (
	"maps"
	"slices"

	"github.com/precedent-dev/precedent/cel"
	"github.com/precedent-dev/precedent/internal/policy"
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

// Reducer is a model's own fold (its policy.Model's Fold), for a model that does not fold level by
// level (one that reduces the path from its most specific, newest policy, say). It computes the
// effective policy of one path from levels ordered most specific first, each in policy.Less order,
// with the events the engine's fold would give; entries are made with NewEntry.
type Reducer interface {
	Reduce(levels [][]*policy.Policy) Result
}

// folder holds the state of one fold.
type folder struct {
	kind   policy.Kind
	cond   *cel.Evaluator
	memo   *condMemo // nil: conditions are evaluated every time
	ep     map[string]Entry
	unset  map[string]*policy.Ref // rule id → the most specific policy that unsets it (its own Ref)
	events []Event
	// trace, when set, records the outcome of each when condition evaluated (applies) and whether
	// the effective policy was empty at each atomic defaults block (ChangePath).
	trace func(p *policy.Policy, b *policy.Block, outcome byte)
}

// Fold computes the effective policy from levels ordered most specific first.
//
// Within one level, the defaults blocks (bare rules count as atomic defaults) are merged in
// precedence order, so the oldest policy's default wins; then the overrides blocks in reverse
// precedence order, so the oldest policy's override, applied last, wins. The unset lists of a level
// apply to the levels above it. cond evaluates when conditions (nil: conditions are ignored).
func Fold(kind policy.Kind, levels []Level, cond *cel.Evaluator) Result {
	ps := make([][]*policy.Policy, len(levels))
	for i := range levels {
		ps[i] = levels[i].Policies
	}
	return fold(kind, ps, cond, nil)
}

// fold is Fold over the policies of each level, with a memo of condition outcomes.
func fold(kind policy.Kind, levels [][]*policy.Policy, cond *cel.Evaluator, memo *condMemo) Result {
	if r, ok := kind.Fold().(Reducer); ok {
		return r.Reduce(levels)
	}
	f := newFolder(kind, levels, cond, memo)
	f.levels(levels)
	return Result{Rules: f.ep, Events: f.events}
}

// newFolder starts a fold of levels, with room for their rules and events.
func newFolder(kind policy.Kind, levels [][]*policy.Policy, cond *cel.Evaluator, memo *condMemo) *folder {
	n, rules := 0, 0
	for _, ps := range levels {
		n += len(ps)
		for _, p := range ps {
			if b := p.DefaultsBlock(); b != nil {
				rules += len(b.Rules)
			}
			if p.Overrides != nil {
				rules += len(p.Overrides.Rules)
			}
		}
	}
	return &folder{kind: kind, cond: cond, memo: memo, ep: make(map[string]Entry, rules), events: make([]Event, 0, rules+n)}
}

// levels folds levels, most specific first, into the effective policy so far.
func (f *folder) levels(levels [][]*policy.Policy) {
	for _, ps := range levels {
		for _, p := range ps {
			if b := p.DefaultsBlock(); b != nil {
				f.defaults(p, b)
			}
		}
		for i := len(ps) - 1; i >= 0; i-- {
			p := ps[i]
			if p.Overrides != nil {
				f.overrides(p, p.Overrides)
			}
		}
		for _, p := range ps {
			for _, id := range p.Unset {
				if f.unset == nil {
					f.unset = map[string]*policy.Ref{}
				}
				if _, ok := f.unset[id]; !ok {
					f.unset[id] = &p.Ref
				}
			}
		}
	}
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
	ok, err := f.eval(b.When)
	if f.trace != nil {
		f.trace(p, b, outcome(ok, err))
	}
	if err != nil {
		f.events = append(f.events, Event{Type: ConditionError, Policy: p.Ref, Block: block, Message: err.Error()})
		return false
	}
	if !ok {
		f.emit(ConditionFalse, p, block, "", nil)
	}
	return ok
}

// eval evaluates a when condition on the effective policy so far, through the memo when there is
// one and the condition reads only named rules.
func (f *folder) eval(expr string) (bool, error) {
	if f.memo == nil {
		return f.cond.Eval(expr, f.bareForm())
	}
	var buf [256]byte
	var refs [4]*policy.Ref
	key, from, ok := f.condKey(buf[:0], refs[:0], expr)
	if !ok {
		return f.cond.Eval(expr, f.bareForm())
	}
	if r, hit := f.memo.load(key, from); hit {
		return r.ok, r.err
	}
	res, err := f.cond.Eval(expr, f.bareForm())
	f.memo.store(key, condResult{ok: res, err: err, from: slices.Clone(from)})
	return res, err
}

// bareForm is the effective policy so far in the shape of a policy's spec, what `when` reads as self.
func (f *folder) bareForm() map[string]interface{} {
	rules := make(map[string]interface{}, len(f.ep))
	for id, e := range f.ep {
		rules[id] = e.Body
	}
	if f.kind.Fold() != policy.FoldFields && len(f.kind.Sections) == 0 {
		return map[string]interface{}{f.kind.RulesField: rules} // what BareForm builds, without a second copy
	}
	return policy.BareForm(f.kind, rules)
}

// entry is the effective-policy entry of rule id of block b of p.
func entry(p *policy.Policy, b *policy.Block, block, id string) Entry {
	return Entry{Body: b.Rules[id], Source: p.Ref, Block: block, src: &p.Ref}
}

// NewEntry is the effective-policy entry of rule id of block b (named block in events) of p.
func NewEntry(p *policy.Policy, b *policy.Block, block, id string) Entry {
	return entry(p, b, block, id)
}

// SourceOf is a pointer to the Source of e, for an event's Other.
func SourceOf(e Entry) *policy.Ref { return source(e) }

// source is a pointer to the Source of e, for an event's Other.
func source(e Entry) *policy.Ref {
	if e.src != nil {
		return e.src
	}
	src := e.Source
	return &src
}

func (f *folder) defaults(p *policy.Policy, b *policy.Block) {
	block := blockName(p, b)
	if !f.applies(p, b, block) {
		return
	}
	ids := b.IDs()
	// Drop what lower policies unset; the rest are kept (unsetBy tells them apart below).
	for _, id := range ids {
		if by, ok := f.unset[id]; ok {
			f.emit(Unset, p, block, id, by)
		}
	}
	if len(f.ep) == 0 {
		for _, id := range ids {
			if f.unsetBy(id) {
				continue
			}
			f.ep[id] = entry(p, b, block, id)
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
	for _, id := range ids {
		f.mergeDefault(p, b, block, id)
	}
}

// mergeDefault merges rule id of the merge defaults block b: added unless a lower policy set or
// unset it.
func (f *folder) mergeDefault(p *policy.Policy, b *policy.Block, block, id string) {
	if f.unsetBy(id) {
		return
	}
	if cur, ok := f.ep[id]; ok {
		f.emit(Kept, p, block, id, source(cur))
		return
	}
	f.ep[id] = entry(p, b, block, id)
	f.emit(Added, p, block, id, nil)
}

// unsetBy reports whether a lower policy unsets rule id.
func (f *folder) unsetBy(id string) bool {
	_, ok := f.unset[id]
	return ok
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
	ids := b.IDs()
	if b.Strategy != policy.StrategyMerge {
		// Atomic: the effective policy becomes this block, whole.
		for _, id := range slices.Sorted(maps.Keys(f.ep)) {
			if _, ok := b.Rules[id]; ok {
				continue
			}
			f.emit(replaceType, p, block, id, source(f.ep[id]))
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
		f.emit(replaceType, p, "overrides", id, source(cur))
	} else if !ok {
		f.emit(Added, p, "overrides", id, nil)
	}
	if by, ok := f.unset[id]; ok {
		f.emit(UnsetIneffective, p, "overrides", id, by)
	}
	f.ep[id] = entry(p, b, "overrides", id)
}
