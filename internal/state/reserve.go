package state

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Reserve sizes the state's maps for the objects its informers are about to list, counts by
// group/kind. A source that knows the size of its lists (package memory) calls it before Watch, so
// that the maps are made once at their size instead of growing by rehashing as the objects arrive
// (160,000 objects at 10x the benchmark world). After Watch it does nothing (the handlers of the
// optional topology kinds hold their maps from then on).
func (s *State) Reserve(counts map[schema.GroupKind]int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.informers != nil {
		return
	}
	for gk, n := range counts {
		switch gk {
		case gatewayKind("GatewayClass"):
			s.classes = sized(s.classes, n)
		case gatewayKind("Gateway"):
			s.gateways = sized(s.gateways, n)
		case gatewayKind("HTTPRoute"):
			s.httpRoutes = sized(s.httpRoutes, n)
		case gatewayKind("GRPCRoute"):
			s.grpcRoutes = sized(s.grpcRoutes, n)
		case gatewayKind("ListenerSet"):
			s.lsets = sized(s.lsets, n)
		case gatewayKind("TLSRoute"):
			s.tlsRoutes = sized(s.tlsRoutes, n)
		case gatewayKind("TCPRoute"):
			s.tcpRoutes = sized(s.tcpRoutes, n)
		case gatewayKind("UDPRoute"):
			s.udpRoutes = sized(s.udpRoutes, n)
		case schema.GroupKind{Kind: "Namespace"}:
			s.nsLabels = sized(s.nsLabels, n)
		}
	}
	if s.reserved == nil {
		s.reserved = make(map[schema.GroupKind]int, len(counts))
	}
	for gk, n := range counts {
		s.reserved[gk] = n
	}
}

// sized is m, or an empty map made for n entries when m is empty.
func sized[K comparable, V any](m map[K]V, n int) map[K]V {
	if len(m) > 0 {
		return m
	}
	return make(map[K]V, n)
}
