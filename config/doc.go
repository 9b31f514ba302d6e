// Package config holds Precedent's runtime settings: feature switches (unset), managed kinds,
// deny-or-warn per check, one-policy-per-target, AccessPolicy options, CEL cost and warning limits.
// Settings are typed, validated and swapped atomically when the cluster-scoped PrecedentConfig
// changes, so the next admission obeys them without a restart.
package config
