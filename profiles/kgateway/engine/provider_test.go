package engine

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TestOneFilterPerProvider: extAuth, extProc, jwtAuth and global rate limits run one Envoy filter
// per provider; a route policy naming another provider leaves the Gateway's on beside its own, one
// naming the same provider replaces it, and `disable` turns it off. headerModifiers apply at every
// level.
func TestOneFilterPerProvider(t *testing.T) {
	gwPolicy := tp("infra", "gw-auth", 0, list{ref("Gateway", "gw", "")}, obj{
		"extAuth": obj{"extensionRef": obj{"name": "basic"}}, "jwtAuth": obj{"extensionRef": obj{"name": "idp"}}})
	gwHeaders := tp("infra", "gw-headers", 0, list{ref("Gateway", "gw", "")}, obj{
		"headerModifiers": obj{"response": obj{"add": list{obj{"name": "x-gw", "value": "g"}}}}})
	cases := []struct {
		name  string
		route obj
		want  map[string]string
	}{
		{"another provider: both filters run",
			obj{"extAuth": obj{"extensionRef": obj{"name": "team"}}},
			map[string]string{"extAuth": "route-auth,gw-auth", "jwtAuth": "gw-auth", "headerModifiers": "gw-headers"}},
		{"the same provider: the route's configuration replaces the Gateway's",
			obj{"extAuth": obj{"extensionRef": obj{"name": "basic"}}},
			map[string]string{"extAuth": "route-auth", "jwtAuth": "gw-auth", "headerModifiers": "gw-headers"}},
		{"the same provider named with its namespace",
			obj{"extAuth": obj{"extensionRef": obj{"name": "basic", "namespace": "infra"}}},
			map[string]string{"extAuth": "route-auth", "jwtAuth": "gw-auth", "headerModifiers": "gw-headers"}},
		{"disable turns the Gateway's off",
			obj{"extAuth": obj{"disable": obj{}}},
			map[string]string{"extAuth": "route-auth", "jwtAuth": "gw-auth", "headerModifiers": "gw-headers"}},
		{"headerModifiers of the route and of the Gateway both apply",
			obj{"headerModifiers": obj{"request": obj{"add": list{obj{"name": "x-route", "value": "r"}}}}},
			map[string]string{"extAuth": "gw-auth", "jwtAuth": "gw-auth", "headerModifiers": "route-auth,gw-headers"}},
		{"another jwt provider",
			obj{"jwtAuth": obj{"extensionRef": obj{"name": "other-idp"}}},
			map[string]string{"extAuth": "gw-auth", "jwtAuth": "route-auth,gw-auth", "headerModifiers": "gw-headers"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := New([]*unstructured.Unstructured{gateway("infra", "gw", ""), route("infra", "r", "gw", "", nil, backend()), gwPolicy, gwHeaders,
				tp("infra", "route-auth", 1, list{ref("HTTPRoute", "r", "")}, c.route)})
			v := View{World: w}
			ps := v.Paths(Key{"infra", "r"})
			if len(ps) != 1 {
				t.Fatalf("%d paths, want 1", len(ps))
			}
			if d := cmp.Diff(c.want, fields(v.Compute(ps[0]))); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}
