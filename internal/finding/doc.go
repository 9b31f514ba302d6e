// Package finding is what the offline front doors (validate, diff) report: one finding per error,
// warning or note, with its stable code, its object and where the object is in the input, rendered
// as the CLI contract's lines, as JSON or as SARIF 2.1.0 for code scanning, and gated by --fail-on.
package finding
