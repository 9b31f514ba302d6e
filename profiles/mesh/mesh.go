package mesh

import (
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/precedent-dev/precedent/internal/effective"
	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/profile"
	"github.com/precedent-dev/precedent/internal/settings"
	"github.com/precedent-dev/precedent/internal/source"
	"github.com/precedent-dev/precedent/internal/topology"
	engine "github.com/precedent-dev/precedent/profiles/mesh/engine"
	"github.com/precedent-dev/precedent/validate"
)

// Profile is the mesh profile.
type Profile struct{ profile.NoDefaulting }

var (
	_ profile.Profile      = Profile{}
	_ profile.Configurable = Profile{}
)

// Precedent's own mesh kinds, managed whatever the settings say.
var own = []schema.GroupKind{MeshTimeoutKind, MeshPermissionKind}

// Name is the profile's name in spec.kinds[].profile: Kuma's targetRef model (MeshTimeout,
// MeshTrafficPermission), the MADR's shape and order for policy.precedent.dev, Kuma's own for kuma.io.
const Name policy.ProfileName = "mesh"

// Kinds are the kinds the mesh profile reads.
var Kinds = []string{"MeshTimeout", "MeshTrafficPermission"}

// Versions are the Kuma versions whose behaviour the profile predicts, oldest first (engine.Version):
// 2.14 and 3.0 (Kuma's master, the default).
var Versions = []string{string(engine.Kuma214), string(engine.Kuma30)}

func (Profile) Name() policy.ProfileName { return Name }

// KindModel: the mesh model, without a status writer (a proxy's merged policy is Kuma's to report).
func (Profile) KindModel() policy.Model { return policy.Model{Kinds: Kinds, Versions: Versions} }

func (Profile) Claims(gk schema.GroupKind, reg *policy.Registry) bool {
	if gk == MeshTimeoutKind || gk == MeshPermissionKind {
		return true
	}
	k, ok := reg.Lookup(gk)
	return ok && k.Profile == Name
}

func (Profile) Own() []schema.GroupKind { return own }

// Reads: Kuma's Dataplanes and MeshServices, stored whole and parsed here (cache.go).
func (Profile) Reads() []schema.GroupKind { return []schema.GroupKind{DataplaneKind, MeshServiceKind} }

// Sources: its kinds, Kuma's Dataplanes and Kuma's MeshServices (a to item may name them by labels).
func (Profile) Sources(settings.Settings) []schema.GroupKind {
	return append(append([]schema.GroupKind(nil), own...), DataplaneKind, MeshServiceKind)
}

// Review checks a write, then finds the elements that can never take effect on any Dataplane of its
// mesh: its own, and those of other policies that this write newly shadows. Deletes say nothing.
func (Profile) Review(r profile.Request) profile.Decision {
	if r.Deleting() {
		return profile.Allowed
	}
	p, errs := engine.Parse(r.Object)
	if len(errs) > 0 {
		return profile.Decision{Errs: errs, CheckIDs: profile.Same(checkSpec, len(errs))}
	}
	x := Index(r.Source, r.GroupKind, PolicyMesh(r.Object), VersionOf(r.Settings.Registry(), r.GroupKind))
	ws := append(engine.Deprecations(&p), x.WriteWarnings(p, false)...) // Kuma's from: deprecated, with its rules form
	return profile.Decision{Warnings: validate.Limit(ws, r.Settings.WarningLimit)}
}

// Webhooks: Precedent's mesh kinds, creates and updates (deletes are not projected); Kuma's kinds
// configured with the profile, like every registry kind.
func (Profile) Webhooks(kinds []policy.Kind) profile.Webhooks {
	w := profile.Webhooks{Validate: profile.KindWebhooks(Name, kinds)}
	for _, gk := range own {
		w.Validate = append(w.Validate, profile.Resource{Group: gk.Group, Version: "v1alpha1", Resource: profile.Plural(gk.Kind)})
	}
	return w
}

// Prepare watches Kuma's Dataplanes (when their CRD is installed) and, once they are listed, builds
// the index of every mesh kind watched for every mesh that has Dataplanes; until then it says to
// retry, so a replica reports ready with its Dataplanes listed.
func (Profile) Prepare(st source.Source, s settings.Settings) error {
	if err := profile.ReadsListed(st, DataplaneKind, MeshServiceKind); err != nil {
		return err
	}
	reg := s.Registry()
	gks := append([]schema.GroupKind(nil), own...)
	for _, k := range profile.KindsOf(Name, reg) {
		gks = append(gks, k.GVK.GroupKind())
	}
	meshes := dataplanes(st)
	for _, gk := range gks {
		if !st.Watched(gk) {
			continue
		}
		for name := range meshes {
			Index(st, gk, name, VersionOf(reg, gk))
		}
	}
	return nil
}

// VersionOf is the Kuma version the kind line of gk predicts (its version, else the newest), as
// precedent mesh --kuma-version takes it; Precedent's own kinds, without a line, the newest.
func VersionOf(reg *policy.Registry, gk schema.GroupKind) engine.Version {
	var name string
	if k, ok := reg.Lookup(gk); ok {
		name = k.VersionInForce()
	}
	v, err := engine.VersionOf(name)
	if err != nil { // the settings' validation refuses an unknown version: the newest
		v, _ = engine.VersionOf("")
	}
	return v
}

// Checks: the mesh policies and Kuma's Dataplanes, the mesh topology.
func (p Profile) Checks(gk schema.GroupKind, reg *policy.Registry) bool {
	return p.Claims(gk, reg) || gk == DataplaneKind
}

// Effective: mesh kinds are merged per proxy, not per Gateway API path.
func (Profile) Effective(_ *profile.Offline, k policy.Kind, _ *topology.Target) ([]effective.Item, error) {
	return nil, profile.PerRequest(k, "a mesh kind", "precedent mesh")
}
