// Package effective is the engine: for one path through the topology it orders the policies that
// reach it and folds them into the effective policy, with provenance (which policy each rule came
// from) and events (added, kept, replaced, overridden, unset, clipped). A model that folds its own
// way gives its fold as a Reducer, from its package. Pure functions over a
// Snapshot; no I/O. The webhook, the reconciler and the offline CLI all call it.
package effective
