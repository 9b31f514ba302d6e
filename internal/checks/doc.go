// Package checks is the one table of Precedent's stateless checks: per check its ID, the profiles it
// applies to, its field path and message, its Go function and, where CEL can express it, its CEL.
// validate runs the Go functions (webhook, offline validate, reconciler); vap exports the CEL as
// ValidatingAdmissionPolicies; a parity test keeps the two in agreement. A model with a package of
// its own under profiles/ writes its checks there and places them in the table with Register. No I/O.
package checks
