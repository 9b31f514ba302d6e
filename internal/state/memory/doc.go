// Package memory feeds a state.State from objects held in memory instead of a cluster's informers:
// the source `precedent validate -f` reviews a write against. The objects reach the state's own
// event handlers through informers of this package (listed once, each object converted once), so an
// offline review reads the very graph, snapshots and derived caches the webhook reads, built by the
// same code; a review's write is tried (Try) and the state put back as it was (state.State.Revert).
package memory
