// Package engine is the engine of the `mesh` profile: Kuma's targetRef policy matching (Kuma's
// "New Policy Matching" MADR) for MeshTimeout and MeshTrafficPermission. It reads a typed view of a
// policy from an unstructured object (Parse, Validate), a topology from Dataplane objects
// (ParseDataplane), merges the policies that reach one outbound or one source of a proxy with
// provenance per field (Merge), and finds the elements and policies that can never take effect
// (Shadowed, WriteWarnings). Pure functions, no I/O: the webhook and `precedent mesh` call it.
//
// The order is the MADR's. The policies whose top-level targetRef selects the proxy are sorted by
// level, most specific first (Proxy > ServiceSubset > Service > MeshSubset > Mesh), and within one
// level the policy whose name sorts later comes first, as the MADR's worked example lists
// `01-consume-backend-timeouts` above `00-base-timeouts`. Current Kuma differs here: it lets the
// smaller name win within a level (TestNameOrderDiffersFromKuma shows both). Their `to` (or `from`)
// arrays are concatenated in that order, each array in its own order; for one outbound (or one
// source) the elements whose targetRef selects it are merged field by field, the first element that
// sets a field wins, objects merge deeply and lists are atomic.
//
// Kuma's own kinds (group kuma.io) are read in Kuma's shape (configuration under `default`) and
// ordered as Kuma's control plane orders them (Order, kuma.go; this folder's README.md states both
// orders). Their inbound `rules` follow Kuma's inbound rules (InboundRules, MergeInbound;
// ruleshadow.go for the warnings). An Index keeps the analysis of one mesh so that a write's review
// recomputes only what it changes; it is immutable, and WithDataplane and WithPolicy derive the next
// version per event at the cost of what the event touches.
//
// Policies whose top-level targetRef is a route (MeshGatewayRoute, HTTPRoute) and `to` elements that
// target an HTTPRoute are kept and validated, but select no proxy and no whole outbound: routes are
// not part of the Dataplane topology.
package engine
