package kuadrant

import (
	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/profile"
	"github.com/precedent-dev/precedent/profiles/kuadrant/engine"
)

// Profile is Kuadrant's model: the engine's, with Kuadrant's reading, order and fold (package
// engine's Model, which the engine calls), and nothing to default.
type Profile struct{ profile.Engine }

// New returns the profile.
func New() Profile { return Profile{profile.Engine{Model: policy.ProfileKuadrant}} }

// Model is the model the engine folds the profile's kinds with.
var Model = engine.Model
