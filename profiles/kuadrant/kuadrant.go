package kuadrant

import (
	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/profiles/inherited"
	"github.com/precedent-dev/precedent/profiles/kuadrant/engine"
)

// Profile is Kuadrant's model: the engine's, with Kuadrant's reading, order and fold (package
// engine's Model, which the engine calls), and nothing to default.
type Profile struct{ inherited.Folded }

// New returns the profile.
func New() Profile { return Profile{inherited.Folded{Model: policy.ProfileKuadrant}} }

// Model is the model the engine folds the profile's kinds with.
var Model = engine.Model

// KindModel is Kuadrant's model (package engine's), with the reconciler's status writer, off by
// default: Kuadrant's operator owns its kinds' status.
func (Profile) KindModel() policy.Model { return engine.Model }

// RegisterChecks puts Kuadrant's checks in the one table of checks.
func (Profile) RegisterChecks() { engine.RegisterChecks() }
