package webhook_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/precedent-dev/precedent/internal/settings"
	"github.com/precedent-dev/precedent/test/harness"
)

// kgatewayDelegation is a Gateway, a parent route that prefers its own TrafficPolicy fields
// (ShallowMergePreferParent) and delegates to a child route, and the parent's rate limit.
const kgatewayDelegation = `
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: "{{ns}}"}
spec:
  gatewayClassName: kgateway
  listeners:
  - {name: http, port: 80, protocol: HTTP, allowedRoutes: {namespaces: {from: All}}}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: root
  namespace: "{{ns}}"
  annotations: {kgateway.dev/inherited-policy-priority: ShallowMergePreferParent}
spec:
  parentRefs: [{name: gw}]
  rules:
  - backendRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: cart}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: cart, namespace: "{{ns}}"}
spec:
  rules:
  - backendRefs: [{name: app, port: 8080}]
---
apiVersion: gateway.kgateway.dev/v1alpha1
kind: TrafficPolicy
metadata: {name: root-limits, namespace: "{{ns}}"}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: root}]
  rateLimit: {local: {tokenBucket: {maxTokens: 100, fillInterval: 1s}}}`

// TestKgatewayDelegation manages kgateway's TrafficPolicy (the same-shape CRD of test/crds/kgateway)
// with the kgateway profile and checks through the API server that `kubectl apply --dry-run=server`
// of a child route's TrafficPolicy under a ShallowMergePreferParent parent route warns that its
// rateLimit is ignored, naming the parent (kgateway's GetMergeStrategy: OverridableShallowMerge).
func TestKgatewayDelegation(t *testing.T) {
	c, _ := h.NewClient()
	ctx := context.Background()
	ns := harness.Namespace(t, c)
	harness.InstallCRDFiles(t, c, "test/crds/kgateway")
	t.Cleanup(func() {
		setConfig(t, c, map[string]interface{}{})
		if err := h.Env.RegisterWebhooks(ctx, c, settings.Defaults().Registry().Kinds()); err != nil {
			t.Errorf("registering the webhooks for the shipped kinds again: %v", err)
		}
	})
	setConfig(t, c, map[string]interface{}{"kinds": []interface{}{map[string]interface{}{
		"gvk": map[string]interface{}{"group": "gateway.kgateway.dev", "version": "v1alpha1", "kind": "TrafficPolicy"}, "profile": "kgateway"}}})
	if err := h.Env.RegisterWebhooks(ctx, c, h.Live.Current().Registry().Kinds()); err != nil {
		t.Fatal(err)
	}
	harness.Apply(t, c, ns, kgatewayDelegation)
	child := filepath.Join(t.TempDir(), "child.yaml")
	if err := os.WriteFile(child, []byte(strings.ReplaceAll(`
apiVersion: gateway.kgateway.dev/v1alpha1
kind: TrafficPolicy
metadata: {name: cart-limits, namespace: "{{ns}}"}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: cart}]
  rateLimit: {local: {tokenBucket: {maxTokens: 5, fillInterval: 1s}}}
  timeouts: {request: 5s}`, "{{ns}}", ns)), 0o644); err != nil {
		t.Fatal(err)
	}
	want := []string{"Warning: PRC-W230 your `rateLimit` on route " + ns + "/cart is ignored: parent route " + ns + "/root sets ShallowMergePreferParent"}
	var stdout, stderr string
	harness.EventuallyWithin(t, 20*time.Second, "kubectl shows the parent's displacement", func() (bool, string) {
		var err error
		stdout, stderr, err = kubectl(t, "apply", "--dry-run=server", "-f", child)
		return err == nil && cmp.Equal(want, warningLines(stderr)), "stderr: " + stderr + " err: " + harness.ErrString(err)
	})
	if !strings.Contains(stdout, "trafficpolicy.gateway.kgateway.dev/cart-limits created (server dry run)") {
		t.Errorf("stdout: %s", stdout)
	}
}
