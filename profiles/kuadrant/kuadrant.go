package kuadrant

import (
	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/profile"
)

// Profile is Kuadrant's model: the engine's, with Kuadrant's reading, order and fold (chosen by the
// kinds' profile in packages policy and effective), and nothing to default.
type Profile struct{ profile.Engine }

// New returns the profile.
func New() Profile { return Profile{profile.Engine{Model: policy.ProfileKuadrant}} }
