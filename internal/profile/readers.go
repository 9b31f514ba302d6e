package profile

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/precedent-dev/precedent/internal/effective"
	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/settings"
	"github.com/precedent-dev/precedent/internal/source"
)

// Readers is a profile that says whose reviews read which policies: the creation-order check of
// `validate -f` reviews again, with two policies' creation order swapped, only the policies whose
// review may read one of them. A profile without it: every policy of its kinds and of the kinds it
// reads.
type Readers interface {
	// Readers returns, for policies objs of one kind the profile claims (as st holds them), which
	// policies' reviews may read one of them (any of their fields but their targets): nil when it
	// cannot tell (every policy's may).
	Readers(st source.Source, s settings.Settings, reg *policy.Registry, objs []*unstructured.Unstructured) func(schema.GroupKind, policy.Ref) bool
}

var _ Readers = Engine{}

// Readers says, for the engine's review, which reads the snapshot of the written kind only, over
// the paths the write reaches: the policies of that kind on a path of one of objs (at any level
// of it, served by the kind's GatewayClasses or not) or at one of their targets.
func (Engine) Readers(st source.Source, s settings.Settings, reg *policy.Registry, objs []*unstructured.Unstructured) func(schema.GroupKind, policy.Ref) bool {
	if len(objs) == 0 {
		return nil
	}
	gk := objs[0].GroupVersionKind().GroupKind()
	k, ok := reg.Lookup(gk)
	if !ok || !st.KindSynced(gk) {
		return nil
	}
	cond, err := st.Evaluator(s.CELCostLimit)
	if err != nil {
		return nil
	}
	snap := st.Snapshot(k, cond)
	refs := map[policy.Ref]bool{}
	for _, u := range objs {
		p, _ := policy.View(k, u)
		if p == nil || u.GroupVersionKind().GroupKind() != gk {
			return nil
		}
		refs[p.Ref] = true
		for _, t := range effective.TargetsOf(p) {
			for _, q := range snap.At(t) {
				refs[q.Ref] = true
			}
			for _, i := range snap.Graph.PathsFor(t) {
				for _, l := range snap.Levels(snap.Graph.Paths[i]) {
					for _, q := range l.Policies {
						refs[q.Ref] = true
					}
				}
			}
		}
	}
	return func(g schema.GroupKind, r policy.Ref) bool { return g == gk && refs[r] }
}
