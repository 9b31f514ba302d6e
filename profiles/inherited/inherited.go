package inherited

import (
	"gomodules.xyz/jsonpatch/v2"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/profile"
	"github.com/precedent-dev/precedent/internal/vap"
	"github.com/precedent-dev/precedent/mutate"
)

// GEP713 is GEP-713's model: the engine's, nothing to default.
func GEP713() Folded { return Folded{Model: policy.ProfileGEP713} }

// DefaultsOverrides is the RFC's model: the engine's, plus the `strategy` default.
func DefaultsOverrides() Profile {
	return Profile{Folded{Model: policy.ProfileDefaultsOverrides}}
}

// Profile is the defaults-overrides profile.
type Profile struct{ Folded }

// DefaultsWebhook is the name of the mutating webhook that defaults `strategy`.
const DefaultsWebhook = "defaults.precedent.dev"

// MutateCondition is evaluated by the API server: only a defaults or overrides block without a
// strategy reaches the mutating webhook.
const MutateCondition = `has(object.spec) && ((has(object.spec.defaults) && !has(object.spec.defaults.strategy)) || (has(object.spec.overrides) && !has(object.spec.overrides.strategy)))`

// Default sets `strategy: atomic` on a defaults or overrides block that has none.
func (Profile) Default(_ schema.GroupKind, u *unstructured.Unstructured, _ *policy.Registry) []jsonpatch.JsonPatchOperation {
	return mutate.Patch(u)
}

// Webhooks: every kind of the profile is validated (deletes projected); a kind whose CRD is not one
// of Precedent's is also defaulted. The shipped CRDs default `strategy` in their schema, which the
// API server applies before admission, so registering the mutating webhook for them would only make
// the API server evaluate its matchConditions on every write (about 65 µs measured by
// `make bench-admission`) for a call that never happens.
func (p Profile) Webhooks(kinds []policy.Kind) profile.Webhooks {
	w := p.Folded.Webhooks(kinds)
	m := profile.Mutating{Name: DefaultsWebhook, Conditions: []admissionregistrationv1.MatchCondition{{Name: "block-without-strategy", Expression: MutateCondition}}}
	for _, k := range kinds {
		if NeedsDefaulting(k) {
			m.Resources = append(m.Resources, profile.Resource{Group: k.GVK.Group, Version: k.GVK.Version, Resource: profile.Plural(k.GVK.Kind)})
		}
	}
	w.Mutating = []profile.Mutating{m}
	return w
}

// NeedsDefaulting reports whether writes of kind k may need the mutating webhook's strategy
// default: a defaults-overrides kind whose CRD is not one of Precedent's.
func NeedsDefaulting(k policy.Kind) bool {
	return k.Profile == policy.ProfileDefaultsOverrides && k.GVK.Group != policy.Group
}

// MutatingTargets: the strategy default for every kind of the profile.
func (Profile) MutatingTargets(kinds []policy.Kind, _ bool) []vap.MutatingTarget {
	return vap.KindTargets(vap.StrategyDefault, kinds, profile.Plural)
}

// Defaultings: the strategy default.
func (Profile) Defaultings() []vap.Defaulting { return []vap.Defaulting{vap.StrategyDefault} }
