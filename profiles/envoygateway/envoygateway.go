package envoygateway

import (
	"cmp"
	"slices"
	"sort"
	"strings"

	"gomodules.xyz/jsonpatch/v2"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/profile"
	"github.com/precedent-dev/precedent/internal/settings"
	"github.com/precedent-dev/precedent/internal/source"
	"github.com/precedent-dev/precedent/internal/topology"
	engine "github.com/precedent-dev/precedent/profiles/envoygateway/engine"
	"github.com/precedent-dev/precedent/validate"
)

// Name is the profile's name in spec.kinds[].profile.
const Name policy.ProfileName = "envoy-gateway"

// Profile is Envoy Gateway's model.
type Profile struct{ profile.Reading[spec] }

// spec is the profile's name and what it reads (profile.Reading): the Gateway API kinds beyond the topology's that Envoy Gateway's precedence reads.
type spec struct{}

func (spec) Name() policy.ProfileName { return Name }

func (spec) ReadKinds() []schema.GroupKind { return reads }

var (
	_ profile.Profile      = Profile{}
	_ profile.Configurable = Profile{}
)

// KindModel: the four kinds, folded by package envoygateway, the mergeType default, no status
// writer (Envoy Gateway's controller owns the status of its kinds), and Envoy Gateway's GatewayClass
// controller: Gateways of other classes are not its policies' paths.
func (Profile) KindModel() policy.Model {
	kinds := make([]string, 0, len(engine.Kinds))
	for k := range engine.Kinds {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	return policy.Model{Kinds: kinds, Defaults: map[string][]string{mergeTypeField: {string(engine.JSONMerge), string(engine.StrategicMerge)}},
		ControllerNames: []string{engine.ControllerName}, Versions: []string{"1.9"}}
}

// Review reads the written policy, checks it alone (mergeType only on route targets), then projects
// the write (or delete) on the snapshot derived from the state: the combined checks of the merged
// result deny, and the warnings say what the write drops, conflicts with, skips or leaves unresolved.
func (p Profile) Review(r profile.Request) profile.Decision {
	pol, errs := engine.Read(r.Object)
	if len(errs) > 0 {
		if r.Deleting() {
			return profile.Allowed
		}
		return profile.Decision{Errs: errs, CheckIDs: profile.Same(engine.CheckSpec, len(errs))}
	}
	if !r.Deleting() {
		if errs := engine.Stateless(pol); len(errs) > 0 {
			return profile.Decision{Errs: errs, CheckIDs: profile.Same(engine.CheckSpec, len(errs))}
		}
		if errs := invalid(pol, r.Source.Graph()); len(errs) > 0 {
			return profile.Decision{Errs: errs, CheckIDs: profile.Same(ValuesCheck, len(errs))}
		}
	}
	if err := profile.Listed(r.Source, Name, r.Registry, reads...); err != nil {
		return profile.Decision{Unavailable: err}
	}
	w := p.world(r.Source, r.Registry)
	old, _ := w.snap.Policy(pol.Kind, pol.Ref)
	write := engine.Write{Old: old, New: pol}
	if r.Deleting() {
		if old == nil {
			old = pol
		}
		write = engine.Write{Old: old}
	}
	pr := w.snap.Project(write)
	var d profile.Decision
	if !r.Deleting() {
		d.Errs, d.CheckIDs = engine.CheckProjectionIDs(pr)
		geo := w.snap.GeoIPDetection(pr)
		d.Errs = append(d.Errs, geo...)
		d.CheckIDs = append(d.CheckIDs, profile.Same(ValuesCheck, len(geo))...)
	}
	ws := pr.Warnings()
	if !r.Deleting() {
		ws = append(w.otherControllers(pol.Kind, pr), ws...)
	}
	d.Warnings = validate.Limit(ws, r.Settings.WarningLimit)
	return d
}

// world is the snapshot of the managed kinds of the profile over the state: stepped with each event
// it reads (world.next: a policy of those kinds, the topology, a Namespace, a ListenerSet or L4
// route's labels, a ReferenceGrant) while the state applies it, built whole only on its first use or
// when an event could not step it (a topology event without the graph after it).
func (Profile) world(st source.Source, reg *policy.Registry) *world {
	kinds, gks, controllers := worldKinds(reg)
	// Params: a PrecedentConfig that changes the kinds' controllerNames builds the world anew.
	v := st.Derive(source.Derivation{Key: string(Name), Kinds: gks, Topology: true, Params: strings.Join(controllers, " "),
		Build: func() any { return buildWorld(st, gks, kinds, controllers) },
		Next:  func(prev any, e source.Event) any { return prev.(*world).next(e, kinds) }})
	return v.(*world)
}

// worldKinds are the managed kinds of the profile by name, every kind the world reads, and the
// GatewayClass controllers it serves.
func worldKinds(reg *policy.Registry) (map[string]bool, []schema.GroupKind, []string) {
	kinds := map[string]bool{}
	gks := append([]schema.GroupKind(nil), reads...)
	for _, k := range profile.KindsOf(Name, reg) {
		kinds[k.GVK.Kind] = true
		gks = append(gks, k.GVK.GroupKind())
	}
	return kinds, gks, profile.ControllersOf(profile.KindsOf(Name, reg))
}

// buildWorld builds the world whole from the objects of gks in the state.
func buildWorld(st source.Source, gks []schema.GroupKind, kinds map[string]bool, controllers []string) *world {
	lists, n := make([][]*unstructured.Unstructured, len(gks)), 0
	for i, gk := range gks {
		lists[i] = st.Objects(gk)
		n += len(lists[i])
	}
	objs := make([]worldObject, 0, n)
	for i, gk := range gks {
		for _, u := range lists[i] {
			objs = append(objs, objectOf(gk, u))
		}
	}
	sortObjects(objs) // a decision is the same for the same state
	labeled, nsLabels := st.Labeled()
	objects := make([]engine.Object, 0, len(labeled))
	for _, l := range labeled {
		objects = append(objects, engine.Object{Kind: l.Kind, Key: topology.Key{Namespace: l.Namespace, Name: l.Name}, Labels: l.Labels})
	}
	return newWorld(st.Graph(), objs, objects, nsLabels, kinds, controllers)
}

// sortObjects sorts objs by kind, namespace and name. Each object's kind and key are read once
// (objectOf): reading them from the object's maps at each comparison cost a quarter of a 10x
// world's build (n log n map lookups, most of them cache misses), and again in newWorld and
// engine.Read, more.
func sortObjects(objs []worldObject) {
	slices.SortFunc(objs, func(a, b worldObject) int {
		return cmp.Or(strings.Compare(a.gk.Kind, b.gk.Kind), strings.Compare(a.key.Namespace, b.key.Namespace), strings.Compare(a.key.Name, b.key.Name))
	})
}

// mergeTypeField is the spec field a kind line may default (envoyproxy/gateway #9334).
const mergeTypeField = "mergeType"

// defaulted returns the mergeType default of kind k: set by its line, for a kind of the profile
// that has mergeType (not ClientTrafficPolicy).
func defaulted(k policy.Kind) (string, bool) {
	v := k.Defaults[mergeTypeField]
	return v, k.Profile == Name && v != "" && k.GVK.Kind != engine.ClientTrafficPolicy
}

// DefaultsWebhook is the mutating webhook of the mergeType default.
const DefaultsWebhook = "envoy-gateway-defaults.precedent.dev"

// DefaultsCondition: only a policy without mergeType reaches the mutating webhook, which gives it
// the kind's default when all its targets are routes (where Envoy Gateway's CEL allows mergeType).
const DefaultsCondition = `has(object.spec) && !has(object.spec.mergeType)`

// Default gives a route-targeted policy without mergeType the default its kind line sets
// (`defaults: {mergeType: StrategicMerge}`; off unless set).
func (Profile) Default(gk schema.GroupKind, u *unstructured.Unstructured, reg *policy.Registry) []jsonpatch.JsonPatchOperation {
	k, ok := reg.Lookup(gk)
	if !ok || k.Defaults[mergeTypeField] == "" {
		return nil
	}
	p, errs := engine.Read(u)
	if len(errs) > 0 {
		return nil // the validating webhook says why
	}
	return engine.DefaultMergeType(p, engine.MergeType(k.Defaults[mergeTypeField]))
}

// Webhooks: each managed kind, creates, updates and (projected) deletes; the kinds whose line sets
// a mergeType default are also defaulted.
func (Profile) Webhooks(kinds []policy.Kind) profile.Webhooks {
	w := profile.Webhooks{Validate: profile.KindWebhooks(Name, kinds)}
	m := profile.Mutating{Name: DefaultsWebhook, Conditions: []admissionregistrationv1.MatchCondition{{Name: "without-merge-type", Expression: DefaultsCondition}}}
	for _, k := range kinds {
		if _, ok := defaulted(k); ok {
			m.Resources = append(m.Resources, profile.Resource{Group: k.GVK.Group, Version: k.GVK.Version, Resource: profile.Plural(k.GVK.Kind)})
		}
	}
	if len(m.Resources) > 0 {
		w.Mutating = []profile.Mutating{m}
	}
	return w
}

// Prepare derives the snapshot before the replica reports ready, when the profile is in use; its
// kinds and the kinds it reads may still be listing then (the first writes wait for them).
func (p Profile) Prepare(st source.Source, s settings.Settings) error {
	if profile.Ready(st, Name, s.Registry(), reads...) {
		p.world(st, s.Registry())
	}
	return nil
}

func (p Profile) Checks(gk schema.GroupKind, reg *policy.Registry) bool { return p.Claims(gk, reg) }
