package engine

import (
	"os"
	"sort"
	"testing"

	"sigs.k8s.io/yaml"
)

// ngfBase is what every case of testdata/ngf-cases.yaml stands on: NGINX Gateway Fabric's
// GatewayClass and a Gateway of it.
const ngfBase = `
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: nginx}
spec: {controllerName: gateway.nginx.org/nginx-gateway-controller}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: shop}
spec: {gatewayClassName: nginx, listeners: [{name: http, port: 80, protocol: HTTP}]}
`

// ngfCase is one case of NGINX Gateway Fabric's tests: its objects and the status NGF gives each
// policy, by name.
type ngfCase struct {
	Name    string            `json:"name"`
	Test    string            `json:"test"`
	Objects string            `json:"objects"`
	Want    map[string]string `json:"want"`
}

// TestNGFCases decides NGINX Gateway Fabric's own cases (testdata/ngf-cases.yaml, each naming the
// NGF test it comes from) and compares every policy's status with NGF's; it prints the table.
func TestNGFCases(t *testing.T) {
	raw, err := os.ReadFile("testdata/ngf-cases.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var cases []ngfCase
	if err := yaml.Unmarshal(raw, &cases); err != nil {
		t.Fatalf("testdata/ngf-cases.yaml: %v", err)
	}
	checks, agree := 0, 0
	byTest := map[string][2]int{}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			w := ngfWorld(t, ngfBase, c.Objects)
			st := w.Decide()
			got := map[string]string{}
			for _, p := range w.Policies {
				got[p.Ref.Name] = StatusOf(st, p).Reason
			}
			n := byTest[c.Test]
			for name, want := range c.Want {
				checks++
				n[0]++
				if got[name] == want {
					agree++
					n[1]++
					continue
				}
				t.Errorf("%s (%s): Precedent %q, NGINX Gateway Fabric %q", name, c.Test, got[name], want)
			}
			byTest[c.Test] = n
		})
	}
	tests := make([]string, 0, len(byTest))
	for k := range byTest {
		tests = append(tests, k)
	}
	sort.Strings(tests)
	t.Logf("NGINX Gateway Fabric's cases: %d cases, %d checks, %d agree, %d Precedent wrong, 0 out of scope", len(cases), checks, agree, checks-agree)
	for _, k := range tests {
		t.Logf("  %-36s checks %2d  agree %2d", k, byTest[k][0], byTest[k][1])
	}
}
