package reconcile

import (
	"fmt"
	"slices"
	"sync"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/precedent-dev/precedent/internal/effective"
	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/settings"
	"github.com/precedent-dev/precedent/validate"
)

// acceptance gives the folds that decide Enforced and Affected the policies the reconciler accepts,
// and only those: a policy not accepted (Invalid, TargetNotFound, Conflicted) holds nothing, as
// `precedent effective`, `explain` and `diff` show it, so an Invalid Gateway override does not make
// the route policies under it Overridden.
//
// Each policy is judged as Reconcile judges its own Accepted condition (the errors of its view,
// Invalid and acceptedCondition, over the snapshot of every policy of the kind). Only the policies
// on the paths a fold reads are judged, once per snapshot (immutable: a new event brings a new one)
// and settings; the stateless checks, the costly part for a policy of thousands of rules, once per
// version of a policy (the state keeps one view per object version).
type acceptance struct {
	mu       sync.Mutex
	snap     *effective.Snapshot
	settings string
	judged   map[policy.Ref]bool // on snap: accepted
	rejected []policy.Ref        // judged on snap and not accepted, in the order found
	folds    *effective.Snapshot // snap without rejected (snap when none); rebuilt when rejected grows
	foldsN   int                 // len(rejected) when folds was made

	// stateless are the stateless errors (the view's and validate.Stateless's) of each policy
	// version judged: one per policy, replaced when its version changes.
	stateless map[policy.Ref]statelessVerdict
	resets    int
}

type statelessVerdict struct {
	p    *policy.Policy
	errs field.ErrorList
}

// viewErrors gives the errors reading a policy's object found (nil when there is none).
type viewErrors func(p *policy.Policy) field.ErrorList

// foldsFor returns the snapshot p's fold reads: snap without the policies on p's paths (p aside)
// that are not accepted, and without any other policy found not accepted on snap before.
func (a *acceptance) foldsFor(snap *effective.Snapshot, p *policy.Policy, s settings.Settings, errs viewErrors) *effective.Snapshot {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.reset(snap, s)
	seen := map[*policy.Policy]bool{}
	for _, i := range snap.PathsOf(p) {
		for _, lv := range snap.Levels(snap.Graph.Paths[i]) {
			for _, q := range lv.Policies {
				if !seen[q] && q.Ref != p.Ref {
					seen[q] = true
					a.judge(snap, q, s, errs)
				}
			}
		}
	}
	if ok, judged := a.judged[p.Ref]; judged && !ok {
		// p, judged on another version of it as a policy on some other policy's paths, and accepted
		// by its own reconcile: its fold keeps it (the next event on it settles both).
		others := slices.DeleteFunc(slices.Clone(a.rejected), func(r policy.Ref) bool { return r == p.Ref })
		return a.snap.WithoutAll(others)
	}
	return a.current()
}

// foldsOver returns the snapshot the folds of the policies ps read (the policies of one target):
// snap without the policies of ps, and those on their paths, that are not accepted.
func (a *acceptance) foldsOver(snap *effective.Snapshot, ps []*policy.Policy, s settings.Settings, errs viewErrors) *effective.Snapshot {
	folds := snap
	for _, p := range ps {
		folds = a.foldsFor(snap, p, s, errs)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, p := range ps {
		a.judge(snap, p, s, errs)
	}
	if len(ps) > 0 {
		folds = a.current()
	}
	return folds
}

// accepted reports whether p is accepted on snap, as judged for the folds (a policy no fold read
// is judged now).
func (a *acceptance) accepted(snap *effective.Snapshot, p *policy.Policy, s settings.Settings, errs viewErrors) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.reset(snap, s)
	return a.judge(snap, p, s, errs)
}

// reset forgets the judgements made on another snapshot or under other settings.
func (a *acceptance) reset(snap *effective.Snapshot, s settings.Settings) {
	key := fmt.Sprint(s.UnsetEnabled, s.OnePolicyPerTarget, s.CELCostLimit, s.Actions)
	if a.snap == snap && a.settings == key {
		return
	}
	if a.settings != key || a.snap == nil || a.snap.Cond != snap.Cond || a.resets%64 == 0 {
		a.stateless = map[policy.Ref]statelessVerdict{} // also drops, now and then, the policies deleted since
	}
	a.resets++
	a.snap, a.settings = snap, key
	a.judged, a.rejected, a.folds, a.foldsN = map[policy.Ref]bool{}, nil, snap, 0
}

// judge judges q on snap once (a.mu held), as Reconcile judges its own policy (Invalid: the
// stateless checks, then the stateful ones).
func (a *acceptance) judge(snap *effective.Snapshot, q *policy.Policy, s settings.Settings, errs viewErrors) bool {
	if ok, done := a.judged[q.Ref]; done {
		return ok
	}
	v, ok := a.stateless[q.Ref]
	if !ok || v.p != q {
		v = statelessVerdict{p: q, errs: append(slices.Clip(errs(q)), validate.Stateless(q, s, snap.Cond)...)}
		a.stateless[q.Ref] = v
	}
	invalid := v.errs
	if len(invalid) == 0 {
		invalid, _ = validate.Stateful(snap, q, s, settings.CheckUnsetOverride)
	}
	ok = acceptedCondition(snap, q, invalid, s).ok
	a.judged[q.Ref] = ok
	if !ok {
		a.rejected = append(a.rejected, q.Ref)
	}
	return ok
}

// current is the snapshot without every policy found rejected so far (a.mu held).
func (a *acceptance) current() *effective.Snapshot {
	if a.foldsN != len(a.rejected) {
		a.folds, a.foldsN = a.snap.WithoutAll(a.rejected), len(a.rejected)
	}
	return a.folds
}
