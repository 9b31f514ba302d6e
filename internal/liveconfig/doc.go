// Package liveconfig loads Precedent's runtime settings (package settings) live: it follows the
// cluster-scoped PrecedentConfig through an informer, keeps the last good settings when a stored
// one is invalid, and swaps them atomically, so the next admission obeys a change without a
// restart. Package settings stays pure (no client-go); this package is its informer-fed loader.
package liveconfig
