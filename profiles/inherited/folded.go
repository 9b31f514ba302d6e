package inherited

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/precedent-dev/precedent/internal/effective"
	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/profile"
	"github.com/precedent-dev/precedent/internal/settings"
	"github.com/precedent-dev/precedent/internal/source"
	"github.com/precedent-dev/precedent/validate"
)

// Review reviews a write or delete of a policy of kind k against the cached snapshot of its
// kind.
func Review(k policy.Kind, r profile.Request) profile.Decision {
	st, s := r.Source, r.Settings
	if err := profile.KindListed(st, k); err != nil {
		return profile.Decision{Unavailable: err}
	}
	cond, err := st.Evaluator(s.CELCostLimit)
	if err != nil {
		return profile.Decision{Internal: err}
	}
	snap := st.Snapshot(k, cond)
	var out validate.Outcome
	if r.Deleting() {
		out = validate.ReviewDelete(snap, policy.Ref{Namespace: r.Object.GetNamespace(), Name: r.Object.GetName()}, s)
	} else if r.Paths {
		out = validate.ReviewPaths(snap, r.Object, s, cond)
	} else {
		out = validate.Review(snap, r.Object, s, cond)
	}
	return profile.Decision{Errs: out.Errs, CheckIDs: out.CheckIDs, Warnings: out.Warnings, Affected: out.Affected}
}

// Folded is the profile of a model folded on the shared engine (internal/effective, reviewed by
// package validate): the registry's kinds configured with profile Model, reviewed on the state's
// snapshots, validated offline on the input's, no defaulting. The RFC's and GEP-713's models are
// Folded; Kuadrant's embeds it and adds its own model of the fold.
type Folded struct {
	Model policy.ProfileName
	profile.NoDefaulting
}

var (
	_ profile.Profile      = Folded{}
	_ profile.Configurable = Folded{}
)

func (e Folded) Name() policy.ProfileName { return e.Model }

// KindModel is the engine's model of the profile: it has the reconciler's status writer.
func (e Folded) KindModel() policy.Model {
	m, _ := policy.Known(e.Model)
	return m
}

func (e Folded) Claims(gk schema.GroupKind, reg *policy.Registry) bool {
	return profile.ClaimedBy(e.Model, gk, reg)
}

func (Folded) Own() []schema.GroupKind { return nil }

func (Folded) Reads() []schema.GroupKind { return nil }

func (Folded) Sources(settings.Settings) []schema.GroupKind { return nil }

func (Folded) Review(r profile.Request) profile.Decision {
	k, _ := r.Registry.Lookup(r.GroupKind)
	return Review(k, r)
}

func (e Folded) Webhooks(kinds []policy.Kind) profile.Webhooks {
	return profile.Webhooks{Validate: profile.KindWebhooks(e.Model, kinds)}
}

func (e Folded) Prepare(st source.Source, s settings.Settings) error {
	return st.PrepareSnapshots(profile.KindsOf(e.Model, s.Registry()), s.CELCostLimit)
}

func (e Folded) Checks(gk schema.GroupKind, reg *policy.Registry) bool { return e.Claims(gk, reg) }

var _ profile.Readers = Folded{}

// Readers says, for the engine's review, which reads the snapshot of the written kind only, over
// the paths the write reaches: the policies of that kind on a path of one of objs (at any level
// of it, served by the kind's GatewayClasses or not) or at one of their targets.
func (Folded) Readers(st source.Source, s settings.Settings, reg *policy.Registry, objs []*unstructured.Unstructured) func(schema.GroupKind, policy.Ref, profile.Operation) bool {
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
	return func(g schema.GroupKind, r policy.Ref, _ profile.Operation) bool { return g == gk && refs[r] }
}
