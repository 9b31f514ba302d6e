package nginxgatewayfabric

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/profile"
	"github.com/precedent-dev/precedent/internal/settings"
	"github.com/precedent-dev/precedent/internal/source"
	"github.com/precedent-dev/precedent/internal/topology"
	"github.com/precedent-dev/precedent/profiles/nginxgatewayfabric/engine"
	"github.com/precedent-dev/precedent/validate"
)

// Name is the profile's name in spec.kinds[].profile.
const Name policy.ProfileName = "nginx-gateway-fabric"

// Profile is NGINX Gateway Fabric's model.
type Profile struct {
	profile.Reading[spec]
	profile.NoDefaulting // its CRDs default what they default
}

// spec is the profile's name and what it reads (profile.Reading): Services, the targets of UpstreamSettingsPolicies, GRPCRoutes whole and ReferenceGrants.
type spec struct{}

func (spec) Name() policy.ProfileName { return Name }

func (spec) ReadKinds() []schema.GroupKind { return reads }

var (
	_ profile.Profile      = Profile{}
	_ profile.Configurable = Profile{}
	_ profile.InPlace      = Profile{}
	_ profile.Readers      = Profile{}
)

// services is the kind UpstreamSettingsPolicies target, grpcRoutes the GRPCRoutes whole (their
// matches, for the overlap check; their backendRefs), and referenceGrants what lets a route send to
// a Service of another namespace, read from the state.
var (
	services        = schema.GroupKind{Kind: "Service"}
	grpcRoutes      = schema.GroupKind{Group: topology.Group, Kind: "GRPCRoute"}
	referenceGrants = schema.GroupKind{Group: topology.Group, Kind: "ReferenceGrant"}
	reads           = []schema.GroupKind{services, grpcRoutes, referenceGrants}
)

// ControllerName is NGINX Gateway Fabric's GatewayClass controllerName (its Helm chart's default).
const ControllerName = "gateway.nginx.org/nginx-gateway-controller"

// KindModel: the engine's kinds, no defaults, the Gateways of NGINX Gateway Fabric's GatewayClasses,
// the versions the engine predicts (2.6 and main, the default), and no status writer (NGINX Gateway Fabric's controller owns the status of its kinds).
func (Profile) KindModel() policy.Model {
	kinds := make([]string, 0, len(engine.Kinds))
	for k := range engine.Kinds {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	return policy.Model{Kinds: kinds, ControllerNames: []string{ControllerName}, Versions: engine.Versions}
}

// Review reads the written policy, then projects the write (or delete) on the world of the state: a
// route target whose hostname:port/path another route shares denies it; a conflict with an older
// policy, a displaced policy and overridden Gateway settings are warnings.
func (p Profile) Review(r profile.Request) profile.Decision {
	pol, errs := engine.Read(r.Object)
	if len(errs) > 0 {
		if r.Deleting() {
			return profile.Allowed
		}
		return profile.Decision{Errs: errs, CheckIDs: ids(len(errs), "ngf-target")}
	}
	if err := profile.Listed(r.Source, Name, r.Registry, reads...); err != nil {
		return profile.Decision{Unavailable: err}
	}
	w := p.world(r.Source, r.Registry)
	write := engine.Write{Old: replaced(r, w, pol), New: pol}
	if r.Deleting() {
		write = engine.Write{Old: pol}
	}
	pr := w.Project(write)
	return profile.Decision{Errs: pr.Errs, CheckIDs: ids(len(pr.Errs), "ngf-target-conflict"), Warnings: validate.Limit(pr.Warnings, r.Settings.WarningLimit)}
}

// replaced is the policy an update replaces: the request's old object, as the API server sends it
// (the stored one when the request has none); nil when it does not read, as the world leaves out a
// policy that does not read, and for a create.
func replaced(r profile.Request, w *engine.World, pol *engine.Policy) *engine.Policy {
	switch {
	case r.Operation != profile.Update:
		return nil
	case r.Old == nil:
		return w.Find(pol.Kind, pol.Ref)
	}
	old, errs := engine.Read(r.Old)
	if len(errs) > 0 {
		return nil
	}
	return old
}

// InPlace: a write of a policy is projected on the world with the policy it replaces (none for a
// create, the deleted one for a delete) in place of the stored one of its kind and name
// (engine.Write), so the world after the write answers as the one it arrives in.
func (Profile) InPlace(gk schema.GroupKind, _ profile.Operation) bool {
	_, ok := engine.Kinds[gk.Kind]
	return ok && gk.Group == engine.Group
}

// Readers: a policy's create is projected over the policies related to it (sharing a target of its
// kind, and so on) and, for a Gateway's policy of a kind routes override, over those of the routes
// beneath the Gateway (engine.World.Readers), so the creates whose review may read one of objs are
// those. An update projects the version it replaces too, and a delete the deleted policy, which
// the world may not hold: those are reviewed again.
func (p Profile) Readers(st source.Source, s settings.Settings, reg *policy.Registry, objs []*unstructured.Unstructured) func(schema.GroupKind, policy.Ref, profile.Operation) bool {
	if profile.Listed(st, Name, reg, reads...) != nil {
		return nil
	}
	w := p.world(st, reg)
	var ps []*engine.Policy
	for _, u := range objs {
		pol, errs := engine.Read(u)
		if len(errs) > 0 {
			return nil
		}
		ps = append(ps, pol)
	}
	readers := w.Readers(ps)
	return func(gk schema.GroupKind, r policy.Ref, op profile.Operation) bool {
		if op != profile.Create {
			return true
		}
		return readers(gk.Kind, engine.Ref{Namespace: r.Namespace, Name: r.Name})
	}
}

func ids(n int, id string) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = id
	}
	return out
}

// world is the engine's world over the state, derived once per change of the topology or of
// Services, GRPCRoutes or ReferenceGrants, and stepped with each event of a policy of the profile's
// kinds (nextWorld): a policy's write, or validate -f's trial of two policies created the other way
// round, reads that policy again, not the others nor the routes.
func (Profile) world(st source.Source, reg *policy.Registry) *engine.World {
	gks := append([]schema.GroupKind(nil), reads...)
	for _, k := range profile.KindsOf(Name, reg) {
		gks = append(gks, k.GVK.GroupKind())
	}
	ctl := profile.ControllersOf(profile.KindsOf(Name, reg))
	versions := versionsOf(reg)
	v := st.Derive(source.Derivation{Key: string(Name), Kinds: gks, Topology: true, Params: strings.Join(ctl, ",") + " " + fmt.Sprint(versions), Build: func() any {
		var objs []*unstructured.Unstructured
		for _, gk := range gks {
			objs = append(objs, st.Objects(gk)...)
		}
		_, routes, _ := st.HTTPTopology()
		w := newWorld(st.Graph(), routes, objs)
		w.Controllers, w.Versions = ctl, versions
		return w.Prepared() // built here, off the request path, not by the first write
	}, Next: func(prev any, e source.Event) any { return nextWorld(prev.(*engine.World), e, gks) }})
	return v.(*engine.World)
}

// nextWorld is w after event e when e is of one of the profile's kinds among gks: its policy read
// again (engine.World.WithPolicy); nil for another kind's (a Service, a route, a ReferenceGrant), to
// build the world whole.
func nextWorld(w *engine.World, e source.Event, gks []schema.GroupKind) any {
	u, ok := e.Object.(*unstructured.Unstructured)
	if _, kind := engine.Kinds[e.GroupKind.Kind]; e.Topology || !kind || e.GroupKind.Group != engine.Group || !slices.Contains(gks, e.GroupKind) || !ok {
		return nil
	}
	var pol *engine.Policy
	if !e.Deleted {
		if read, errs := engine.Read(u); len(errs) == 0 {
			pol = read // newWorld leaves out a policy that does not read
		}
	}
	return w.WithPolicy(e.GroupKind.Kind, engine.Ref{Namespace: u.GetNamespace(), Name: u.GetName()}, pol)
}

// newWorld reads the policies, Services and GRPCRoutes among objs (policies that do not read are
// left out: the webhook refused them; so are GRPCRoutes that do not convert) over the graph and the
// HTTPRoutes.
func newWorld(g *topology.Graph, routes []*gwv1.HTTPRoute, objs []*unstructured.Unstructured) *engine.World {
	// Sized for a Service per route: grown by rehashing, a 10x world's maps cost a pass over each
	// table at each doubling.
	w := &engine.World{Graph: g, HTTPRoutes: make(map[topology.Key]*gwv1.HTTPRoute, len(routes)), GRPCRoutes: map[topology.Key]*gwv1.GRPCRoute{}, Services: make(map[topology.Key]bool, len(routes))}
	for _, r := range routes {
		w.HTTPRoutes[topology.Key{Namespace: r.Namespace, Name: r.Name}] = r
	}
	for _, u := range objs {
		k := topology.Key{Namespace: u.GetNamespace(), Name: u.GetName()}
		switch gk := u.GroupVersionKind().GroupKind(); {
		case gk == services:
			w.Services[k] = true
			continue
		case gk == referenceGrants:
			w.Grants = append(w.Grants, engine.Grants(u)...)
			continue
		case gk == grpcRoutes:
			r := &gwv1.GRPCRoute{}
			if runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, r) == nil {
				w.GRPCRoutes[k] = r
			}
			continue
		}
		if u.GroupVersionKind().Group != engine.Group {
			continue
		}
		if p, errs := engine.Read(u); len(errs) == 0 && p != nil {
			w.Policies = append(w.Policies, p)
		}
	}
	sort.Slice(w.Policies, func(i, j int) bool { return engine.Before(w.Policies[i], w.Policies[j]) }) // the same decision for the same state
	return w.Index()
}

// Webhooks: each managed kind, creates, updates and (projected) deletes.
func (Profile) Webhooks(kinds []policy.Kind) profile.Webhooks {
	return profile.Webhooks{Validate: profile.KindWebhooks(Name, kinds)}
}

// Prepare derives the world before the replica reports ready, when the profile is in use.
func (p Profile) Prepare(st source.Source, s settings.Settings) error {
	if profile.Ready(st, Name, s.Registry(), reads...) {
		p.world(st, s.Registry())
	}
	return nil
}

func (p Profile) Checks(gk schema.GroupKind, reg *policy.Registry) bool { return p.Claims(gk, reg) }
