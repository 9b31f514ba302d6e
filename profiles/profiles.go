package profiles

import (
	"errors"
	"fmt"
	"sort"

	"github.com/spf13/cobra"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/profile"
	"github.com/precedent-dev/precedent/internal/settings"
	"github.com/precedent-dev/precedent/internal/state"
	"github.com/precedent-dev/precedent/internal/vap"
	"github.com/precedent-dev/precedent/profiles/access"
	"github.com/precedent-dev/precedent/profiles/envoygateway"
	"github.com/precedent-dev/precedent/profiles/inherited"
	"github.com/precedent-dev/precedent/profiles/kgateway"
	"github.com/precedent-dev/precedent/profiles/kuadrant"
	"github.com/precedent-dev/precedent/profiles/mesh"
	"github.com/precedent-dev/precedent/profiles/nginxgatewayfabric"
)

// Simulator is a profile with a simulator of its own in the CLI: a decision its model makes per
// request rather than per Gateway API path (`precedent access` for one tool call, `precedent mesh`
// for one proxy). The root command adds it as a subcommand, in the order of the registered profiles.
// It is declared here, not in the seam, so that the seam links no CLI library.
type Simulator interface {
	// Simulator returns the command; it reads its objects with read (files, else the cluster).
	Simulator(read profile.Read) *cobra.Command
}

// MutatingExporter is a profile with defaulting that CEL can express: `precedent export map` writes
// one MutatingAdmissionPolicy and binding per target, so a cluster without Precedent's mutating
// webhook defaults writes in-tree.
type MutatingExporter interface {
	// MutatingTargets are the targets of the profile's kinds among kinds (the registry's), and of
	// its own kinds when own.
	MutatingTargets(kinds []policy.Kind, own bool) []vap.MutatingTarget
	// Defaultings describe what the profile's targets default, for --help and docs/install-and-operations.md.
	Defaultings() []vap.Defaulting
}

// registered are the policy models, asked in order: the first that claims a kind reviews it.
var registered = []profile.Profile{
	inherited.DefaultsOverrides(),
	inherited.GEP713(),
	kuadrant.New(),
	access.Profile{},
	mesh.Profile{},
	envoygateway.Profile{},
	nginxgatewayfabric.Profile{},
	kgateway.Profile{},
}

// Install installs the models of the table's configurable profiles in package policy, where the
// settings' validation, the engine and the reconciler read them. Every program calls it before it
// reads settings (cmd/precedent's main, assembly.New, a test's TestMain): registration is this
// table, explicitly installed, and importing a profile's package registers nothing.
// The profiles' own checks (CheckRegistrar) join the one table of checks then too.
func Install() {
	for _, p := range registered {
		if r, ok := p.(CheckRegistrar); ok {
			r.RegisterChecks()
		}
		if sp, ok := p.(Sectioned); ok {
			settings.RegisterSection(sp.Section())
		}
	}
	policy.Install(Models())
}

// CheckRegistrar is a profile whose model keeps stateless checks in its own package: RegisterChecks
// puts them in the one table of checks (package checks), idempotently.
type CheckRegistrar interface {
	RegisterChecks()
}

// Sectioned is a profile with settings of its own, a section of the PrecedentConfig's spec (the
// access profile's spec.access): Install registers it (settings.RegisterSection).
type Sectioned interface {
	Section() (name string, def settings.Section)
}

// Backend is the kind the access profile's policies may target under s (the state watches it).
func Backend(s settings.Settings) schema.GroupKind {
	a := access.SettingsOf(s)
	return schema.GroupKind{Group: a.BackendGroup, Kind: a.BackendKind}
}

// Models are the models of the table's configurable profiles (profile.Configurable), by name.
func Models() map[policy.ProfileName]policy.Model {
	out := map[policy.ProfileName]policy.Model{}
	for _, p := range registered {
		if c, ok := p.(profile.Configurable); ok && p.Name() != "" {
			out[p.Name()] = c.KindModel()
		}
	}
	return out
}

// Names lists the names a PrecedentConfig's spec.kinds[].profile may take, sorted (the CRD's enum).
func Names() []string {
	var out []string
	for p := range Models() {
		out = append(out, string(p))
	}
	sort.Strings(out)
	return out
}

// All returns the registered profiles in order.
func All() []profile.Profile { return append([]profile.Profile(nil), registered...) }

// For returns the profile that reviews objects of gk under the managed kinds reg, or nil.
func For(gk schema.GroupKind, reg *policy.Registry) profile.Profile {
	for _, p := range registered {
		if p.Claims(gk, reg) {
			return p
		}
	}
	return nil
}

// annotations are the annotation keys some registered profile reads (profile.Annotated).
var annotations = func() map[string]bool {
	out := map[string]bool{}
	for _, p := range registered {
		if a, ok := p.(profile.Annotated); ok {
			for _, k := range a.Annotations() {
				out[k] = true
			}
		}
	}
	return out
}()

// Annotations are the annotation keys the profiles read: what a review keeps of an object's
// annotations (the webhook drops the others when it decodes a write). The map is shared: read it only.
func Annotations() map[string]bool { return annotations }

// Own lists the kinds the profiles manage by themselves, whatever the settings say.
func Own() []schema.GroupKind {
	var out []schema.GroupKind
	for _, p := range registered {
		out = append(out, p.Own()...)
	}
	return out
}

// Sources lists the kinds the profiles' CLI views read from a cluster under s.
func Sources(s settings.Settings) []schema.GroupKind {
	var out []schema.GroupKind
	for _, p := range registered {
		out = append(out, p.Sources(s)...)
	}
	return out
}

// Prepare runs every profile's Prepare, then marks st prepared: the replica may report ready.
func Prepare(st *state.State, s settings.Settings) error {
	var errs []error
	for _, p := range registered {
		if err := p.Prepare(st, s); err != nil {
			errs = append(errs, fmt.Errorf("profile %s: %w", name(p), err))
		}
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	st.MarkPrepared()
	return nil
}

// Checked reports whether some profile checks objects of gk offline.
func Checked(gk schema.GroupKind, reg *policy.Registry) bool {
	for _, p := range registered {
		if p.Checks(gk, reg) {
			return true
		}
	}
	return false
}

func name(p profile.Profile) string {
	if n := p.Name(); n != "" {
		return string(n)
	}
	return fmt.Sprintf("%T", p)
}

// MutatingTargets are the MutatingAdmissionPolicy targets of every profile that exports defaulting
// (MutatingExporter) for kinds (the registry's), and of the profiles' own kinds when own, in
// the order of the table.
func MutatingTargets(kinds []policy.Kind, own bool) []vap.MutatingTarget {
	var out []vap.MutatingTarget
	for _, p := range registered {
		if e, ok := p.(MutatingExporter); ok {
			out = append(out, e.MutatingTargets(kinds, own)...)
		}
	}
	return out
}

// Defaultings describe what MutatingTargets default, for --help and docs/install-and-operations.md.
func Defaultings() []vap.Defaulting {
	var out []vap.Defaulting
	for _, p := range registered {
		if e, ok := p.(MutatingExporter); ok {
			out = append(out, e.Defaultings()...)
		}
	}
	return out
}
