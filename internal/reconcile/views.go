package reconcile

import (
	"slices"
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/precedent-dev/precedent/internal/policy"
)

// views remembers the view of each policy (policy.View) by its uid and generation. A view reads the
// spec, which changes only with the generation, and the name, namespace and creationTimestamp,
// which never change: so a policy's status writes and its neighbours' changes, which each bring it
// back to the reconciler, do not parse it again (for a policy of thousands of rules, that parse was
// a third of its reconcile).
type views struct {
	mu sync.Mutex
	m  map[types.NamespacedName]viewEntry
}

type viewEntry struct {
	uid  types.UID
	gen  int64
	kind policy.Kind
	p    *policy.Policy
	errs field.ErrorList
}

// view returns policy.View(k, u), remembered. The policy is shared: callers must not modify it.
func (v *views) view(k policy.Kind, u *unstructured.Unstructured) (*policy.Policy, field.ErrorList) {
	key := types.NamespacedName{Namespace: u.GetNamespace(), Name: u.GetName()}
	uid, gen := u.GetUID(), u.GetGeneration()
	remember := uid != "" && gen > 0 // objects from the API server; others are viewed every time
	if remember {
		v.mu.Lock()
		e, ok := v.m[key]
		v.mu.Unlock()
		if ok && e.uid == uid && e.gen == gen && e.kind.Equal(k) {
			return e.p, e.errs
		}
	}
	p, errs := policy.View(k, u)
	errs = slices.Clip(errs) // callers append to it
	if remember {
		v.mu.Lock()
		v.m[key] = viewEntry{uid: uid, gen: gen, kind: k, p: p, errs: errs}
		v.mu.Unlock()
	}
	return p, errs
}

// forget drops the view of a deleted policy.
func (v *views) forget(key types.NamespacedName) {
	v.mu.Lock()
	delete(v.m, key)
	v.mu.Unlock()
}
