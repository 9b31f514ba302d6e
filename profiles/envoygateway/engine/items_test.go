package engine

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/precedent-dev/precedent/internal/effective"
)

// TestHolders: the policies Envoy Gateway records on each xDS route: on an HTTP route the most
// specific one, a rule policy merged into the Gateway's included; none where the policy holding the
// route is one Envoy Gateway marks Invalid; on a TCP route every policy on the path.
func TestHolders(t *testing.T) {
	gw := pol(t, BackendTrafficPolicy, "envoy-gateway-system", "gw", 0, obj{"targetRefs": refs(ref("Gateway", "eg")), "timeout": obj{"http": obj{"requestTimeout": "5s"}}})
	admin := pol(t, BackendTrafficPolicy, "shop", "admin", 1, obj{"targetRefs": refs(sref("HTTPRoute", "cart", "admin")), "mergeType": "StrategicMerge", "retry": obj{"numRetries": int64(2)}})
	broken := AsInvalid(pol(t, BackendTrafficPolicy, "shop", "shelf", 2, obj{"targetRefs": refs(ref("HTTPRoute", "shelf"))}))
	db := pol(t, BackendTrafficPolicy, "shop", "db", 3, obj{"targetRefs": refs(ref("TCPRoute", "db")), "loadBalancer": obj{"type": "Random"}})
	got := snapshot(shop(), gw, admin, broken, db).Holders(BackendTrafficPolicy)
	eg := "envoy-gateway-system/eg"
	want := map[effective.ItemKey][]string{
		{Gateway: eg, Route: "shop/cart", Rule: "main"}:                                      {"envoy-gateway-system/gw"},
		{Gateway: eg, Route: "shop/cart", Rule: "admin"}:                                     {"shop/admin"},
		{Gateway: eg, Listener: "ListenerSet shop/team#team-http", Route: "shop/team-route"}: {"envoy-gateway-system/gw"},
		{Gateway: eg, Route: "shop/db"}:                                                      {"envoy-gateway-system/gw", "shop/db"},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("holders (-want +got):\n%s", d)
	}
}
