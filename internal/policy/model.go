package policy

import (
	"maps"
	"slices"
	"sort"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Model is what the lower packages (policy, effective, settings) know of a profile: how a PrecedentConfig
// line of it is checked and completed, the status its kinds get by default, and, for the models
// folded on the engine, how a policy object is read, ordered and rendered and which fold it takes.
// The engine's own models are in models below; a profile with a package of its own registers its
// Model from it with RegisterModel. The front doors never ask a Kind's profile: they ask its
// model, or the registered profile.Profile.
type Model struct {
	// Engine reports that the kinds have effective policies over Gateway API paths folded by package
	// effective (snapshots, `effective`, `explain`, `diff`).
	Engine bool
	// Fold is the engine's fold of the model (Engine only).
	Fold Fold
	// Kinds are the kinds a PrecedentConfig line of the model may name (any when empty).
	Kinds []string
	// CheckKind checks a PrecedentConfig line of the model beyond Kinds (nil: nothing more).
	CheckKind func(k Kind, path *field.Path) field.ErrorList
	// DefaultKind completes a PrecedentConfig line (nil: nothing to complete).
	DefaultKind func(k *Kind)
	// StatusNone reports the kinds whose status another controller owns by default (StatusNone
	// unless configured; nil: every kind's is Precedent's).
	StatusNone func(gvk schema.GroupVersionKind) bool
	// Defaults are the spec fields a PrecedentConfig line may default (Kind.Defaults), each with
	// its supported values; none when empty.
	Defaults map[string][]string

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

// models are the engine's own models and the mesh model, whose shapes the lower packages know;
// Kuadrant's registers from profiles/kuadrant/engine.
var models = map[Profile]Model{
	ProfileDefaultsOverrides: {Engine: true, Fold: FoldRules, CheckKind: rulesFieldRequired,
		Read: (*Policy).readDefaultsOverrides},
	ProfileGEP713: {Engine: true, Fold: FoldFields,
		Read: (*Policy).readGEP713, BareForm: func(_ Kind, rules map[string]interface{}) map[string]interface{} { return Unflatten(rules) }},
	ProfileMesh: {Kinds: MeshKinds, StatusNone: func(gvk schema.GroupVersionKind) bool { return gvk.Group == KumaGroup }},
}

// RegisterModel registers the model of a profile whose package is under profiles/ (its package's
// init, through the profiles table). A name registered twice keeps the first.
func RegisterModel(p Profile, m Model) {
	if _, ok := models[p]; !ok {
		models[p] = m
	}
}

// ModelOf returns the model of profile p.
func ModelOf(p Profile) (Model, bool) {
	m, ok := models[p]
	return m, ok
}

// Profiles lists the names of the registered models, sorted.
func Profiles() []string {
	out := make([]string, 0, len(models))
	for p := range models {
		out = append(out, string(p))
	}
	sort.Strings(out)
	return out
}

// CheckKind checks one configured kind (a PrecedentConfig's spec.kinds[i], at path) against its
// profile's model.
func CheckKind(k Kind, path *field.Path) field.ErrorList {
	m, ok := models[k.Profile]
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
	if m.CheckKind != nil {
		errs = append(errs, m.CheckKind(k, path)...)
	}
	return errs
}

// DefaultKind completes a configured kind as its model says.
func DefaultKind(k *Kind) {
	if m, ok := models[k.Profile]; ok && m.DefaultKind != nil {
		m.DefaultKind(k)
	}
}

// model is k's model; an unknown profile (rejected by CheckKind) reads as defaults-overrides.
func (k Kind) model() Model {
	if m, ok := models[k.Profile]; ok {
		return m
	}
	return models[ProfileDefaultsOverrides]
}

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
