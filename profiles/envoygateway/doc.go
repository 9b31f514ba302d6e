// Package envoygateway is the profile of Envoy Gateway's policy kinds (gateway.envoyproxy.io/v1alpha1
// BackendTrafficPolicy, SecurityPolicy, ClientTrafficPolicy, EnvoyExtensionPolicy), one line each
// in spec.kinds with profile `envoy-gateway`. It wires its engine (package engine: Envoy
// Gateway's ladder, whole-policy replacement, mergeType merges, conflicts) into the front doors: a
// write is reviewed on a snapshot derived from the state (Gateways, routes, ListenerSets, TCP/UDP
// routes, ReferenceGrants and the policies), offline inputs are checked and shown the same way, and
// status is left to Envoy Gateway's controller.
package envoygateway
