// Package engine is Kuadrant's model as the shared engine runs it: its rules keyed as Kuadrant's
// Rules() keys them (rules.go), its order and bare form, its fold (Kuadrant's EffectivePolicyForPath,
// fold.go, which package effective calls through effective.Reducer) and its stateless checks
// (checks.go, what Kuadrant's CRDs reject). Model and Checks register with packages policy and checks
// from this package; nothing below profiles/ names Kuadrant. Pure functions, no I/O.
package engine
