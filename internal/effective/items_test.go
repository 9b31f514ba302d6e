package effective

import (
	"testing"

	"github.com/precedent-dev/precedent/internal/topology"
)

func TestItemKeyBeneath(t *testing.T) {
	key := ItemKey{Gateway: "infra/gw", Listener: "http", Route: "shop/cart", Rule: "0"}
	for _, tc := range []struct {
		target topology.Target
		want   bool
	}{
		{topology.Target{Kind: "GatewayClass", Name: "any"}, true},
		{topology.Target{Kind: "Gateway", Namespace: "infra", Name: "gw"}, true},
		{topology.Target{Kind: "Gateway", Namespace: "infra", Name: "other"}, false},
		{topology.Target{Kind: "Gateway", Namespace: "shop", Name: "cart"}, false}, // a Gateway named like the route
		{topology.Target{Kind: "HTTPRoute", Namespace: "shop", Name: "cart"}, true},
		{topology.Target{Kind: "GRPCRoute", Namespace: "shop", Name: "cart"}, true}, // paths name a route by namespace/name
		{topology.Target{Kind: "HTTPRoute", Namespace: "shop", Name: "pay"}, false},
		{topology.Target{Kind: "TCPRoute", Namespace: "shop", Name: "cart"}, false},
		{topology.Target{Kind: "ListenerSet", Namespace: "shop", Name: "cart"}, false},
	} {
		if got := key.Beneath(tc.target); got != tc.want {
			t.Errorf("Beneath(%s) = %t, want %t", tc.target, got, tc.want)
		}
	}
}
