// Package checks is the one table of Precedent's stateless checks: per check its ID, the profiles it
// applies to (by the shape of their model, so a profile registered in package profiles needs no entry
// here), its field path and message, its Go function and, where CEL can express it, its CEL.
// validate runs the Go functions (webhook, offline validate, reconciler); vap exports the CEL as
// ValidatingAdmissionPolicies; a parity test keeps the two in agreement. No I/O.
package checks
