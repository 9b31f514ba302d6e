// Package topology is the Gateway API graph that policies attach to: GatewayClass → Gateway →
// (ListenerSet →) Listener → HTTPRoute/GRPCRoute/TLSRoute/TCPRoute/UDPRoute → route rule. Attachment
// is computed from parentRefs, allowedRoutes (kinds, namespaces; sectionName and port select the
// listener) and, for a ListenerSet, its Gateway's allowedListeners (never from another controller's
// status), and an index maps every possible policy target to the paths beneath it, so projecting
// one policy write touches only the paths it reaches. A route's parentRef of kind ListenerSet
// attaches to that ListenerSet's listeners only; one to the Gateway, to the Gateway's own listeners.
// Build makes the graph from all objects; the updates (SetGateway, SetListenerSet, SetHTTPRoute,
// DeleteRoute, SetNamespace, ...) make the next version after one event in time proportional to
// what the object touches, sharing the rest with the version before, which stays intact for its
// readers. It takes typed Gateway API objects and does no I/O.
package topology
