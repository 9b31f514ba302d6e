// Package settings holds Precedent's runtime settings as plain types: feature switches (unset),
// managed kinds, deny-or-warn per check, one-policy-per-target, AccessPolicy options, CEL cost and
// warning limits, with their defaults, validation and the decoding of a PrecedentConfig. It does no
// I/O, so the engine side (validate, vap) links no client-go; package config loads them live.
package settings
