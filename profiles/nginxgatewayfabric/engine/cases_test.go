package engine

import (
	"os"
	"sort"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
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

// ngfCase is one case of NGINX Gateway Fabric's tests: its objects, the status NGF gives each
// policy, by name, and where the test checks it, the policy whose field holds on a route.
type ngfCase struct {
	Name      string            `json:"name"`
	Test      string            `json:"test"`
	Objects   string            `json:"objects"`
	Want      map[string]string `json:"want"`
	Effective []struct {
		Kind  string `json:"kind"`
		Route string `json:"route"`
		Field string `json:"field"`
		From  string `json:"from"`
	} `json:"effective"`
}

// readable splits the case's objects into those the engine reads and the names of the policies it
// refuses, which NGINX Gateway Fabric marks Invalid (the engine's Read holds the checks of its CRD
// rules and validators).
func readable(t *testing.T, objects string) (string, map[string]string) {
	t.Helper()
	invalid := map[string]string{}
	var keep []string
	for _, doc := range strings.Split(objects, "\n---\n") {
		u := &unstructured.Unstructured{}
		if err := yaml.Unmarshal([]byte(doc), &u.Object); err != nil {
			t.Fatal(err)
		}
		if u.GroupVersionKind().Group == Group {
			if _, errs := Read(u); len(errs) > 0 {
				invalid[u.GetName()] = ReasonInvalid
				continue
			}
		}
		keep = append(keep, doc)
	}
	return strings.Join(keep, "\n---\n"), invalid
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
			objects, got := readable(t, c.Objects)
			w := ngfWorld(t, ngfBase, objects)
			st := w.Decide()
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
			for _, e := range c.Effective {
				checks++
				n[0]++
				from := ""
				for _, it := range w.Items(e.Kind, st) {
					if it.Gateway == "shop/gw" && it.Route == e.Route {
						from = it.Sources[e.Field]
					}
				}
				if from == e.From {
					agree++
					n[1]++
					continue
				}
				t.Errorf("%s on %s (%s): Precedent from %q, NGINX Gateway Fabric from %q", e.Field, e.Route, c.Test, from, e.From)
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
		t.Logf("  %-44s checks %2d  agree %2d", k, byTest[k][0], byTest[k][1])
	}
}
