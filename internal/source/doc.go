// Package source declares what a profile reads of the cluster: the Source interface, and the
// derived caches (Derivation) a profile keeps on it, brought forward per Event. Package state
// implements Source over informers, and over objects held in memory for offline input; the seam
// (package profile) and the profiles depend on this package only, so they link no client-go or
// controller-runtime and can be tested on an in-memory source.
package source
