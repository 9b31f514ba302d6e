package egcrds

import (
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The pinned module ships the CRDs of the four policy kinds the envoy-gateway profile manages.
func TestLoadFindsThePolicyCRDs(t *testing.T) {
	crds, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range crds {
		if n := c.GetName(); n == "backendtrafficpolicies.gateway.envoyproxy.io" || n == "securitypolicies.gateway.envoyproxy.io" ||
			n == "clienttrafficpolicies.gateway.envoyproxy.io" || n == "envoyextensionpolicies.gateway.envoyproxy.io" {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	want := []string{"backendtrafficpolicies.gateway.envoyproxy.io", "clienttrafficpolicies.gateway.envoyproxy.io", "envoyextensionpolicies.gateway.envoyproxy.io", "securitypolicies.gateway.envoyproxy.io"}
	if d := cmp.Diff(want, names); d != "" {
		t.Errorf("policy CRDs (-want +got):\n%s", d)
	}
}
