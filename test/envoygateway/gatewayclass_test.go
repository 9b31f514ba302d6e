package envoygateway_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/precedent-dev/precedent/test/harness"
)

// twoImplementations are GatewayClass {{ns}}-a of Envoy Gateway's controller and {{ns}}-b of
// another, a Gateway of each, and the route cart attached to both (the shape of Envoy Gateway's
// translator case securitypolicy-mixed-managed-unmanaged-route-parents).
var twoClasses = []string{`
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: "{{ns}}-a"}
spec: {controllerName: gateway.envoyproxy.io/gatewayclass-controller}`, `
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: "{{ns}}-b"}
spec: {controllerName: example.com/other-controller}`}

var twoImplementations = []string{`
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw-a, namespace: "{{ns}}"}
spec:
  gatewayClassName: "{{ns}}-a"
  listeners: [{name: http, port: 80, protocol: HTTP}]`, `
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw-b, namespace: "{{ns}}"}
spec:
  gatewayClassName: "{{ns}}-b"
  listeners: [{name: http, port: 80, protocol: HTTP}]`, `
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: cart, namespace: "{{ns}}"}
spec:
  parentRefs: [{name: gw-a}, {name: gw-b}]
  rules: [{name: browse, backendRefs: [{name: cart, port: 8080}]}]`}

// TestTwoImplementations runs two Gateway API implementations in one cluster: Envoy Gateway's
// policies apply to the paths through the Gateways of its GatewayClass only. A SecurityPolicy on a
// route attached to Gateways of both has its effect predicted on the path through Envoy Gateway's
// Gateway alone (`precedent effective` against the cluster), and a SecurityPolicy targeting only
// the other implementation's Gateway is admitted with PRC-W170 naming that GatewayClass and its
// controller.
func TestTwoImplementations(t *testing.T) {
	c, rec := h.NewClient()
	ctx := context.Background()
	ns := harness.Namespace(t, c)
	manageEnvoyGateway(t, c)
	for _, d := range twoClasses { // cluster-scoped, named after the test's namespace
		gc := harness.Object(strings.ReplaceAll(d, "{{ns}}", ns))
		harness.Create(t, c, gc)
		t.Cleanup(func() { _ = c.Delete(ctx, gc) })
	}
	harness.Apply(t, c, ns, twoImplementations...)
	onB := strings.ReplaceAll(`
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: SecurityPolicy
metadata: {name: b-auth, namespace: "{{ns}}"}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw-b}]
  jwt:
    providers: [{name: corp, remoteJWKS: {uri: "https://login.example.com/.well-known/jwks.json"}}]`, "{{ns}}", ns)
	want := "PRC-W170 the policy reaches only Gateways of GatewayClass " + ns + "-b (controller example.com/other-controller), " +
		"and SecurityPolicy applies to Gateways of gateway.envoyproxy.io/gatewayclass-controller: it has no effect"

	t.Run("a policy on the other implementation's Gateway is warned", func(t *testing.T) {
		harness.Eventually(t, "the webhook warns with PRC-W170", func() (bool, string) {
			rec.Take()
			err := c.Create(ctx, harness.Object(onB), client.DryRunAll)
			ws := rec.Take()
			return err == nil && slices.Contains(ws, want), fmt.Sprint(err, ws)
		})
	})

	t.Run("a policy on the route is not warned", func(t *testing.T) {
		rec.Take()
		if err := c.Create(ctx, harness.Object(strings.ReplaceAll(routeExtAuth, "{{ns}}", ns))); err != nil {
			t.Fatal(err)
		}
		for _, w := range rec.Take() {
			if strings.HasPrefix(w, "PRC-W170") {
				t.Errorf("unexpected warning %q", w)
			}
		}
	})

	t.Run("effective predicts the route policy on the Envoy Gateway path only", func(t *testing.T) {
		bin, err := harness.BuildPrecedent(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		harness.Eventually(t, "precedent effective lists the route on gw-a only", func() (bool, string) {
			out, err := exec.Command(bin, "effective", "--kubeconfig", h.Kubeconfig, "--kind", "SecurityPolicy",
				"--target", "HTTPRoute/"+ns+"/cart", "-o", "json").Output()
			if err != nil {
				return false, fmt.Sprint(err, string(out))
			}
			var got struct {
				Items []struct {
					Gateway, Route string
				} `json:"items"`
			}
			if err := json.Unmarshal(out, &got); err != nil {
				return false, err.Error() + ": " + string(out)
			}
			var gws []string
			for _, it := range got.Items {
				gws = append(gws, it.Gateway+" "+it.Route)
			}
			return slices.Equal(gws, []string{ns + "/gw-a " + ns + "/cart"}), string(out)
		})
	})
}
