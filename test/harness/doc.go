// Package harness runs what the envtest suites under test/ share: one local control plane per test
// package (started from TestMain through package controlplane, with the shipped CRDs), optionally
// Precedent's manager as `precedent serve` builds it (package assembly) with its webhooks
// registered in the API server and the status reconciler, admin clients that record the API
// server's warnings, and the fixtures and polling helpers the tests use. It sits beside the suites,
// above controlplane and assembly.
package harness
