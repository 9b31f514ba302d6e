// Package engine predicts kgateway's effective TrafficPolicy (gateway.kgateway.dev) on each
// Gateway → (delegated) HTTPRoute chain → rule path, the way kgateway merges attached policies:
// pkg/pluginsdk/policy/merge.go (MergePolicies, GetMergeStrategy, IsMergeable) folds each hierarchy
// level and then the levels, most specific first, with the strategy the owner's
// `kgateway.dev/inherited-policy-priority` annotation names (api/annotations). Route delegation
// (backendRefs to HTTPRoutes, by name or by the `delegation.kgateway.dev/label` label of
// api/labels/delegation.go) adds one level per delegating route. The engine does no I/O: it takes
// objects and returns values; package kgateway adapts it to the profile seam.
package engine
