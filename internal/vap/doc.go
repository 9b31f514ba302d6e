// Package vap renders admission policies the API server evaluates in-tree, for clusters that want
// Precedent's checks and defaulting without its webhooks: ValidatingAdmissionPolicy + binding per
// managed kind for the stateless checks of package checks that have CEL (`precedent export vap`),
// and MutatingAdmissionPolicy + binding for the defaulting of package mutate that CEL can express
// (`precedent export map`). The stateful checks, the projection warnings and the compilation of
// `when` conditions need the webhook. It also derives the shipped CRDs' spec-level
// x-kubernetes-validations from the same checks (RewriteCRD, `make generate`).
package vap
