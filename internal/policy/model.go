package policy

import (
	"errors"
	"maps"
	"slices"
	"sort"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Model is what the lower packages (policy, effective, settings) know of a profile: how a PrecedentConfig
// line of it is checked and completed, whether and how its kinds' status is written, and, for the
// models folded on the engine, how a policy object is read, ordered and rendered and which fold it
// takes. The models a PrecedentConfig may name are installed from package profiles' table (Install,
// called by every process's entry point through profiles.Install): the table is above this package,
// so it pushes the models down rather than this package (or settings) importing it. The shapes the
// engine knows itself are in known below, which the engine-backed profiles return as their model.
// The front doors never ask a Kind's profile: they ask its model, or the registered profile.Profile.
type Model struct {
	// Folded reports that the kinds have effective policies over Gateway API paths folded by package
	// effective (snapshots, `effective`, `explain`, `diff`): the shared engine's models
	// (profiles/inherited's Folded).
	Folded bool
	// Fold is the engine's fold of the model (Folded only).
	Fold Fold
	// Kinds are the kinds a PrecedentConfig line of the model may name (any when empty).
	Kinds []string
	// CheckKind checks a PrecedentConfig line of the model beyond Kinds (nil: nothing more).
	CheckKind func(k Kind, path *field.Path) field.ErrorList
	// DefaultKind completes a PrecedentConfig line (nil: nothing to complete).
	DefaultKind func(k *Kind)
	// Status is the model's status writer; nil when the profile has none (its kinds' status is
	// another controller's, such as Kuma's or Envoy Gateway's): the reconciler then writes nothing
	// for its kinds, and a PrecedentConfig line of it may ask only status none, its default.
	Status *StatusWriter
	// Defaults are the spec fields a PrecedentConfig line may default (Kind.Defaults), each with
	// its supported values; none when empty.
	Defaults map[string][]string
	// ControllerNames are the GatewayClass controllerNames whose Gateways the model's kinds apply
	// to when a PrecedentConfig line names none (Kind.ControllerNames): the controllers that enforce
	// them. Empty means any, as for Precedent's own kinds. Paths through Gateways of other classes
	// are not the kinds' (topology.Graph.Serves).
	ControllerNames []string
	// Versions are the controller versions whose behaviour the model predicts, oldest first; the
	// last is the default (Kind.Version). None: a kind line may not name a version.
	Versions []string

	// Read reads the model's fields of a policy's spec into p (Engine only).
	Read func(p *Policy, spec map[string]interface{}) field.ErrorList
	// Less orders the policies of one target (nil: older creationTimestamp, then namespace, then name).
	Less func(a, b *Policy) bool
	// BareForm renders rules in the spec shape of kind k (nil: the rules field, flat or in sections).
	BareForm func(k Kind, rules map[string]interface{}) map[string]interface{}
}

// Fold is the engine's fold of a model: FoldRules, FoldFields, or a value of the model's own that
// folds a path by itself (package effective calls it through its Reducer interface).
type Fold interface{}

type engineFold int

var (
	// FoldRules folds blocks of named rules level by level (the RFC; package effective's folder).
	FoldRules Fold = engineFold(0)
	// FoldFields folds configuration objects field by field (GEP-713): rule ids are field paths,
	// and a `when` condition reads the whole object.
	FoldFields Fold = engineFold(1)
)

// StatusWriter is the reconciler's status writer (package reconcile: conditions, Precedent's
// status.ancestors entries, the <group>/<Kind>Affected condition on targets), as a model takes it.
type StatusWriter struct {
	// Default is the status mode of a PrecedentConfig line that leaves status out: StatusFull, or
	// StatusNone when another controller owns the kinds' status unless asked (Kuadrant's operator).
	Default string
}

// writer is the status writer of the engine's models, which the reconciler folds for.
var writer = &StatusWriter{Default: StatusFull}

// known are the engine's own models, whose shapes the lower packages know; every other model is its
// profile's (profiles/<model>), installed from the table.
var known = map[ProfileName]Model{
	ProfileDefaultsOverrides: {Folded: true, Fold: FoldRules, CheckKind: rulesFieldRequired, Status: writer,
		Read: (*Policy).readDefaultsOverrides},
	ProfileGEP713: {Folded: true, Fold: FoldFields, Status: writer,
		Read: (*Policy).readGEP713, BareForm: func(_ Kind, rules map[string]interface{}) map[string]interface{} { return Unflatten(rules) }},
}

// Known returns the model of profile p that the lower packages know: an engine model.
// The profiles of those models return it as theirs (profile.Configurable).
func Known(p ProfileName) (Model, bool) {
	m, ok := known[p]
	return m, ok
}

// installed are the models a PrecedentConfig may name, by profile; nil until Install.
var installed atomic.Pointer[map[ProfileName]Model]

// errNotInstalled is what CheckKind answers in a program that never installed the models.
var errNotInstalled = errors.New("no policy models are installed: the program must call profiles.Install before it reads settings")

// Install makes models the ones a PrecedentConfig may name, replacing those installed before. Package
// profiles calls it with its table's models (profiles.Install); nothing installs them at init.
func Install(models map[ProfileName]Model) {
	m := maps.Clone(models)
	installed.Store(&m)
}

// ModelOf returns the installed model of profile p.
func ModelOf(p ProfileName) (Model, bool) {
	if ms := installed.Load(); ms != nil {
		m, ok := (*ms)[p]
		return m, ok
	}
	return Model{}, false
}

// Profiles lists the names of the installed models, sorted.
func Profiles() []string {
	ms := installed.Load()
	if ms == nil {
		return nil
	}
	out := make([]string, 0, len(*ms))
	for p := range *ms {
		out = append(out, string(p))
	}
	sort.Strings(out)
	return out
}

// CheckKind checks one configured kind (a PrecedentConfig's spec.kinds[i], at path) against its
// profile's installed model; in a program that installed none, it says so.
func CheckKind(k Kind, path *field.Path) field.ErrorList {
	if installed.Load() == nil {
		return field.ErrorList{field.InternalError(path.Child("profile"), errNotInstalled)}
	}
	m, ok := ModelOf(k.Profile)
	if !ok {
		return field.ErrorList{field.NotSupported(path.Child("profile"), string(k.Profile), Profiles())}
	}
	if len(m.Kinds) > 0 && !slices.Contains(m.Kinds, k.GVK.Kind) {
		return field.ErrorList{field.NotSupported(path.Child("gvk", "kind"), k.GVK.Kind, m.Kinds)}
	}
	var errs field.ErrorList
	for _, f := range slices.Sorted(maps.Keys(k.Defaults)) {
		values, ok := m.Defaults[f]
		switch {
		case !ok:
			errs = append(errs, field.NotSupported(path.Child("defaults").Key(f), f, slices.Sorted(maps.Keys(m.Defaults))))
		case !slices.Contains(values, k.Defaults[f]):
			errs = append(errs, field.NotSupported(path.Child("defaults").Key(f), k.Defaults[f], values))
		}
	}
	if k.Version != "" && !slices.Contains(m.Versions, k.Version) {
		errs = append(errs, field.NotSupported(path.Child("version"), k.Version, m.Versions))
	}
	if k.Status == StatusFull && m.Status == nil {
		errs = append(errs, field.NotSupported(path.Child("status"), k.Status, []string{StatusNone}))
	}
	if m.CheckKind != nil {
		errs = append(errs, m.CheckKind(k, path)...)
	}
	return errs
}

// DefaultKind completes a configured kind as its model says.
func DefaultKind(k *Kind) {
	if m := k.model(); m.DefaultKind != nil {
		m.DefaultKind(k)
	}
}

// model is k's model: the installed one, else the one the lower packages know (their tests install
// none); an unknown profile (rejected by CheckKind) reads as defaults-overrides.
func (k Kind) model() Model {
	if m, ok := ModelOf(k.Profile); ok {
		return m
	}
	if m, ok := known[k.Profile]; ok {
		return m
	}
	return known[ProfileDefaultsOverrides]
}

// Model is the kind's model: its profile's installed model, else the one the lower packages know.
func (k Kind) Model() Model { return k.model() }

// Fold is the engine's fold of the kind.
func (k Kind) Fold() Fold {
	if f := k.model().Fold; f != nil {
		return f
	}
	return FoldRules
}

func rulesFieldRequired(k Kind, path *field.Path) field.ErrorList {
	if k.RulesField == "" {
		return field.ErrorList{field.Required(path.Child("rulesField"), "the name of the rules field, e.g. rules or limits")}
	}
	return nil
}
