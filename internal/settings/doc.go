// Package settings holds Precedent's runtime settings as plain types: feature switches (unset),
// managed kinds, deny-or-warn per check, one-policy-per-target, CEL cost and warning limits, and the
// sections profiles register for settings of their own (spec.access: RegisterSection), with their
// defaults, validation and the decoding of a PrecedentConfig. It imports no profile and does no
// I/O, so the engine side (validate, vap) links no client-go; package liveconfig loads them live. A
// kind line is checked against the profiles' models, which the program installs in package policy
// (profiles.Install) before it decodes settings: this package stays below the profiles' table.
package settings
