package engine

import (
	"maps"
	"slices"

	"github.com/precedent-dev/precedent/internal/effective"
	"github.com/precedent-dev/precedent/internal/policy"
)

// foldKuadrant computes the effective policy of one path the way Kuadrant's operator does, so that
// what Precedent predicts is what Kuadrant enforces (kuadrant-operator api/v1/merge_strategies.go,
// EffectivePolicyForPath):
//
//   - PoliciesInPath lists the policies from the least specific target to the most specific, those
//     of one target oldest first (levels here come most specific first, each in policy.Less order,
//     which for this profile is Kuadrant's own);
//   - lo.ReduceRight starts from the last policy (most specific, newest) and merges each earlier one
//     into the result with that earlier policy's strategy (RateLimitPolicy.Merge calls
//     source.GetMergeStrategy()(source, target)):
//     atomic defaults (and bare rules) keep the result unless it is Empty(), else take the source;
//     merge defaults add the source's rules the result lacks; atomic overrides replace the result
//     with the source; merge overrides put the source's rules over the result's.
//
// So, unlike the defaults-overrides profile, the newer of two bare policies on one target wins, and
// of two overrides on one target the older wins. The result's rules keep the policy they came from
// (mapRuleWithSourceFunc keeps a rule's first source).
func foldKuadrant(levels [][]*policy.Policy) effective.Result {
	var order []*policy.Policy // least specific first, Kuadrant's PoliciesInPath
	for i := len(levels) - 1; i >= 0; i-- {
		order = append(order, levels[i]...)
	}
	f := &folder{ep: map[string]effective.Entry{}}
	if len(order) == 0 {
		return effective.Result{Rules: f.ep}
	}
	last := order[len(order)-1]
	if b, name := kuadrantBlock(last); b != nil {
		for _, id := range b.IDs() {
			f.ep[id] = effective.NewEntry(last, b, name, id)
			f.emit(effective.Added, last, name, id, nil)
		}
	}
	for i := len(order) - 2; i >= 0; i-- {
		src := order[i]
		b, name := kuadrantBlock(src)
		if b == nil {
			continue
		}
		switch {
		case name != "overrides" && b.Strategy == policy.StrategyMerge:
			f.kuadrantMergeDefaults(src, b, name)
		case name != "overrides":
			f.kuadrantAtomicDefaults(src, b, name)
		case b.Strategy == policy.StrategyMerge:
			for _, id := range b.IDs() {
				f.set(src, b, id, f.ep, effective.Overridden)
			}
		default:
			f.kuadrantAtomicOverrides(src, b)
		}
	}
	return effective.Result{Rules: f.ep, Events: f.events}
}

// kuadrantBlock is the block Kuadrant reads of p (Spec.Proper(): defaults, else overrides, else the
// bare spec) and its name for events.
func kuadrantBlock(p *policy.Policy) (*policy.Block, string) {
	switch {
	case p.Defaults != nil:
		return p.Defaults, "defaults"
	case p.Overrides != nil:
		return p.Overrides, "overrides"
	case p.Bare != nil:
		return p.Bare, "rules"
	}
	return nil, ""
}

// kuadrantAtomicDefaults is AtomicDefaultsMergeStrategy: the result stands whole unless it is
// Empty(), in which case it becomes the source whole (the result's when and patterns go with it).
func (f *folder) kuadrantAtomicDefaults(src *policy.Policy, b *policy.Block, name string) {
	if !kuadrantEmpty(f.ep) {
		for _, h := range effective.Holders(f.ep) {
			h := h
			f.emit(effective.Replaced, src, name, "", &h)
		}
		return
	}
	old := f.ep
	f.ep = make(map[string]effective.Entry, len(b.Rules))
	for _, id := range slices.Sorted(maps.Keys(old)) {
		if _, ok := b.Rules[id]; !ok {
			f.emit(effective.Overridden, src, name, id, effective.SourceOf(old[id]))
		}
	}
	for _, id := range b.IDs() {
		if cur, ok := old[id]; ok && cur.Source != src.Ref {
			f.emit(effective.Overridden, src, name, id, effective.SourceOf(cur))
		} else if !ok {
			f.emit(effective.Added, src, name, id, nil)
		}
		f.ep[id] = effective.NewEntry(src, b, name, id)
	}
}

// kuadrantMergeDefaults is PolicyRuleDefaultsMergeStrategy: the source's rules the result lacks.
func (f *folder) kuadrantMergeDefaults(src *policy.Policy, b *policy.Block, name string) {
	for _, id := range b.IDs() {
		if cur, ok := f.ep[id]; ok {
			f.emit(effective.Kept, src, name, id, effective.SourceOf(cur))
			continue
		}
		f.ep[id] = effective.NewEntry(src, b, name, id)
		f.emit(effective.Added, src, name, id, nil)
	}
}

// kuadrantAtomicOverrides is AtomicOverridesMergeStrategy: the result becomes the source, whole.
func (f *folder) kuadrantAtomicOverrides(src *policy.Policy, b *policy.Block) {
	for _, id := range slices.Sorted(maps.Keys(f.ep)) {
		if _, ok := b.Rules[id]; !ok {
			f.emit(effective.Overridden, src, "overrides", id, effective.SourceOf(f.ep[id]))
		}
	}
	old := f.ep
	f.ep = make(map[string]effective.Entry, len(b.Rules))
	for _, id := range b.IDs() {
		f.set(src, b, id, old, effective.Overridden)
	}
}

// kuadrantEmpty is Kuadrant's Empty() of the result so far.
func kuadrantEmpty(ep map[string]effective.Entry) bool {
	for id := range ep {
		if KuadrantCounts(id) {
			return false
		}
	}
	return true
}

// folder holds the state of one Kuadrant fold: the result so far and its events.
type folder struct {
	ep     map[string]effective.Entry
	events []effective.Event
}

func (f *folder) emit(t effective.EventType, p *policy.Policy, block, rule string, other *policy.Ref) {
	f.events = append(f.events, effective.Event{Type: t, Rule: rule, Policy: p.Ref, Block: block, Other: other})
}

// set puts rule id of the overrides block b of p over old's (the engine's overrides step, without
// unset: Kuadrant has none).
func (f *folder) set(p *policy.Policy, b *policy.Block, id string, old map[string]effective.Entry, replaceType effective.EventType) {
	if cur, ok := old[id]; ok && cur.Source != p.Ref {
		f.emit(replaceType, p, "overrides", id, effective.SourceOf(cur))
	} else if !ok {
		f.emit(effective.Added, p, "overrides", id, nil)
	}
	f.ep[id] = effective.NewEntry(p, b, "overrides", id)
}
