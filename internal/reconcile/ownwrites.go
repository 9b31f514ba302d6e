package reconcile

import (
	"strconv"
	"sync"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// ownWrites remembers the resourceVersion of the reconciler's last status write per policy until
// the cache has it. A reconcile that reads an older version from the cache would compare against
// yesterday's status, write again and meet a conflict: it waits instead for the write's own event,
// which brings the policy back (behind, caught).
type ownWrites struct {
	mu   sync.Mutex
	last map[types.NamespacedName]writeMark
}

type writeMark struct {
	rv     uint64
	waited bool // a reconcile found the cache behind this write and waits for its event
}

// mark records the write whose answer is obj.
func (w *ownWrites) mark(obj client.Object) {
	rv, ok := version(obj)
	if !ok {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.last[client.ObjectKeyFromObject(obj)] = writeMark{rv: rv}
}

// behind reports whether obj, read from the cache, is older than our last write of it; if so, the
// write's event is awaited (caught reports it waited).
func (w *ownWrites) behind(obj client.Object) bool {
	rv, ok := version(obj)
	if !ok {
		return false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	k := client.ObjectKeyFromObject(obj)
	m, found := w.last[k]
	if !found {
		return false
	}
	if rv >= m.rv {
		delete(w.last, k) // the cache has it
		return false
	}
	m.waited = true
	w.last[k] = m
	return true
}

// caught is told of an update event of obj. own: it is our last write (or later); waited: a
// reconcile waits for it. The write is forgotten once its event came.
func (w *ownWrites) caught(obj client.Object) (own, waited bool) {
	rv, ok := version(obj)
	if !ok {
		return false, false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	k := client.ObjectKeyFromObject(obj)
	m, found := w.last[k]
	if !found || rv < m.rv {
		return false, false
	}
	delete(w.last, k)
	return rv == m.rv, m.waited
}

// forget drops what is remembered of a policy (deleted).
func (w *ownWrites) forget(k types.NamespacedName) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.last, k)
}

// version is obj's resourceVersion as a number (etcd's revision, which the API server uses; as the
// webhook's state does, a version that is not a number is not compared).
func version(obj client.Object) (uint64, bool) {
	v, err := strconv.ParseUint(obj.GetResourceVersion(), 10, 64)
	return v, err == nil
}
