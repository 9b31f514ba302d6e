package engine

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TestListenerPolicies: a policy on a listener (targetRef sectionName) applies to every route
// served through that listener, whether or not the route's parentRef names it; a route is served
// through the HTTP listeners whose hostname meets its own.
func TestListenerPolicies(t *testing.T) {
	gw := object("Gateway", "infra", "gw", nil, nil, obj{"listeners": list{
		obj{"name": "http", "port": int64(80), "protocol": "HTTP"},
		obj{"name": "shop", "port": int64(8080), "protocol": "HTTP", "hostname": "shop.example.com"},
		obj{"name": "tls", "port": int64(443), "protocol": "TLS"},
	}})
	policies := []*unstructured.Unstructured{
		tp("infra", "on-http", 0, list{ref("Gateway", "gw", "http")}, obj{"cors": obj{}}),
		tp("infra", "on-shop", 1, list{ref("Gateway", "gw", "shop")}, obj{"timeouts": obj{}}),
	}
	cases := []struct {
		name  string
		route *unstructured.Unstructured
		want  map[string]map[string]string // listener → field → policy
	}{
		{"a route without sectionName gets each listener's policy on that listener",
			route("infra", "r", "gw", "", nil, backend()),
			map[string]map[string]string{"http": {"cors": "on-http"}, "shop": {"timeouts": "on-shop"}}},
		{"a route naming a listener gets only that listener's",
			sectioned(route("infra", "r", "gw", "", nil, backend()), "shop"),
			map[string]map[string]string{"shop": {"timeouts": "on-shop"}}},
		{"a route whose hostname the listener's does not meet is not served there",
			withHosts(route("infra", "r", "gw", "", nil, backend()), "cart.example.com"),
			map[string]map[string]string{"http": {"cors": "on-http"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := New(append([]*unstructured.Unstructured{gw, c.route}, policies...))
			v := View{World: w}
			got := map[string]map[string]string{}
			for _, p := range v.Paths(Key{"infra", "r"}) {
				got[p.Listener] = fields(v.Compute(p))
			}
			if d := cmp.Diff(c.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

func sectioned(u *unstructured.Unstructured, section string) *unstructured.Unstructured {
	u.Object["spec"].(obj)["parentRefs"] = list{obj{"name": "gw", "sectionName": section}}
	return u
}
