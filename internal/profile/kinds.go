package profile

import (
	"errors"
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/precedent-dev/precedent/internal/diff"
	"github.com/precedent-dev/precedent/internal/effective"
	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/source"
	"github.com/precedent-dev/precedent/internal/topology"
)

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

// Listed makes sure the state has listed every kind of profile name in reg (KindListed) and every
// kind of reads (ReadsListed): a world derived from the state then holds them all. The error names
// every cache still missing and says to retry.
func Listed(st source.Source, name policy.ProfileName, reg *policy.Registry, reads ...schema.GroupKind) error {
	var errs []error
	for _, k := range KindsOf(name, reg) {
		errs = append(errs, KindListed(st, k))
	}
	return errors.Join(append(errs, ReadsListed(st, reads...))...)
}

// ReadsListed makes sure the state has listed the kinds gks that a profile reads, watched from the
// first call on (source.Source.WatchRead).
func ReadsListed(st source.Source, gks ...schema.GroupKind) error {
	var errs []error
	for _, gk := range gks {
		switch ready, err := st.WatchRead(gk); {
		case err != nil:
			errs = append(errs, fmt.Errorf("watching %s: %w: retry", gk.Kind, err))
		case !ready:
			errs = append(errs, fmt.Errorf("the cache of %s is not synced yet: retry", gk.Kind))
		}
	}
	return errors.Join(errs...)
}

// KindWebhooks are the validating rules of the registry's kinds of profile name: creates,
// updates and (projected) deletes.
func KindWebhooks(name policy.ProfileName, kinds []policy.Kind) []Resource {
	var out []Resource
	for _, k := range ofProfile(name, kinds) {
		out = append(out, Resource{Group: k.GVK.Group, Version: k.GVK.Version, Resource: Plural(k.GVK.Kind), Deletes: true})
	}
	return out
}

// KindsOf are the kinds of reg configured with profile name.
func KindsOf(name policy.ProfileName, reg *policy.Registry) []policy.Kind {
	return reg.OfProfile(name)
}

// ofProfile keeps the kinds configured with profile name.
func ofProfile(name policy.ProfileName, kinds []policy.Kind) []policy.Kind {
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
func DiffEffective(name policy.ProfileName, base, head *Offline, kind string, eff func(*Offline, policy.Kind, *topology.Target) ([]effective.Item, error)) ([]diff.Change, bool, error) {
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

// ControllersOf are the GatewayClass controllers kinds apply to (policy.Kind.Controllers), sorted:
// the union of their lines', nil (any) when one of them applies to any. A model with one world for
// all its kinds serves the union.
func ControllersOf(kinds []policy.Kind) []string {
	var out []string
	for _, k := range kinds {
		c := k.Controllers()
		if c == nil {
			return nil
		}
		for _, n := range c {
			if !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
	}
	slices.Sort(out)
	return out
}

// DiffEach is the Diff of a profile over its kinds gks: the changes one gives for each kind that
// kind names ("": every one); matched is false when it names none.
func DiffEach(gks []schema.GroupKind, kind string, one func(gk schema.GroupKind) []diff.Change) (changes []diff.Change, matched bool, err error) {
	for _, gk := range gks {
		if Names(kind, gk) {
			matched = true
			changes = append(changes, one(gk)...)
		}
	}
	return changes, matched, nil
}

// PerRequest is the Effective of a model whose policies decide per request (access's per tool call,
// mesh's per proxy), not per Gateway API path: an error naming k, what it is ("an access kind") and
// the command that simulates it instead.
func PerRequest(k policy.Kind, what, see string) error {
	return fmt.Errorf("--kind %s.%s is %s: it has no effective policy per Gateway API path; see %s", k.GVK.Kind, k.GVK.Group, what, see)
}

// Ready reports whether profile name is in use in reg and the state has listed its kinds and
// reads (Listed): when Prepare derives the profile's world before the replica reports ready
// (otherwise the first writes wait for the caches).
func Ready(st source.Source, name policy.ProfileName, reg *policy.Registry, reads ...schema.GroupKind) bool {
	return len(KindsOf(name, reg)) > 0 && Listed(st, name, reg, reads...) == nil
}
