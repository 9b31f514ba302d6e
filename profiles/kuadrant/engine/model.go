package engine

import (
	"github.com/precedent-dev/precedent/internal/checks"
	"github.com/precedent-dev/precedent/internal/effective"
	"github.com/precedent-dev/precedent/internal/policy"
)

// Model is Kuadrant's model for the engine: its kinds, the rules field a line of spec.kinds gets,
// no status of Precedent's, Kuadrant's reading, order, bare form and fold.
var Model = policy.Model{Engine: true, Fold: Fold{}, Kinds: KuadrantKinds, DefaultKind: defaultKind,
	Status: &policy.StatusWriter{Default: policy.StatusNone}, // Kuadrant's operator writes it unless asked
	Read:   readKuadrant, Less: kuadrantLess, BareForm: kuadrantBareForm}

// RegisterChecks puts Kuadrant's checks in the one table, after GEP-713's, with the shared checks of
// target references (checks.Register); the table of profiles calls it when it installs the models.
func RegisterChecks() {
	checks.Register(policy.ProfileKuadrant, checks.Targets, "gep713-default-or-override", Checks...)
}

// Fold is Kuadrant's fold as the engine calls it (effective.Reducer) and as displacement warnings
// name it.
type Fold struct{}

var _ effective.Reducer = Fold{}

// Reduce folds one path the way Kuadrant's operator does (foldKuadrant).
func (Fold) Reduce(levels [][]*policy.Policy) effective.Result { return foldKuadrant(levels) }

// String names the model in warnings.
func (Fold) String() string { return "Kuadrant" }

// SameTarget says which of two policies on one target wins.
func (Fold) SameTarget() string { return "the newer policy on one target wins" }

func defaultKind(k *policy.Kind) {
	if k.RulesField == "" {
		k.RulesField, _ = KuadrantRulesField(k.GVK.Kind)
	}
}
