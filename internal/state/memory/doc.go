// Package memory feeds a state.State from objects held in memory instead of a cluster's informers:
// the source `precedent validate -f` reviews a write against. The objects reach the state's own
// event handlers, so an offline review reads the very graph, snapshots and derived caches the
// webhook reads, built by the same code.
package memory
