package kgateway

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/profile"
	"github.com/precedent-dev/precedent/internal/settings"
	"github.com/precedent-dev/precedent/internal/source"
	"github.com/precedent-dev/precedent/internal/topology"
	"github.com/precedent-dev/precedent/profiles/kgateway/engine"
	"github.com/precedent-dev/precedent/validate"
)

// Name is the profile's name in spec.kinds[].profile.
const Name policy.ProfileName = "kgateway"

// ControllerName is the GatewayClass controllerName of the Gateways kgateway serves.
const ControllerName = "kgateway.dev/kgateway"

// Profile is kgateway's model; it claims more than its lines (Claims).
type Profile struct {
	profile.Reading[spec]
	profile.NoDefaulting
}

// spec is the profile's name and what it reads (profile.Reading): ListenerSets (their parent
// Gateway).
type spec struct{}

func (spec) Name() policy.ProfileName { return Name }

func (spec) ReadKinds() []schema.GroupKind { return reads }

var (
	_ profile.Profile         = Profile{}
	_ profile.Configurable    = Profile{}
	_ profile.PolicyExplainer = Profile{}
	_ profile.Annotated       = Profile{}
	_ profile.InPlace         = Profile{}
)

// The Gateway API kinds whose writes carry the annotation (reviewed when the profile is in use),
// and the ListenerSets the engine reads whole.
var (
	httpRouteKind   = schema.GroupKind{Group: topology.Group, Kind: "HTTPRoute"}
	gatewayKind     = schema.GroupKind{Group: topology.Group, Kind: "Gateway"}
	listenerSetKind = schema.GroupKind{Group: topology.Group, Kind: "ListenerSet"}
	reads           = []schema.GroupKind{listenerSetKind}
)

// KindModel: TrafficPolicy, the kgateway versions predicted (2.2), no status writer (kgateway's
// controller owns its status).
func (Profile) KindModel() policy.Model {
	return policy.Model{Kinds: []string{engine.TrafficPolicy}, Versions: engine.Versions}
}

// Claims the configured TrafficPolicy kind, and HTTPRoute and Gateway writes while one is
// configured: their kgateway.dev/inherited-policy-priority annotation decides what children inherit.
func (Profile) Claims(gk schema.GroupKind, reg *policy.Registry) bool {
	if k, ok := reg.Lookup(gk); ok {
		return k.Profile == Name
	}
	return (gk == httpRouteKind || gk == gatewayKind) && len(profile.KindsOf(Name, reg)) > 0
}

// Annotations: the routes' and Gateways' inherited-policy-priority.
func (Profile) Annotations() []string { return []string{engine.Annotation} }

// Review: a TrafficPolicy write is read (field errors deny it) and projected on the world: the
// warnings name each of its fields that a parent preferring itself, or a more specific or older
// policy of the same level, displaces. An HTTPRoute or Gateway write that changes the annotation is
// projected on the routes beneath it. Deletes are admitted without a word.
func (p Profile) Review(r profile.Request) profile.Decision {
	if r.Deleting() {
		return profile.Allowed
	}
	var pol *engine.Policy
	if r.GroupKind != httpRouteKind && r.GroupKind != gatewayKind {
		var errs field.ErrorList
		if pol, errs = engine.Read(r.Object); len(errs) > 0 {
			return profile.Decision{Errs: errs}
		}
	}
	if err := profile.Listed(r.Source, Name, r.Registry, reads...); err != nil {
		if pol == nil {
			return profile.Allowed // a route or Gateway write never waits for the TrafficPolicy cache
		}
		return profile.Decision{Unavailable: err}
	}
	var ws []string
	if pol != nil {
		ws = p.world(r.Source, r.Registry).WriteWarnings(pol)
	} else {
		ws = modeChange(func() *engine.World { return p.world(r.Source, r.Registry) }, r.GroupKind.Kind, r.Object, r.Old)
	}
	return profile.Decision{Warnings: validate.Limit(ws, r.Settings.WarningLimit)}
}

// modeChange projects a change of a route's annotation: from old's (the object an update replaces)
// when the write names it, else from the stored one. A Gateway's is not read (gatewayModeUnread).
// world derives the world only when the annotation may have changed: an update that keeps it
// answers nothing without it (each route a diff changes would derive it anew in its update's trial).
func modeChange(world func() *engine.World, kind string, u, old *unstructured.Unstructured) []string {
	if kind != "HTTPRoute" {
		return gatewayModeUnread(u, old)
	}
	k := engine.Key{Namespace: u.GetNamespace(), Name: u.GetName()}
	owner, now := "route "+k.String(), engine.ParseMode(u.GetAnnotations()[engine.Annotation])
	if old != nil {
		was := engine.ParseMode(old.GetAnnotations()[engine.Annotation])
		if now == was {
			return nil
		}
		if w := world(); w.Routes[k] != nil {
			return w.ChangeModeFrom(owner, was, now).Warnings()
		}
		return nil
	}
	w := world()
	if stored := w.Routes[k]; stored == nil || now == stored.Priority {
		return nil // a new route has no children yet whose policies change (offline, the stored one is itself: InPlace)
	}
	return w.ChangeMode(owner, now).Warnings()
}

// InPlace: a TrafficPolicy write is projected with the stored policy of its name replaced by it
// (engine.View), a Gateway write reads nothing stored (gatewayModeUnread), a delete is admitted
// without a word, and a route's create projects nothing when the stored route of its name is
// itself, as when none is stored (modeChange). A route's update projects its annotation's change on
// the world holding the route it replaces, whose rules may differ.
func (Profile) InPlace(gk schema.GroupKind, op profile.Operation) bool {
	return gk != httpRouteKind || op != profile.Update
}

// gatewayModeUnread warns a Gateway write that sets or changes the annotation that the kgateway
// version predicted does not read on Gateways.
func gatewayModeUnread(u, old *unstructured.Unstructured) []string {
	v, set := u.GetAnnotations()[engine.Annotation]
	if !set {
		return nil
	}
	if old != nil {
		if was, had := old.GetAnnotations()[engine.Annotation]; had && was == v {
			return nil
		}
	}
	return []string{engine.CodeGatewayModeUnread.Linef("kgateway 2.2 does not read %s on a Gateway: %s has no effect, the routes' own values still win over this Gateway's policies", engine.Annotation, v)}
}

// Webhooks: the configured TrafficPolicy kind, and HTTPRoute and Gateway writes (not deletes)
// while one is configured. The route and Gateway writes only ever get warnings, so their entry fails
// open (WarnOnly): a Precedent outage never blocks a route write; TrafficPolicy writes fail closed.
func (Profile) Webhooks(kinds []policy.Kind) profile.Webhooks {
	res := profile.KindWebhooks(Name, kinds)
	if len(res) > 0 {
		res = append(res,
			profile.Resource{Group: topology.Group, Version: "v1", Resource: "httproutes", WarnOnly: true},
			profile.Resource{Group: topology.Group, Version: "v1", Resource: "gateways", WarnOnly: true})
	}
	return profile.Webhooks{Validate: res}
}

// Prepare derives the world before the replica reports ready, when the profile is in use and its
// kinds are listed (otherwise the first write waits for them).
func (p Profile) Prepare(st source.Source, s settings.Settings) error {
	reg := s.Registry()
	if profile.Ready(st, Name, reg, reads...) {
		p.world(st, reg)
	}
	return nil
}

// Checks: the TrafficPolicies of an offline input (routes and Gateways are checked by nobody).
func (Profile) Checks(gk schema.GroupKind, reg *policy.Registry) bool {
	return profile.ClaimedBy(Name, gk, reg)
}
