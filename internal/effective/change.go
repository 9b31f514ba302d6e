package effective

import (
	"slices"

	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/topology"
)

// A Gateway-level write on a Gateway whose big policy sits on the same level is compared, on each
// route path, with the effective policy before it (validate's projection): whether it changed,
// which rules of other policies left, which of the written policy's fell to others. A fold of
// the path after the write would fold the big policy whole on the request path. ChangePath folds
// both sides for the rules the write may change only, and says when that is not enough.

// ChangePath returns the effective policy of the path with index i before the write (in before, the
// snapshot s is a view of) and after it (in s), for the rules the write may change only: every
// other rule has the same entry on both sides (or none on either). The results hold these rules
// only; the events after are those of the whole fold about them and every event that names a
// policy the write changed (its old or new version), in fold order. ok is false when the rules
// outside cannot be shown the same (a when condition or an atomic defaults block of another
// policy with rules outside, or an atomic overrides block, that decides otherwise after the
// write), when the kind folds its own way, or when the path holds few rules or the rules to
// follow are not much fewer than the path's: callers then fold both sides whole.
func (s *Snapshot) ChangePath(before *Snapshot, i int) (after, prior Result, ok bool) {
	after, prior, _, ok = s.change(before, i)
	return after, prior, ok
}

// change is ChangePath that also returns the rules followed.
func (s *Snapshot) change(before *Snapshot, i int) (after, prior Result, rules []string, ok bool) {
	if _, reduced := s.Kind.Fold().(Reducer); reduced {
		return Result{}, Result{}, nil, false
	}
	var la, lb [topology.MaxTargets][]*policy.Policy
	var buf [1024]byte
	_, ma := s.pathLevels(buf[:0], &la, i)
	_, mb := before.pathLevels(buf[:0], &lb, i)
	if max(ruleCount(la[:ma]), ruleCount(lb[:mb])) < narrowMin {
		return Result{}, Result{}, nil, false
	}
	written := changed(la[:ma], lb[:mb])
	if len(written) == 0 {
		return Result{}, Result{}, nil, false // nothing changes here: the callers' folds are the same fold
	}
	var total, blocks int
	for _, ref := range written {
		ra, ta, ba := s.narrowRules(la[:ma], ref)
		rb, tb, bb := before.narrowRules(lb[:mb], ref)
		rules = append(append(rules, ra...), rb...)
		total, blocks = max(total, ta, tb), max(blocks, ba, bb)
	}
	slices.Sort(rules)
	rules = slices.Compact(rules)
	if len(rules)*blocks >= total/2 {
		return Result{}, Result{}, nil, false
	}
	// The other policies' blocks must decide alike on both sides: then each rule outside takes
	// the same course through the same blocks.
	var ta, tb []byte
	fa := s.foldRulesTraced(la[:ma], rules, tracer(&ta, written, rules))
	fb := before.foldRulesTraced(lb[:mb], rules, tracer(&tb, written, rules))
	if !slices.Equal(ta, tb) {
		return Result{}, Result{}, nil, false
	}
	return Result{Rules: fa.ep, Events: fa.events}, Result{Rules: fb.ep, Events: fb.events}, rules, true
}

// changed returns the refs of the policies that are on one side and not the other (by identity),
// sorted.
func changed(a, b [][]*policy.Policy) []policy.Ref {
	var out []policy.Ref
	in := func(p *policy.Policy, levels [][]*policy.Policy) bool {
		for _, ps := range levels {
			if slices.Contains(ps, p) {
				return true
			}
		}
		return false
	}
	for _, side := range [2][2][][]*policy.Policy{{a, b}, {b, a}} {
		for _, ps := range side[0] {
			for _, p := range ps {
				if !in(p, side[1]) && !slices.Contains(out, p.Ref) {
					out = append(out, p.Ref)
				}
			}
		}
	}
	slices.SortFunc(out, policy.Ref.Compare)
	return out
}

// tracer records into t the outcomes of the blocks of policies other than written that can reach
// a rule outside rules (sorted): atomic overrides (they drop every rule), and the blocks that hold
// such a rule. A block whose rules are all followed may decide otherwise after the write: the fold
// of these rules shows what it does.
func tracer(t *[]byte, written []policy.Ref, rules []string) func(*policy.Policy, *policy.Block, byte) {
	return func(p *policy.Policy, b *policy.Block, o byte) {
		if slices.Contains(written, p.Ref) {
			return
		}
		if b != p.Overrides || b.Strategy == policy.StrategyMerge {
			if len(b.Rules) <= len(rules) && followsAll(rules, b) {
				return
			}
		}
		*t = append(*t, o)
	}
}

// followsAll reports whether every rule of b is among rules (sorted).
func followsAll(rules []string, b *policy.Block) bool {
	for id := range b.Rules {
		if _, in := slices.BinarySearch(rules, id); !in {
			return false
		}
	}
	return true
}

// outcome codes a decision for a trace: false, true, or an error.
func outcome(ok bool, err error) byte {
	switch {
	case err != nil:
		return 2
	case ok:
		return 1
	}
	return 0
}
