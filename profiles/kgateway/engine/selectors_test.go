package engine

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TestTargetSelectors: targetSelectors select Gateways, ListenerSets and HTTPRoutes of the policy's
// namespace by label, at the selector's sectionName when it has one.
func TestTargetSelectors(t *testing.T) {
	gw := object("Gateway", "infra", "gw", nil, map[string]string{"team": "edge"}, obj{"listeners": list{
		obj{"name": "http", "port": int64(80), "protocol": "HTTP"},
		obj{"name": "admin", "port": int64(8080), "protocol": "HTTP"},
	}})
	r := route("infra", "r", "gw", "", map[string]string{"app": "shop"}, obj{"name": "checkout", "backendRefs": list{obj{"name": "svc"}}})
	cases := []struct {
		name     string
		selector obj
		want     map[string]map[string]string // listener → field → policy
	}{
		{"a Gateway by label reaches every listener",
			obj{"kind": "Gateway", "matchLabels": obj{"team": "edge"}},
			map[string]map[string]string{"http": {"cors": "sel"}, "admin": {"cors": "sel"}}},
		{"a Gateway's listener by label and sectionName",
			obj{"kind": "Gateway", "sectionName": "admin", "matchLabels": obj{"team": "edge"}},
			map[string]map[string]string{"http": {}, "admin": {"cors": "sel"}}},
		{"a route's rule by label and sectionName",
			obj{"kind": "HTTPRoute", "sectionName": "checkout", "matchLabels": obj{"app": "shop"}},
			map[string]map[string]string{"http": {"cors": "sel"}, "admin": {"cors": "sel"}}},
		{"labels that do not match select nothing",
			obj{"kind": "Gateway", "matchLabels": obj{"team": "core"}},
			map[string]map[string]string{"http": {}, "admin": {}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := tp("infra", "sel", 0, nil, obj{"cors": obj{}, "targetSelectors": list{c.selector}})
			w := New([]*unstructured.Unstructured{gw, r, p})
			v := View{World: w}
			got := map[string]map[string]string{}
			for _, path := range v.Paths(Key{"infra", "r"}) {
				got[path.Listener] = fields(v.Compute(path))
			}
			if d := cmp.Diff(c.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
			reached := len(v.Reached(w.Policy(Key{"infra", "sel"}))) > 0
			if want := c.name != "labels that do not match select nothing"; reached != want {
				t.Errorf("Reached: got %v, want %v", reached, want)
			}
		})
	}
}
