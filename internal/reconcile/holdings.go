package reconcile

import (
	"reflect"
	"sync"

	"github.com/precedent-dev/precedent/internal/effective"
	"github.com/precedent-dev/precedent/internal/policy"
)

// holdings counts, for the last few effective policies the reconciler read, how many rules each
// policy holds in them. The effective policies of a snapshot are shared (memoized folds), and a
// change to one policy brings every policy on its paths back to the reconciler: with the counts,
// a policy that holds all of its rules on a path (a Gateway policy of thousands of overrides) is
// settled there by one lookup instead of one per rule, and the effective policy is walked once per
// fold rather than once per policy.
type holdings struct {
	mu   sync.Mutex
	last [8]holding
	next int
}

// holding is the count of one effective policy's rules by source. rules is kept so that its address,
// the key, is not reused by another map while it is remembered.
type holding struct {
	rules map[string]effective.Entry
	by    map[policy.Ref]int
}

// held returns how many rules of the effective policy rules come from ref.
func (h *holdings) held(rules map[string]effective.Entry, ref policy.Ref) int {
	id := reflect.ValueOf(rules).UnsafePointer()
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, x := range h.last {
		if x.rules != nil && reflect.ValueOf(x.rules).UnsafePointer() == id {
			return x.by[ref]
		}
	}
	by := map[policy.Ref]int{}
	for _, e := range rules {
		by[e.Source]++
	}
	h.last[h.next] = holding{rules: rules, by: by}
	h.next = (h.next + 1) % len(h.last)
	return by[ref]
}
