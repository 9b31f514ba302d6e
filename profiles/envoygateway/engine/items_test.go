package engine

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/precedent-dev/precedent/internal/effective"
)

// TestHolders: the policy that holds each path, as Envoy Gateway records it on the xDS route: the
// most specific one, a rule policy merged into the Gateway's included; a path held by a policy
// Envoy Gateway marks Invalid has none.
func TestHolders(t *testing.T) {
	gw := pol(t, BackendTrafficPolicy, "envoy-gateway-system", "gw", 0, obj{"targetRefs": refs(ref("Gateway", "eg")), "timeout": obj{"http": obj{"requestTimeout": "5s"}}})
	admin := pol(t, BackendTrafficPolicy, "shop", "admin", 1, obj{"targetRefs": refs(sref("HTTPRoute", "cart", "admin")), "mergeType": "StrategicMerge", "retry": obj{"numRetries": int64(2)}})
	broken := AsInvalid(pol(t, BackendTrafficPolicy, "shop", "shelf", 2, obj{"targetRefs": refs(ref("HTTPRoute", "shelf"))}))
	got := snapshot(shop(), gw, admin, broken).Holders(BackendTrafficPolicy)
	want := map[effective.ItemKey]string{
		{Gateway: "envoy-gateway-system/eg", Route: "shop/cart", Rule: "main"}:                                      "envoy-gateway-system/gw",
		{Gateway: "envoy-gateway-system/eg", Route: "shop/cart", Rule: "admin"}:                                     "shop/admin",
		{Gateway: "envoy-gateway-system/eg", Listener: "ListenerSet shop/team#team-http", Route: "shop/team-route"}: "envoy-gateway-system/gw",
		{Gateway: "envoy-gateway-system/eg", Route: "shop/db"}:                                                      "envoy-gateway-system/gw",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("holders (-want +got):\n%s", d)
	}
}
