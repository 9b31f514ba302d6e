// Package topology is the Gateway API graph that policies attach to: GatewayClass → Gateway →
// Listener → HTTPRoute/GRPCRoute → route rule. Attachment is computed from parentRefs and
// allowedRoutes (never from another controller's status), and an index maps every possible policy
// target to the paths beneath it, so projecting one policy write touches only the paths it reaches.
// Build makes the graph from all objects; the updates (SetGateway, SetHTTPRoute, DeleteRoute,
// SetNamespace, ...) make the next version after one event in time proportional to what the object
// touches, sharing the rest with the version before, which stays intact for its readers. It takes
// typed Gateway API objects and does no I/O.
package topology
