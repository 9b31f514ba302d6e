package reconcile

import (
	"sync"

	"github.com/precedent-dev/precedent/cel"
	"github.com/precedent-dev/precedent/internal/effective"
	"github.com/precedent-dev/precedent/internal/policy"
)

// holdings counts, for the last few effective policies the reconciler read, how many rules each
// policy holds in them. The effective policies of a snapshot are shared (memoized folds), and a
// change to one policy brings every policy on its paths back to the reconciler: with the counts,
// a policy that holds all of its rules on a path (a Gateway policy of thousands of overrides) is
// settled there by one lookup instead of one per rule, and the effective policy is walked once per
// fold rather than once per policy.
//
// An effective policy is named by its fold key (effective.Snapshot.FoldKey): the policies of its
// path by uid, generation and resourceVersion, which name one version of a policy of the API
// server, where the reconciler reads them. A fold depends on those policies and on the kind and
// condition evaluator of the snapshot besides: the counts are dropped when these change.
type holdings struct {
	mu   sync.Mutex
	kind policy.Kind
	cond *cel.Evaluator
	last [8]holding
	next int
}

// holding is the count of one effective policy's rules by source.
type holding struct {
	key string // the fold key; empty: no count
	by  map[policy.Ref]int
}

// held returns how many rules of the effective policy rules, of fold key key in snap, come from
// ref.
func (h *holdings) held(snap *effective.Snapshot, key []byte, rules map[string]effective.Entry, ref policy.Ref) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.cond != snap.Cond || !h.kind.Equal(snap.Kind) {
		h.kind, h.cond, h.last, h.next = snap.Kind, snap.Cond, [8]holding{}, 0
	}
	for _, x := range h.last {
		if x.by != nil && x.key == string(key) {
			return x.by[ref]
		}
	}
	by := map[policy.Ref]int{}
	for _, e := range rules {
		by[e.Source]++
	}
	h.last[h.next] = holding{key: string(key), by: by}
	h.next = (h.next + 1) % len(h.last)
	return by[ref]
}
