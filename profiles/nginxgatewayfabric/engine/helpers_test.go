package engine

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/yaml"

	"github.com/precedent-dev/precedent/internal/inventory"
	"github.com/precedent-dev/precedent/internal/settings"
	"github.com/precedent-dev/precedent/internal/topology"
)

// topo is a Gateway with one HTTP listener on port 80 for *.example.com and two routes of namespace
// shop: cart (/cart) and tea (/tea), sending to the Services cart and tea.
const topo = `
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: shop}
spec:
  gatewayClassName: nginx
  listeners: [{name: http, port: 80, protocol: HTTP, hostname: "*.example.com"}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: cart, namespace: shop}
spec:
  parentRefs: [{name: gw}]
  hostnames: [shop.example.com]
  rules: [{matches: [{path: {type: PathPrefix, value: /cart}}], backendRefs: [{name: cart, port: 80}]}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: tea, namespace: shop}
spec:
  parentRefs: [{name: gw}]
  hostnames: [shop.example.com]
  rules: [{matches: [{path: {type: PathPrefix, value: /tea}}], backendRefs: [{name: tea, port: 80}]}]
---
apiVersion: v1
kind: Service
metadata: {name: cart, namespace: shop}
---
apiVersion: v1
kind: Service
metadata: {name: tea, namespace: shop}
`

// world builds a World from YAML documents; a policy's creationTimestamp is given as minutes after a
// fixed time by the annotation test/minute.
func world(t *testing.T, docs ...string) *World {
	t.Helper()
	var objs []*unstructured.Unstructured
	for _, d := range docs {
		for _, doc := range strings.Split(d, "\n---\n") {
			if strings.TrimSpace(doc) == "" {
				continue
			}
			u := &unstructured.Unstructured{}
			if err := yaml.Unmarshal([]byte(doc), &u.Object); err != nil {
				t.Fatal(err)
			}
			objs = append(objs, u)
		}
	}
	inv := inventory.Build(settings.Defaults().Registry(), objs, nil)
	w := &World{Graph: topology.Build(inv.Topology), HTTPRoutes: map[topology.Key]*gwv1.HTTPRoute{}, GRPCRoutes: map[topology.Key]*gwv1.GRPCRoute{}, Services: map[topology.Key]bool{}}
	for i := range inv.Topology.HTTPRoutes {
		r := &inv.Topology.HTTPRoutes[i]
		w.HTTPRoutes[topology.Key{Namespace: r.Namespace, Name: r.Name}] = r
	}
	for i := range inv.Topology.GRPCRoutes {
		r := &inv.Topology.GRPCRoutes[i]
		w.GRPCRoutes[topology.Key{Namespace: r.Namespace, Name: r.Name}] = r
	}
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, u := range objs {
		switch {
		case u.GetKind() == "ReferenceGrant":
			w.Grants = append(w.Grants, Grants(u)...)
		case u.GetKind() == "Service":
			w.Services[topology.Key{Namespace: u.GetNamespace(), Name: u.GetName()}] = true
		case u.GroupVersionKind().Group == Group:
			p, errs := Read(u)
			if len(errs) > 0 {
				t.Fatalf("%s: %v", u.GetName(), errs)
			}
			if m, ok := u.GetAnnotations()["test/minute"]; ok {
				d, _ := time.ParseDuration(m + "m")
				p.Created = base.Add(d)
			}
			w.Policies = append(w.Policies, p)
		}
	}
	return w
}

// policy reads one policy document.
func policy(t *testing.T, doc string) *Policy {
	t.Helper()
	w := world(t, doc)
	if len(w.Policies) != 1 {
		t.Fatalf("want one policy in %s", doc)
	}
	return w.Policies[0]
}

func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }

// with is the world with the write applied; it shares the route index (the routes are the same).
func (w *World) with(wr Write) *World {
	out := w.routesOnly()
	out.Policies = make([]*Policy, 0, len(w.Policies)+1)
	for _, q := range w.Policies {
		if !same(q, wr.Old) && !same(q, wr.New) {
			out.Policies = append(out.Policies, q)
		}
	}
	if wr.New != nil {
		out.Policies = append(out.Policies, wr.New)
	}
	return out
}
