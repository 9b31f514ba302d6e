package profile

import "github.com/precedent-dev/precedent/internal/policy"

// Configurable is a profile that a PrecedentConfig's spec.kinds[].profile may name (its Name is not
// ""). Its KindModel says how a kind line of it is checked and completed and whether and how its kinds'
// status is written: Model.Status is the reconciler's status writer, or nil when the profile has
// none (another controller owns its kinds' status; a kind line may then ask only status none).
// Package profiles installs the models of its table in package policy (profiles.Install), where the
// settings' validation, the engine and the reconciler read them; a profile that is not Configurable
// has no status written for its kinds (access: its kinds are not the settings' managed kinds).
type Configurable interface {
	KindModel() policy.Model
}
