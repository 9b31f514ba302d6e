// Package engine predicts what Envoy Gateway (v1.9.x) applies for its own policy kinds
// (gateway.envoyproxy.io/v1alpha1 BackendTrafficPolicy, SecurityPolicy, ClientTrafficPolicy,
// EnvoyExtensionPolicy): the effective policy of each (route rule, listener) with the source of
// every field, the admission warnings of a write, the checks on the merged result and the optional
// mergeType default. It sits beside effective in the flow: it takes a snapshot (topology, ListenerSets,
// ReferenceGrants, policies read from unstructured objects) and returns values; it does no I/O.
package engine
