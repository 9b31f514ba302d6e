// Package diff says what a change set does to the effective policies: given the state before (base)
// and after (head), the rules, decisions or merged fields that were added, removed, changed or moved
// to another source policy, per path. It compares the engine's effective policies path by path and
// the items of models that fold elsewhere; a profile whose changes are about something else (a
// decision per grant, a field per proxy) computes them in its own package and gives them a Shape.
// Pure functions over snapshots and parsed policies, no I/O: the `precedent diff` command loads the
// trees (files or the cluster) and renders the result.
package diff
