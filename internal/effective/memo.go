package effective

import (
	"sync"

	"github.com/precedent-dev/precedent/internal/policy"
)

// memo maps fold keys to results; safe for concurrent use. A fold key names policies by address
// (appendLevel), and a fold depends on nothing but those policies, so the memo of a snapshot is
// shared by the versions Update and Rebase make from it. It is then tracked: it knows which
// policies are live (in the newest version) and which keys name each; Update retires a replaced or
// removed policy, dropping the folds that name it (the folds of the paths it reached) and refusing
// any such fold stored later by a reader of an older version, so that no key outlives its policy
// and no address is reused under a key. A view's memo (With, Without) lives for one request and is
// not tracked.
type memo[V any] struct {
	mu sync.RWMutex
	m  map[string]V
	// owners holds, for each live policy, the keys that name it; nil when not tracked.
	owners map[*policy.Policy]*memoKeys
}

// memoKeys are the keys naming one policy; some may have been dropped since (by another policy's
// retirement): the list is filtered when it reaches next entries.
type memoKeys struct {
	list []string
	next int
}

func newMemo[V any]() *memo[V] { return &memo[V]{m: map[string]V{}} }

func newTrackedMemo[V any]() *memo[V] {
	return &memo[V]{m: map[string]V{}, owners: map[*policy.Policy]*memoKeys{}}
}

func (m *memo[V]) load(key []byte) (V, bool) {
	m.mu.RLock()
	r, ok := m.m[string(key)] // no allocation: the conversion is only a lookup
	m.mu.RUnlock()
	return r, ok
}

// store records r, the fold of levels, under key unless a result is there already (folded at the
// same time by another goroutine), and returns the one kept: every reader of a key sees the same
// result, rule maps included, which callers compare by identity. A tracked memo stores nothing that
// names a retired policy.
func (m *memo[V]) store(key []byte, r V, levels [][]*policy.Policy) V {
	m.mu.Lock()
	defer m.mu.Unlock()
	if prev, ok := m.m[string(key)]; ok {
		return prev
	}
	if m.owners != nil {
		for _, ps := range levels {
			for _, p := range ps {
				if m.owners[p] == nil {
					return r // folded by a reader of a version before p was replaced
				}
			}
		}
	}
	k := string(key)
	m.m[k] = r
	if m.owners != nil {
		for _, ps := range levels {
			for _, p := range ps {
				o := m.owners[p]
				if o.list = append(o.list, k); len(o.list) >= o.next {
					kept := o.list[:0]
					for _, x := range o.list {
						if _, ok := m.m[x]; ok {
							kept = append(kept, x)
						}
					}
					o.list, o.next = kept, 2*len(kept)+64
				}
			}
		}
	}
	return r
}

// admit makes p live in a tracked memo.
func (m *memo[V]) admit(p *policy.Policy) {
	if m.owners == nil {
		return
	}
	m.mu.Lock()
	if m.owners[p] == nil {
		m.owners[p] = &memoKeys{next: 64}
	}
	m.mu.Unlock()
}

// retire drops the results that name p from a tracked memo, and stores none that do from now on.
func (m *memo[V]) retire(p *policy.Policy) {
	if m.owners == nil {
		return
	}
	m.mu.Lock()
	if o := m.owners[p]; o != nil {
		for _, k := range o.list {
			delete(m.m, k)
		}
		delete(m.owners, p)
	}
	m.mu.Unlock()
}

// size is the number of results held.
func (m *memo[V]) size() int {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return len(m.m)
}
