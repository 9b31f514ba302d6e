// Package policy is the generic view of an inherited policy object: unstructured in, a typed Policy
// out, with its target refs, bare rules, defaults/overrides blocks (strategy, when), unset list and
// rule ids. One Profile per family of kinds says where those fields live, so shipped CRDs and
// configured vendor CRDs of the same shape share one engine. It sits under validate and effective
// and does no I/O.
package policy
