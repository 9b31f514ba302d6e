package webhook_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/precedent-dev/precedent/internal/settings"
	"github.com/precedent-dev/precedent/test/harness"
)

// ngfKinds is the one line per kind that manages NGINX Gateway Fabric's policies.
func ngfKinds() []interface{} {
	line := func(version, kind string) interface{} {
		return map[string]interface{}{"gvk": map[string]interface{}{"group": "gateway.nginx.org", "version": version, "kind": kind}, "profile": "nginx-gateway-fabric"}
	}
	out := []interface{}{line("v1alpha1", "ClientSettingsPolicy"), line("v1alpha1", "UpstreamSettingsPolicy"), line("v1alpha2", "ObservabilityPolicy")}
	for _, k := range []string{"ProxySettingsPolicy", "RateLimitPolicy", "SnippetsPolicy", "WAFPolicy", "PayloadProcessor", "ExternalLoadBalancer"} {
		out = append(out, line("v1alpha1", k))
	}
	return out
}

// TestNGINXGatewayFabricKinds manages NGINX Gateway Fabric's kinds (same-shape CRDs,
// test/crds/nginx-gateway-fabric) with one line per kind: `kubectl apply --dry-run=server` of a
// ClientSettingsPolicy on a route whose hostname, port and path another route shares is refused with
// the field path, as NGINX Gateway Fabric would not accept it; a newer policy setting a field an older
// one sets on the Gateway is admitted with the warning that it will be Conflicted; so is refused a
// policy on a GRPCRoute that serves the same gRPC method as a GRPCRoute it does not target (the
// profile reads GRPCRoutes whole from the cluster).
func TestNGINXGatewayFabricKinds(t *testing.T) {
	c, rec := h.NewClient()
	ctx := context.Background()
	ns := harness.Namespace(t, c)
	harness.InstallCRDFiles(t, c, "test/crds/nginx-gateway-fabric")
	t.Cleanup(func() {
		setConfig(t, c, map[string]interface{}{})
		if err := h.Env.RegisterWebhooks(ctx, c, settings.Defaults().Registry().Kinds()); err != nil {
			t.Errorf("registering the webhooks for the shipped kinds again: %v", err)
		}
	})
	setConfig(t, c, map[string]interface{}{"kinds": ngfKinds()})
	if err := h.Env.RegisterWebhooks(ctx, c, h.Live.Current().Registry().Kinds()); err != nil {
		t.Fatal(err)
	}
	harness.Apply(t, c, ns, `
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw}
spec:
  gatewayClassName: nginx
  listeners: [{name: http, port: 80, protocol: HTTP}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: cart}
spec:
  parentRefs: [{name: gw}]
  hostnames: [shop.example.com]
  rules: [{matches: [{path: {type: PathPrefix, value: /cart}}]}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: shadow}
spec:
  parentRefs: [{name: gw}]
  hostnames: [shop.example.com]
  rules: [{matches: [{path: {type: PathPrefix, value: /cart}}]}]`)
	// The profile watches Services from its first write (state.WatchRead): until they are listed
	// the webhook answers "not synced yet: retry", as the API server's clients do.
	gwCSP := harness.ObjectIn(ns, `
apiVersion: gateway.nginx.org/v1alpha1
kind: ClientSettingsPolicy
metadata: {name: gw-csp, namespace: "{{ns}}"}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: gw}
  body: {maxSize: 10m}`)
	harness.EventuallyWithin(t, 30*time.Second, "the Gateway's ClientSettingsPolicy is created", func() (bool, string) {
		err := c.Create(ctx, gwCSP.DeepCopy())
		return err == nil, harness.ErrString(err)
	})

	t.Run("a route policy whose route shares hostname:port/path with an unreferenced route is refused", func(t *testing.T) {
		file := filepath.Join(t.TempDir(), "csp.yaml")
		if err := os.WriteFile(file, []byte(`
apiVersion: gateway.nginx.org/v1alpha1
kind: ClientSettingsPolicy
metadata: {name: cart-csp, namespace: `+ns+`}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: cart}
  body: {maxSize: 1m}
`), 0o600); err != nil {
			t.Fatal(err)
		}
		want := `spec.targetRef: Forbidden: PRC-E260 Policy cannot be applied to target "` + ns + `/cart" since another Route "` + ns + `/shadow" shares a namespace/gateway-name:hostname:port/path combination with this target`
		harness.EventuallyWithin(t, 20*time.Second, "kubectl apply --dry-run=server is refused", func() (bool, string) {
			cmd := exec.Command("kubectl", "apply", "--dry-run=server", "-f", file, "--kubeconfig", h.Kubeconfig)
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			err := cmd.Run()
			if err != nil && strings.Contains(out.String(), want) {
				t.Logf("kubectl apply --dry-run=server: %s", out.String())
				return true, ""
			}
			return false, out.String()
		})
	})

	t.Run("a GRPCRoute policy whose method another GRPCRoute serves is refused", func(t *testing.T) {
		for _, name := range []string{"orders", "orders-canary"} { // both serve shop.Orders/Place
			harness.Apply(t, c, ns, `{apiVersion: gateway.networking.k8s.io/v1, kind: GRPCRoute, metadata: {name: `+name+`},
  spec: {parentRefs: [{name: gw}], hostnames: [shop.example.com], rules: [{matches: [{method: {service: shop.Orders, method: Place}}]}]}}`)
		}
		csp := harness.ObjectIn(ns, `
apiVersion: gateway.nginx.org/v1alpha1
kind: ClientSettingsPolicy
metadata: {name: orders-csp, namespace: "{{ns}}"}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: GRPCRoute, name: orders}
  keepAlive: {requests: 10}`)
		want := `spec.targetRef: Forbidden: PRC-E260 Policy cannot be applied to target "` + ns + `/orders" since another Route "` + ns + `/orders-canary" shares a namespace/gateway-name:hostname:port/path combination with this target (` + ns + `/gw:shop.example.com:80/shop.Orders/Place)`
		harness.EventuallyWithin(t, 20*time.Second, "the write is refused", func() (bool, string) {
			err := c.Create(ctx, csp.DeepCopy(), client.DryRunAll)
			return err != nil && strings.Contains(err.Error(), want), harness.ErrString(err)
		})
	})

	t.Run("a newer policy setting a field an older one sets is warned Conflicted", func(t *testing.T) {
		newer := harness.ObjectIn(ns, `
apiVersion: gateway.nginx.org/v1alpha1
kind: ClientSettingsPolicy
metadata: {name: gw-csp-2, namespace: "{{ns}}"}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: gw}
  body: {maxSize: 20m}`)
		harness.WarningsOf(t, c, rec, newer, []string{
			"PRC-W260 ClientSettingsPolicy " + ns + "/gw-csp, older, sets body.maxSize on the same target: NGINX Gateway Fabric marks this policy Conflicted and applies none of it",
		})
	})

	// The six other kinds, as NGINX Gateway Fabric decides them: rate-limit rules never conflict but
	// a second rejectCode does; a second ExternalLoadBalancer on a Gateway is Conflicted whatever it
	// sets; a ProxySettingsPolicy may not mix a Gateway with routes (the CRD's rule).
	t.Run("the other kinds conflict as NGINX Gateway Fabric decides", func(t *testing.T) {
		rl := func(name, extra string) *unstructured.Unstructured {
			return harness.ObjectIn(ns, `
apiVersion: gateway.nginx.org/v1alpha1
kind: RateLimitPolicy
metadata: {name: `+name+`, namespace: "{{ns}}"}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw}]
  rateLimit: {`+extra+`local: {rules: [{rate: 10r/s, key: $binary_remote_addr}]}}`)
		}
		harness.EventuallyWithin(t, 30*time.Second, "the first RateLimitPolicy is created", func() (bool, string) {
			err := c.Create(ctx, rl("rl-1", "rejectCode: 429, "))
			return err == nil, harness.ErrString(err)
		})
		harness.WarningsOf(t, c, rec, rl("rl-2", ""), nil)
		harness.WarningsOf(t, c, rec, rl("rl-3", "rejectCode: 503, "), []string{
			"PRC-W260 RateLimitPolicy " + ns + "/rl-1, older, sets rateLimit.rejectCode on the same target: NGINX Gateway Fabric marks this policy Conflicted and applies none of it",
		})
		elb := func(name string) *unstructured.Unstructured {
			return harness.ObjectIn(ns, `
apiVersion: gateway.nginx.org/v1alpha1
kind: ExternalLoadBalancer
metadata: {name: `+name+`, namespace: "{{ns}}"}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw}]
  gatewayLink: {ipamLabel: prod}`)
		}
		harness.EventuallyWithin(t, 30*time.Second, "the first ExternalLoadBalancer is created", func() (bool, string) {
			err := c.Create(ctx, elb("front"))
			return err == nil, harness.ErrString(err)
		})
		harness.WarningsOf(t, c, rec, elb("back"), []string{
			"PRC-W260 ExternalLoadBalancer " + ns + "/front, older, already holds it (one ExternalLoadBalancer per target) on the same target: NGINX Gateway Fabric marks this policy Conflicted and applies none of it",
		})
		mixed := harness.ObjectIn(ns, `
apiVersion: gateway.nginx.org/v1alpha1
kind: ProxySettingsPolicy
metadata: {name: mixed, namespace: "{{ns}}"}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw}, {group: gateway.networking.k8s.io, kind: HTTPRoute, name: cart}]
  timeout: {read: 10s}`)
		err := c.Create(ctx, mixed, client.DryRunAll)
		if err == nil || !strings.Contains(err.Error(), "spec.targetRefs") || !strings.Contains(err.Error(), "Cannot mix Gateway kind with HTTPRoute or GRPCRoute kinds in targetRefs") {
			t.Errorf("a ProxySettingsPolicy on a Gateway and a route: want refused at spec.targetRefs, got %v", err)
		}
	})

	// The same-shape CRDs hold NGINX Gateway Fabric's schema facts: the NGINX Plus load-balancing
	// methods, a targetRefs list with some core target (NGF's CEL test "validate targetRef group"
	// accepts a mixed one), tracing.spanAttributes kept, patterns on spanName and keepAlive.time.
	t.Run("the same-shape CRDs take NGINX Gateway Fabric's schema", func(t *testing.T) {
		usp := harness.ObjectIn(ns, `
apiVersion: gateway.nginx.org/v1alpha1
kind: UpstreamSettingsPolicy
metadata: {name: plus, namespace: "{{ns}}"}
spec:
  targetRefs: [{group: core, kind: Service, name: a}, {group: "", kind: Service, name: b}]
  loadBalancingMethod: least_time header inflight`)
		if err := c.Create(ctx, usp, client.DryRunAll); err != nil {
			t.Errorf("an NGINX Plus method and a mixed group list: %v", err)
		}
		op := harness.ObjectIn(ns, `
apiVersion: gateway.nginx.org/v1alpha2
kind: ObservabilityPolicy
metadata: {name: attrs, namespace: "{{ns}}"}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: cart}, {group: gateway.networking.k8s.io, kind: HTTPRoute, name: shadow}]
  tracing: {strategy: parent, spanAttributes: [{key: team, value: shop}]}`)
		if err := c.Create(ctx, op, client.DryRunAll); err != nil {
			t.Fatalf("spanAttributes: %v", err)
		}
		if attrs, _, _ := unstructured.NestedSlice(op.Object, "spec", "tracing", "spanAttributes"); len(attrs) != 1 {
			t.Errorf("spanAttributes pruned: %v", op.Object["spec"])
		}
		for field, doc := range map[string]string{
			"spec.tracing.spanName": `
apiVersion: gateway.nginx.org/v1alpha2
kind: ObservabilityPolicy
metadata: {name: dollar, namespace: "{{ns}}"}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: cart}]
  tracing: {strategy: parent, spanName: "a$b"}`,
			"spec.keepAlive.time": `
apiVersion: gateway.nginx.org/v1alpha1
kind: UpstreamSettingsPolicy
metadata: {name: badtime, namespace: "{{ns}}"}
spec:
  targetRefs: [{group: core, kind: Service, name: a}]
  keepAlive: {time: 1x}`,
		} {
			err := c.Create(ctx, harness.ObjectIn(ns, doc), client.DryRunAll)
			if err == nil || !strings.Contains(err.Error(), field) {
				t.Errorf("%s: want refused, got %v", field, err)
			}
		}
	})
}
