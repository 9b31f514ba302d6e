// Package diff says what a change set does to the effective policies: given the state before (base)
// and after (head), the rules, decisions or merged fields that were added, removed, changed or moved
// to another source policy, per path. It compares the Gateway API profiles' effective policies
// (defaults-overrides, gep713, kuadrant) path by path, AccessPolicy decisions grant by grant and mesh
// configurations field by field. Pure functions over snapshots and parsed policies, no I/O: the
// `precedent diff` command loads the trees (files or the cluster) and renders the result.
package diff
