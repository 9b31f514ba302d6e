package envoygateway_test

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/precedent-dev/precedent/internal/settings"
	"github.com/precedent-dev/precedent/test/harness"
)

// egKinds manages Envoy Gateway's four kinds with the envoy-gateway profile (status: none, the
// profile's default).
var egKinds = []interface{}{
	map[string]interface{}{"gvk": map[string]interface{}{"group": "gateway.envoyproxy.io", "version": "v1alpha1", "kind": "SecurityPolicy"}, "profile": "envoy-gateway"},
	map[string]interface{}{"gvk": map[string]interface{}{"group": "gateway.envoyproxy.io", "version": "v1alpha1", "kind": "BackendTrafficPolicy"}, "profile": "envoy-gateway"},
	map[string]interface{}{"gvk": map[string]interface{}{"group": "gateway.envoyproxy.io", "version": "v1alpha1", "kind": "ClientTrafficPolicy"}, "profile": "envoy-gateway"},
	map[string]interface{}{"gvk": map[string]interface{}{"group": "gateway.envoyproxy.io", "version": "v1alpha1", "kind": "EnvoyExtensionPolicy"}, "profile": "envoy-gateway"},
}

// gatewayWithJWT is a Gateway authenticating every route with JWT (its SecurityPolicy gw-auth) and
// the route cart on it, in {{ns}}.
var gatewayWithJWT = []string{`
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: eg, namespace: "{{ns}}"}
spec:
  gatewayClassName: eg
  listeners: [{name: http, port: 80, protocol: HTTP}]`, `
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: cart, namespace: "{{ns}}"}
spec:
  parentRefs: [{name: eg}]
  rules: [{name: browse, backendRefs: [{name: cart, port: 8080}]}]`, `
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: SecurityPolicy
metadata: {name: gw-auth, namespace: "{{ns}}"}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: eg}]
  jwt:
    providers: [{name: corp, remoteJWKS: {uri: "https://login.example.com/.well-known/jwks.json"}}]`}

// routeExtAuth is the route cart's SecurityPolicy with only extAuth (envoyproxy/gateway #8781).
const routeExtAuth = `
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: SecurityPolicy
metadata: {name: cart-authz, namespace: "{{ns}}"}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: cart}]
  extAuth:
    http:
      backendRefs: [{name: authz, port: 9002}]`

// manageEnvoyGateway manages the kinds for the test (egKinds unless given), and the shipped kinds
// again after it.
func manageEnvoyGateway(t *testing.T, c client.Client, kinds ...interface{}) {
	t.Helper()
	ctx := context.Background()
	t.Cleanup(func() {
		h.SetConfig(t, c, map[string]interface{}{})
		if err := h.Env.RegisterWebhooks(ctx, c, settings.Defaults().Registry().Kinds()); err != nil {
			t.Errorf("registering the webhooks for the shipped kinds again: %v", err)
		}
	})
	if len(kinds) == 0 {
		kinds = egKinds
	}
	h.SetConfig(t, c, map[string]interface{}{"kinds": kinds})
	if err := h.Env.RegisterWebhooks(ctx, c, h.Live.Current().Registry().Kinds()); err != nil {
		t.Fatal(err)
	}
	// The kinds' informers list as the settings change; until they have, a write is answered 503
	// (retry), which fails it: wait for a dry run to be admitted.
	probe := harness.Object(`
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: SecurityPolicy
metadata: {name: probe, namespace: default}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: none}]`)
	pc, rec := h.NewClient()
	harness.Eventually(t, "the webhook has listed Envoy Gateway's kinds", func() (bool, string) {
		rec.Take()
		err := pc.Create(ctx, probe.DeepCopy(), client.DryRunAll)
		ws := rec.Take()
		// The warning proves the API server called the webhook (its configuration may still be
		// on its way) and that the webhook answered (its caches listed).
		return err == nil && len(ws) > 0 && strings.Contains(ws[0], "not found"), fmt.Sprint(err, ws)
	})
}

// TestRouteAuthDropsGatewayJWT is envoyproxy/gateway #8781 on a real API server with Envoy Gateway's
// real CRDs: a Gateway SecurityPolicy authenticates with JWT, and a route SecurityPolicy with only
// extAuth and no mergeType replaces it whole on that route (Envoy Gateway's securitypolicy.go,
// ProcessSecurityPolicies). The write is admitted with a warning naming what it drops, on a
// server-side dry run (GitOps) and on the real write alike, through kubectl too; a policy whose
// target does not exist is told Envoy Gateway will write no status; a status written the way
// Envoy Gateway writes it stays untouched, with no status write from Precedent.
func TestRouteAuthDropsGatewayJWT(t *testing.T) {
	c, rec := h.NewClient()
	ctx := context.Background()
	ns := harness.Namespace(t, c)
	manageEnvoyGateway(t, c)
	harness.Apply(t, c, ns, gatewayWithJWT...)
	routeDoc := routeExtAuth // with only extAuth, no mergeType
	drop := "PRC-W020 drops `jwt` from " + ns + "/gw-auth on route " + ns + "/cart; set `mergeType: StrategicMerge` to keep it"

	t.Run("kubectl apply --dry-run=server warns of the dropped jwt", func(t *testing.T) {
		var out string
		harness.Eventually(t, "kubectl prints the warning", func() (bool, string) {
			cmd := exec.Command("kubectl", "--kubeconfig", h.Kubeconfig, "apply", "--dry-run=server", "-f", "-")
			cmd.Stdin = strings.NewReader(strings.ReplaceAll(routeDoc, "{{ns}}", ns))
			b, err := cmd.CombinedOutput()
			out = string(b)
			return err == nil && strings.Contains(out, "Warning: "+drop), out
		})
	})
	route := harness.ObjectIn(ns, routeDoc)
	t.Run("the write and its dry run warn alike", func(t *testing.T) {
		harness.WarningsOf(t, c, rec, route, []string{drop})
	})
	t.Run("with mergeType the jwt is kept and nothing is said", func(t *testing.T) {
		merged := harness.ObjectIn(ns, strings.Replace(routeDoc, "name: cart-authz", "name: cart-authz-merged", 1))
		if err := unstructured.SetNestedField(merged.Object, "StrategicMerge", "spec", "mergeType"); err != nil {
			t.Fatal(err)
		}
		// cart-authz holds the route: the merged one is the newer of two on one scope, Conflicted.
		harness.DryRunWarnings(t, c, rec, merged, []string{
			"PRC-W019 will be Conflicted on HTTPRoute " + ns + "/cart: " + ns + "/cart-authz is older and holds it",
		})
	})
	t.Run("a missing target gets no status from Envoy Gateway", func(t *testing.T) {
		missing := harness.ObjectIn(ns, strings.NewReplacer("name: cart-authz", "name: ghost-authz", "name: cart}", "name: ghost}").Replace(routeDoc))
		harness.DryRunWarnings(t, c, rec, missing, missingWarnings(ns))
	})
	t.Run("a status written as Envoy Gateway writes it stays untouched", func(t *testing.T) {
		cur := &unstructured.Unstructured{}
		cur.SetGroupVersionKind(route.GroupVersionKind())
		if err := c.Get(ctx, client.ObjectKeyFromObject(route), cur); err != nil {
			t.Fatal(err)
		}
		status := map[string]interface{}{"ancestors": []interface{}{map[string]interface{}{
			"ancestorRef":    map[string]interface{}{"group": "gateway.networking.k8s.io", "kind": "Gateway", "name": "eg", "namespace": ns},
			"controllerName": "gateway.envoyproxy.io/gatewayclass-controller",
			"conditions": []interface{}{map[string]interface{}{"type": "Accepted", "status": "True", "reason": "Accepted", "message": "Policy has been accepted.",
				"lastTransitionTime": time.Now().UTC().Format(time.RFC3339), "observedGeneration": cur.GetGeneration()}},
		}}}
		cur.Object["status"] = status
		if err := c.Status().Update(ctx, cur); err != nil {
			t.Fatal(err)
		}
		before, err := harness.StatusWrites(ctx, h.Env.Config, "gateway.envoyproxy.io", "securitypolicies")
		if err != nil {
			t.Fatal(err)
		}
		// Changes that would make a status-writing reconciler act: the Gateway's labels, the route's.
		for _, kind := range []string{"Gateway", "HTTPRoute"} {
			o := &unstructured.Unstructured{}
			o.SetAPIVersion("gateway.networking.k8s.io/v1")
			o.SetKind(kind)
			name := map[string]string{"Gateway": "eg", "HTTPRoute": "cart"}[kind]
			if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, o); err != nil {
				t.Fatal(err)
			}
			o.SetLabels(map[string]string{"touched": "yes"})
			if err := c.Update(ctx, o); err != nil {
				t.Fatal(err)
			}
		}
		harness.Consistently(t, 3*time.Second, "no status write from Precedent and Envoy Gateway's entry kept", func() (bool, string) {
			after, err := harness.StatusWrites(ctx, h.Env.Config, "gateway.envoyproxy.io", "securitypolicies")
			if err != nil {
				return false, err.Error()
			}
			got := &unstructured.Unstructured{}
			got.SetGroupVersionKind(route.GroupVersionKind())
			if err := c.Get(ctx, client.ObjectKeyFromObject(route), got); err != nil {
				return false, err.Error()
			}
			ancestors, _, _ := unstructured.NestedSlice(got.Object, "status", "ancestors")
			return after == before && len(ancestors) == 1, fmt.Sprintf("%v status writes since Envoy Gateway's, %d ancestors", after-before, len(ancestors))
		})
	})
}

// missingWarnings is what a route policy whose route does not exist is told.
func missingWarnings(ns string) []string {
	return []string{"PRC-W011 target HTTPRoute " + ns + "/ghost not found: Envoy Gateway ignores it and writes no status for it"}
}

// TestDefaultMergeTypeThroughTheWebhook: with `defaults: {mergeType: StrategicMerge}` on the
// SecurityPolicy line (envoyproxy/gateway #9334), a route policy written without mergeType comes
// back with it from the mutating webhook, so it merges into the Gateway's policy and keeps its JWT:
// nothing is dropped, nothing is said.
func TestDefaultMergeTypeThroughTheWebhook(t *testing.T) {
	c, rec := h.NewClient()
	ctx := context.Background()
	ns := harness.Namespace(t, c)
	kinds := append([]interface{}(nil), egKinds...)
	kinds[0] = map[string]interface{}{"gvk": map[string]interface{}{"group": "gateway.envoyproxy.io", "version": "v1alpha1", "kind": "SecurityPolicy"},
		"profile": "envoy-gateway", "defaults": map[string]interface{}{"mergeType": "StrategicMerge"}}
	manageEnvoyGateway(t, c, kinds...)
	harness.Apply(t, c, ns, gatewayWithJWT...)
	route := harness.ObjectIn(ns, routeExtAuth)
	harness.WarningsOf(t, c, rec, route, nil)
	got := &unstructured.Unstructured{}
	got.SetGroupVersionKind(route.GroupVersionKind())
	if err := c.Get(ctx, client.ObjectKeyFromObject(route), got); err != nil {
		t.Fatal(err)
	}
	if mt, _, _ := unstructured.NestedString(got.Object, "spec", "mergeType"); mt != "StrategicMerge" {
		t.Errorf("stored spec.mergeType %q, want StrategicMerge from the kind's default", mt)
	}
}
