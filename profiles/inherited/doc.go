// Package inherited is the profile of Precedent's own inherited policies, defaults-overrides (the
// Kuadrant RFC's blocks of named rules with strategy, when and unset) and gep713 (GEP-713's
// default/override objects merged field by field): both fold on the engine (packages policy,
// effective, validate) and review writes on the state's snapshots.
package inherited
