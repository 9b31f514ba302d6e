package profile

import (
	"fmt"

	"gomodules.xyz/jsonpatch/v2"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/precedent-dev/precedent/internal/diff"
	"github.com/precedent-dev/precedent/internal/effective"
	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/settings"
	"github.com/precedent-dev/precedent/internal/source"
	"github.com/precedent-dev/precedent/internal/topology"
	"github.com/precedent-dev/precedent/validate"
)

// The engine-backed profiles (those whose policy.Model has Engine) review their kinds on the
// state's snapshots with package validate; these are the parts they share.

// EngineReview reviews a write or delete of a policy of kind k against the cached snapshot of its
// kind.
func EngineReview(k policy.Kind, r Request) Decision {
	st, s := r.Source, r.Settings
	if err := KindListed(st, k); err != nil {
		return Decision{Unavailable: err}
	}
	cond, err := st.Evaluator(s.CELCostLimit)
	if err != nil {
		return Decision{Internal: err}
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
	return Decision{Errs: out.Errs, CheckIDs: out.CheckIDs, Warnings: out.Warnings, Affected: out.Affected}
}

// KindListed makes sure the state has listed the policies of kind k, so that a write is checked
// against all of them. A kind managed since a PrecedentConfig change (normally watched as the change
// came in), or whose CRD was installed after the start, is watched now; while its informer lists,
// the error says to retry (the handler answers 503, which the API server's client may retry).
func KindListed(st source.Source, k policy.Kind) error {
	gk := k.GVK.GroupKind()
	if st.KindSynced(gk) {
		return nil
	}
	if err := st.WatchKinds([]policy.Kind{k}); err != nil {
		return fmt.Errorf("watching the %s policies: %w: retry", k.GVK.Kind, err)
	}
	if !st.KindSynced(gk) {
		return fmt.Errorf("the cache of %s policies is not synced yet: retry", k.GVK.Kind)
	}
	return nil
}

// Engine is the Profile of an engine-backed model: the registry's kinds configured with profile
// Model, reviewed on the state's snapshots, validated offline on the input's, no defaulting. A
// profile package embeds it and overrides what its model does differently.
type Engine struct{ Model policy.Profile }

var (
	_ Profile      = Engine{}
	_ Configurable = Engine{}
)

func (e Engine) Name() policy.Profile { return e.Model }

// KindModel is the engine's model of the profile: it has the reconciler's status writer.
func (e Engine) KindModel() policy.Model {
	m, _ := policy.Known(e.Model)
	return m
}

func (e Engine) Claims(gk schema.GroupKind, reg *policy.Registry) bool {
	k, ok := reg.Lookup(gk)
	return ok && k.Profile == e.Model
}

func (Engine) Own() []schema.GroupKind { return nil }

func (Engine) Reads() []schema.GroupKind { return nil }

func (Engine) Sources(settings.Settings) []schema.GroupKind { return nil }

func (Engine) Review(r Request) Decision {
	k, _ := r.Registry.Lookup(r.GroupKind)
	return EngineReview(k, r)
}

func (Engine) Default(schema.GroupKind, *unstructured.Unstructured, *policy.Registry) []jsonpatch.JsonPatchOperation {
	return nil
}

func (e Engine) Webhooks(kinds []policy.Kind) Webhooks {
	return Webhooks{Validate: EngineWebhooks(e.Model, kinds)}
}

func (e Engine) Prepare(st source.Source, s settings.Settings) error {
	return st.PrepareSnapshots(KindsOf(e.Model, s.Registry()), s.CELCostLimit)
}

func (e Engine) Checks(gk schema.GroupKind, reg *policy.Registry) bool { return e.Claims(gk, reg) }

// Effective folds the paths the policies of k reach on the input's snapshot.
func (Engine) Effective(in *Offline, k policy.Kind, target *topology.Target) ([]effective.Item, error) {
	snap := in.Snapshot(k)
	return snap.Items(snap.Reached(target)), nil
}

// Diff compares the effective policies of the profile's kinds between base and head.
func (e Engine) Diff(base, head *Offline, kind string) ([]diff.Change, bool, error) {
	var out []diff.Change
	matched := false
	for _, k := range KindsOf(e.Model, head.Registry) {
		if Names(kind, k.GVK.GroupKind()) {
			matched = true
			out = append(out, EngineDiff(base, head, k)...)
		}
	}
	return out, matched, nil
}

// EngineDiff compares the effective policies of kind k (as head's settings define it) in base and
// head; when the topology did not change, both snapshots share base's graph, so that only the paths
// the changed policies reach are compared.
func EngineDiff(base, head *Offline, k policy.Kind) []diff.Change {
	var bp []*policy.Policy
	if bk, ok := base.Registry.Lookup(k.GVK.GroupKind()); ok {
		bp = base.Inv.Views(bk)
	}
	bs := effective.NewSnapshot(k, base.Graph, bp, base.Cond)
	graph := head.Graph
	if diff.SameTopology(base.Inv.Topology, head.Inv.Topology) {
		graph = base.Graph
	}
	return diff.Effective(bs, effective.NewSnapshot(k, graph, head.Inv.Views(k), head.Cond))
}

// EngineWebhooks are the validating rules of the registry's kinds of profile name: creates,
// updates and (projected) deletes.
func EngineWebhooks(name policy.Profile, kinds []policy.Kind) []Resource {
	var out []Resource
	for _, k := range ofProfile(name, kinds) {
		out = append(out, Resource{Group: k.GVK.Group, Version: k.GVK.Version, Resource: Plural(k.GVK.Kind), Deletes: true})
	}
	return out
}

// KindsOf are the kinds of reg configured with profile name.
func KindsOf(name policy.Profile, reg *policy.Registry) []policy.Kind {
	return reg.OfProfile(name)
}

// ofProfile keeps the kinds configured with profile name.
func ofProfile(name policy.Profile, kinds []policy.Kind) []policy.Kind {
	var out []policy.Kind
	for _, k := range kinds {
		if k.Profile == name {
			out = append(out, k)
		}
	}
	return out
}

// Lines renders field errors of obj as the CLI contract's lines: "<Kind> <ns>/<name>: <error>".
func Lines(obj *unstructured.Unstructured, errs field.ErrorList) []string {
	out := make([]string, 0, len(errs))
	for _, e := range errs {
		out = append(out, fmt.Sprintf("%s %s: %s", obj.GetKind(), NSName(obj), e.Error()))
	}
	return out
}

// NSName is "namespace/name", or the name of a cluster-scoped object.
func NSName(u *unstructured.Unstructured) string {
	if u.GetNamespace() == "" {
		return u.GetName()
	}
	return u.GetNamespace() + "/" + u.GetName()
}

// DiffEffective is the Diff of a profile whose views are its Effective items: the items of each of
// its kinds in reg that kind names, compared between base and head (matched: kind named one).
func DiffEffective(name policy.Profile, base, head *Offline, kind string, eff func(*Offline, policy.Kind, *topology.Target) ([]effective.Item, error)) ([]diff.Change, bool, error) {
	var out []diff.Change
	matched := false
	for _, k := range KindsOf(name, head.Registry) {
		if !Names(kind, k.GVK.GroupKind()) {
			continue
		}
		matched = true
		b, _ := eff(base, k, nil)
		h, _ := eff(head, k, nil)
		out = append(out, diff.Items(k.GVK.GroupKind(), b, h)...)
	}
	return out, matched, nil
}
