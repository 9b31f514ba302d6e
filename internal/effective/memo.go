package effective

import (
	"slices"
	"sync"

	"github.com/precedent-dev/precedent/internal/policy"
)

// memo maps fold keys to results; safe for concurrent use. A fold key names the policies of a path
// by identity (policy.Policy.AppendID: uid, name, generation, resourceVersion), and a fold depends
// on nothing but those policies, so the memo of a snapshot is shared by the versions Update and
// Rebase make from it. An entry keeps the levels it was folded from: offline input may give two
// versions of a policy one identity, so a lookup takes an entry only for the very policies it
// names. The memo is then tracked: it knows which policy is live (in the newest version) under
// each identity and which keys name each; Update retires a replaced or removed policy, dropping
// the folds that name it (the folds of the paths it reached) and refusing any such fold stored
// later by a reader of an older version. A view's memo (With, Without) lives for one request and
// is not tracked.
type memo[V any] struct {
	mu sync.RWMutex
	m  map[string]memoEntry[V]
	// owners holds, for each live policy's identity, that policy and the keys that name it; nil
	// when not tracked.
	owners map[string]*memoKeys
}

// memoEntry is a result and the levels (most specific first) it was folded from.
type memoEntry[V any] struct {
	v      V
	levels [][]*policy.Policy
}

// memoKeys are the keys naming one live policy; some may have been dropped since (by another
// policy's retirement): the list is filtered when it reaches next entries.
type memoKeys struct {
	live *policy.Policy
	list []string
	next int
}

func newMemo[V any]() *memo[V] { return &memo[V]{m: map[string]memoEntry[V]{}} }

func newTrackedMemo[V any]() *memo[V] {
	return &memo[V]{m: map[string]memoEntry[V]{}, owners: map[string]*memoKeys{}}
}

// load returns the result stored under key for levels.
func (m *memo[V]) load(key []byte, levels [][]*policy.Policy) (V, bool) {
	m.mu.RLock()
	e, ok := m.m[string(key)] // no allocation: the conversion is only a lookup
	m.mu.RUnlock()
	if !ok || !sameLevels(e.levels, levels) {
		var zero V
		return zero, false
	}
	return e.v, true
}

// sameLevels reports whether two lists of levels hold the very same policies.
func sameLevels(a, b [][]*policy.Policy) bool {
	if len(a) != len(b) {
		return false
	}
	for j := range a {
		if !slices.Equal(a[j], b[j]) {
			return false
		}
	}
	return true
}

// store records r, the fold of levels, under key unless a result of the same levels is there
// already (folded at the same time by another goroutine), and returns the one kept: every reader
// of a key sees the same result, rule maps included, which callers compare by identity. A tracked
// memo stores nothing that names a retired policy.
func (m *memo[V]) store(key []byte, r V, levels [][]*policy.Policy) V {
	var id [128]byte
	m.mu.Lock()
	defer m.mu.Unlock()
	if prev, ok := m.m[string(key)]; ok && sameLevels(prev.levels, levels) {
		return prev.v
	}
	if m.owners != nil {
		for _, ps := range levels {
			for _, p := range ps {
				if o := m.owners[string(p.AppendID(id[:0]))]; o == nil || o.live != p {
					return r // folded by a reader of a version before p was replaced
				}
			}
		}
	}
	k := string(key)
	kept := make([][]*policy.Policy, len(levels)) // the levels' slices are the index's, never modified
	copy(kept, levels)
	m.m[k] = memoEntry[V]{v: r, levels: kept}
	if m.owners != nil {
		for _, ps := range levels {
			for _, p := range ps {
				o := m.owners[string(p.AppendID(id[:0]))]
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

// admit makes p live in a tracked memo. A policy of the same identity must be retired first.
func (m *memo[V]) admit(p *policy.Policy) {
	if m.owners == nil {
		return
	}
	id := string(p.AppendID(nil))
	m.mu.Lock()
	if m.owners[id] == nil {
		m.owners[id] = &memoKeys{live: p, next: 64}
	}
	m.mu.Unlock()
}

// retire drops the results that name p from a tracked memo, and stores none that do from now on.
func (m *memo[V]) retire(p *policy.Policy) {
	if m.owners == nil {
		return
	}
	id := string(p.AppendID(nil))
	m.mu.Lock()
	if o := m.owners[id]; o != nil && o.live == p {
		for _, k := range o.list {
			delete(m.m, k)
		}
		delete(m.owners, id)
	}
	m.mu.Unlock()
}

// size is the number of results held.
func (m *memo[V]) size() int {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return len(m.m)
}
