package settings

import (
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/precedent-dev/precedent/internal/policy"
)

// Check names, for Settings.Actions.
const (
	CheckUnsetOverride      = "unsetOverride"
	CheckOnePolicyPerTarget = "onePolicyPerTarget"
)

// Action for a stateful check.
const (
	ActionDeny = "deny"
	ActionWarn = "warn"
)

// Settings are the live settings. The zero value is not useful: start from Defaults().
type Settings struct {
	// UnsetEnabled allows spec.unset (the RFC's "unsetting" feature switch).
	UnsetEnabled bool `json:"unsetEnabled"`
	// OnePolicyPerTarget rejects a second policy of a kind on the same target.
	OnePolicyPerTarget bool `json:"onePolicyPerTarget"`
	// Actions maps a stateful check name to deny or warn (default deny).
	Actions map[string]string `json:"actions,omitempty"`
	// AffectedCondition writes the <Kind>Affected condition on targets.
	AffectedCondition bool `json:"affectedCondition"`
	// CELCostLimit bounds the cost of one when evaluation.
	CELCostLimit uint64 `json:"celCostLimit"`
	// WarningLimit bounds the number of warnings of one admission response.
	WarningLimit int `json:"warningLimit"`
	// Notes sends the notes of a write (what it does, codes PRC-N…) with its warnings; off, the
	// webhook sends only what is wrong or risky, so `kubectl apply --warnings-as-errors` passes
	// ordinary writes.
	Notes bool `json:"notes"`
	// Kinds are managed kinds added by configuration (the shipped kinds are always managed).
	Kinds []policy.Kind `json:"kinds,omitempty"`
	// Sections are the profiles' own settings (spec.access for the access profile), by name: each
	// decoded, defaulted and checked as its profile registered it (RegisterSection). Read one with
	// Section, change one with SetSection: the map is shared between copies of the settings.
	Sections map[string]Section `json:"-"`
}

// Defaults returns the settings in force when nothing is configured.
func Defaults() Settings {
	return Settings{
		UnsetEnabled:      true,
		AffectedCondition: true,
		CELCostLimit:      1_000_000,
		WarningLimit:      12,
		Sections:          defaultSections(),
	}
}

// Action returns deny or warn for a check.
func (s Settings) Action(check string) string {
	if a, ok := s.Actions[check]; ok {
		return a
	}
	return ActionDeny
}

// Registry returns the managed kinds: the shipped ones plus the configured ones.
func (s Settings) Registry() *policy.Registry {
	return policy.NewRegistry(append(policy.Builtin(), s.Kinds...)...)
}

// Validate checks the settings; p is the path of the settings in their object (e.g. spec).
func (s Settings) Validate(p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for name, a := range s.Actions {
		if name != CheckUnsetOverride && name != CheckOnePolicyPerTarget {
			errs = append(errs, field.NotSupported(p.Child("actions").Key(name), name, []string{CheckUnsetOverride, CheckOnePolicyPerTarget}))
		}
		if a != ActionDeny && a != ActionWarn {
			errs = append(errs, field.NotSupported(p.Child("actions").Key(name), a, []string{ActionDeny, ActionWarn}))
		}
	}
	if s.CELCostLimit == 0 || s.CELCostLimit > 100_000_000 {
		errs = append(errs, field.Invalid(p.Child("celCostLimit"), s.CELCostLimit, "must be between 1 and 100000000"))
	}
	if s.WarningLimit < 1 || s.WarningLimit > 100 {
		errs = append(errs, field.Invalid(p.Child("warningLimit"), s.WarningLimit, "must be between 1 and 100"))
	}
	for _, name := range sectionNames() {
		if v, ok := s.Sections[name]; ok {
			errs = append(errs, v.Check(p.Child(name))...)
		}
	}
	seen := map[string]bool{}
	for i, k := range s.Kinds {
		kp := p.Child("kinds").Index(i)
		if k.GVK.Group == "" || k.GVK.Version == "" || k.GVK.Kind == "" {
			errs = append(errs, field.Required(kp.Child("gvk"), "group, version and kind are required"))
		}
		gk := k.GVK.GroupKind().String()
		if seen[gk] {
			errs = append(errs, field.Duplicate(kp.Child("gvk"), gk))
		}
		seen[gk] = true
		errs = append(errs, policy.CheckKind(k, kp)...)
		for j, c := range k.ControllerNames {
			if c == "" || slices.Contains(k.ControllerNames[:j], c) {
				errs = append(errs, field.Invalid(kp.Child("controllerNames").Index(j), c, "must be a GatewayClass controllerName, unique, or \"*\" for any"))
			}
		}
		switch k.Status {
		case "", policy.StatusFull, policy.StatusNone:
		default:
			errs = append(errs, field.NotSupported(kp.Child("status"), k.Status, []string{policy.StatusFull, policy.StatusNone}))
		}
	}
	return errs
}

// Default fills what a configured kind may leave out: its target kinds, and what its profile's
// model completes (for kuadrant the rules field of the kind: {gvk, profile: kuadrant} is enough).
func (s *Settings) Default() {
	for i := range s.Kinds {
		k := &s.Kinds[i]
		if len(k.TargetKinds) == 0 {
			k.TargetKinds = policy.DefaultTargetKinds
		}
		policy.DefaultKind(k)
	}
}

// String is a short description for logs.
func (s Settings) String() string {
	return fmt.Sprintf("unset=%t onePolicyPerTarget=%t kinds=%d", s.UnsetEnabled, s.OnePolicyPerTarget, len(s.Kinds))
}
