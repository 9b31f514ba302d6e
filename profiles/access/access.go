package access

import (
	"gomodules.xyz/jsonpatch/v2"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/precedent-dev/precedent/internal/effective"
	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/profile"
	"github.com/precedent-dev/precedent/internal/settings"
	"github.com/precedent-dev/precedent/internal/source"
	"github.com/precedent-dev/precedent/internal/topology"
	"github.com/precedent-dev/precedent/internal/vap"
	"github.com/precedent-dev/precedent/internal/warning"
	engine "github.com/precedent-dev/precedent/profiles/access/engine"
	"github.com/precedent-dev/precedent/validate"
)

// Profile is the access profile.
type Profile struct{}

var _ profile.Profile = Profile{}

// DefaultsWebhook defaults the namespace of AccessPolicy ServiceAccount sources.
const DefaultsWebhook = "access-defaults.precedent.dev"

// DefaultsCondition: only an AccessPolicy with a ServiceAccount source lacking a namespace reaches
// the mutating webhook, which defaults it to the policy's namespace.
const DefaultsCondition = `has(object.spec) && has(object.spec.rules) && object.spec.rules.exists(r, has(r.source) && has(r.source.serviceAccount) && !has(r.source.serviceAccount.namespace))`

// Its own kinds, whatever the settings say.
var own = []schema.GroupKind{engine.AccessPolicyKind, engine.XAccessPolicyKind}

// Name is empty: the profile manages its own kinds only.
func (Profile) Name() policy.ProfileName { return "" }

func (Profile) Claims(gk schema.GroupKind, _ *policy.Registry) bool { return engine.IsPolicy(gk) }

func (Profile) Own() []schema.GroupKind { return own }

// Reads: nothing stored whole beyond its own kinds (the state keeps what it reads apart).
func (Profile) Reads() []schema.GroupKind { return nil }

// Sources: its kinds and the configured Backend kind.
func (Profile) Sources(s settings.Settings) []schema.GroupKind {
	return append(append([]schema.GroupKind(nil), own...), schema.GroupKind{Group: SettingsOf(s).BackendGroup, Kind: SettingsOf(s).BackendKind})
}

// Review checks a write under the live settings (the Backend kind, the mixing switch), warns of
// targets that do not exist, and projects it against the other policies of its kind over the
// Gateway → HTTPRoute → Backend topology (with the live combine mode). A delete is projected: what
// the removal opens or revokes; a stored policy is read as the state reads the others (mixing
// allowed: it was admitted under the settings of its time), and one that no longer parses is
// deleted without a word.
func (Profile) Review(r profile.Request) profile.Decision {
	s := r.Settings
	if r.Deleting() {
		p, errs := engine.Parse(r.Object, stored(SettingsOf(s)))
		if len(errs) > 0 {
			return profile.Allowed
		}
		ws := Grants(r.Source, r.GroupKind, SettingsOf(s)).ProjectDelete(p, s.WarningLimit)
		return profile.Decision{Warnings: validate.Limit(ws, s.WarningLimit)}
	}
	p, errs := engine.Parse(r.Object, SettingsOf(s))
	if len(errs) > 0 {
		return profile.Decision{Errs: errs, CheckIDs: profile.Same(checkSpec, len(errs))}
	}
	ws := targets(r.Source, &p, SettingsOf(s))
	budget := max(s.WarningLimit-len(ws), 1)
	ws = append(ws, Grants(r.Source, r.GroupKind, SettingsOf(s)).ProjectWrite(p, budget)...)
	return profile.Decision{Warnings: validate.Limit(ws, s.WarningLimit)}
}

// targets warns about each target that is not in the cluster: a Gateway, or a Backend when its kind
// is watched (without its CRD nothing is known about Backends, and nothing is said).
func targets(st source.Source, p *engine.Policy, as engine.Settings) []string {
	var ws []string
	backend := schema.GroupKind{Group: as.BackendGroup, Kind: as.BackendKind}
	for i, t := range p.Targets {
		n := types.NamespacedName{Namespace: p.Namespace, Name: t.Name}
		exists, known := true, true
		if t.Kind == engine.GatewayKind {
			exists = st.GatewayExists(n)
		} else {
			exists, known = st.BackendExists(backend, n)
		}
		if known && !exists {
			path := field.NewPath("spec", "targetRefs").Index(i)
			ws = append(ws, warning.TargetNotFound(path.String(), t.Kind+" "+n.String()))
		}
	}
	return ws
}

func (Profile) Default(_ schema.GroupKind, u *unstructured.Unstructured, _ *policy.Registry) []jsonpatch.JsonPatchOperation {
	return Patch(u)
}

// Webhooks: both kinds validated with their deletes projected; XAccessPolicy in whatever version
// its CRD serves: a rule for a resource that is not installed matches nothing and costs nothing, so
// it is always there and the webhook checks XAccessPolicies from the moment their CRD appears,
// without re-registering.
func (Profile) Webhooks([]policy.Kind) profile.Webhooks {
	res := webhookResources()
	return profile.Webhooks{Validate: res, Mutating: []profile.Mutating{{
		Name: DefaultsWebhook, Resources: res,
		Conditions: []admissionregistrationv1.MatchCondition{{Name: "service-account-without-namespace", Expression: DefaultsCondition}},
	}}}
}

// webhookResources are the resources of both kinds, in version (the versions table's).
func webhookResources() []profile.Resource {
	res := make([]profile.Resource, 0, len(own))
	for _, gk := range own {
		res = append(res, profile.Resource{Group: gk.Group, Version: version[gk], Resource: profile.Plural(gk.Kind), Deletes: true})
	}
	return res
}

// version is the version of each kind the webhooks and exports name: AccessPolicy's v1alpha1,
// kube-agentic-networking's XAccessPolicy in whatever version its CRD serves.
var version = map[schema.GroupKind]string{engine.AccessPolicyKind: "v1alpha1", engine.XAccessPolicyKind: "*"}

// Prepare builds the grants of the access kinds when one is watched, so the first access write of a
// fresh replica does not build them.
func (Profile) Prepare(st source.Source, s settings.Settings) error {
	for _, gk := range own {
		if st.Watched(gk) {
			derive(st, SettingsOf(s))
			break
		}
	}
	return nil
}

func (Profile) Checks(gk schema.GroupKind, _ *policy.Registry) bool { return engine.IsPolicy(gk) }

// MutatingTargets: the ServiceAccount namespace default for both kinds, with the profile's own
// kinds (XAccessPolicy in whatever version its CRD serves, as Webhooks registers it).
func (Profile) MutatingTargets(_ []policy.Kind, withOwn bool) []vap.MutatingTarget {
	if !withOwn {
		return nil
	}
	out := make([]vap.MutatingTarget, 0, len(own))
	for _, gk := range own {
		out = append(out, vap.MutatingTarget{GK: gk, Version: version[gk], Resource: profile.Plural(gk.Kind), Default: Defaulting})
	}
	return out
}

// Defaultings: the ServiceAccount namespace default.
func (Profile) Defaultings() []vap.Defaulting { return []vap.Defaulting{Defaulting} }

// Effective: access policies decide per request (gateway, backend, source, tool), not per path.
func (Profile) Effective(_ *profile.Offline, k policy.Kind, _ *topology.Target) ([]effective.Item, error) {
	return nil, profile.PerRequest(k, "an access kind", "precedent access")
}
