package webhook_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/settings"
	"github.com/precedent-dev/precedent/profiles/kgateway"
	"github.com/precedent-dev/precedent/test/egcrds"
	"github.com/precedent-dev/precedent/test/harness"
	"github.com/precedent-dev/precedent/webhook"
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

// TestKgatewayDelegation manages kgateway's TrafficPolicy (kgateway's own CRD, from the module cache)
// with the kgateway profile and checks through the API server that `kubectl apply --dry-run=server`
// of a child route's TrafficPolicy under a ShallowMergePreferParent parent route warns that its
// rateLimit is ignored, naming the parent (kgateway's GetMergeStrategy: OverridableShallowMerge),
// and that turning the parent's annotation to ShallowMergePreferChild warns what the child's route
// loses from the parent.
func TestKgatewayDelegation(t *testing.T) {
	c, _ := h.NewClient()
	ctx := context.Background()
	ns := harness.Namespace(t, c)
	crd, err := egcrds.KgatewayTrafficPolicyCRD()
	if err != nil {
		t.Fatal(err)
	}
	harness.InstallCRDPaths(t, c, crd)
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
	routeWriteWarns(t, ns, child)
	outageFailsOpen(t, c, ns)
}

// routeWriteWarns creates the child route's TrafficPolicy of file, then sends writes of the parent
// route through kubectl (HTTPRoute writes, through the entry that fails open): a dry-run that keeps
// its ShallowMergePreferParent annotation and adds a label says nothing; turning it to
// DeepMergePreferChild (not the mode a missing annotation reads as) warns that the child's own
// rateLimit now wins; applied, and turned back to ShallowMergePreferParent, it warns that the
// parent's overrides the child's again.
func routeWriteWarns(t *testing.T, ns, file string) {
	t.Helper()
	if _, stderr, err := kubectl(t, "apply", "-f", file); err != nil {
		t.Fatalf("creating the child's TrafficPolicy: %v: %s", err, stderr)
	}
	doc := strings.ReplaceAll(strings.Split(kgatewayDelegation, "\n---\n")[1], "{{ns}}", ns)
	if _, stderr, err := kubectl(t, "apply", "-f", writeFile(t, "root.yaml", doc)); err != nil { // kubectl's own annotation on it
		t.Fatalf("applying the parent route: %v: %s", err, stderr)
	}
	labelled := strings.Replace(doc, "  annotations:", "  labels: {team: platform}\n  annotations:", 1)
	deepChild := strings.Replace(doc, "ShallowMergePreferParent", "DeepMergePreferChild", 1)
	steps := []struct {
		name, doc string
		dryRun    bool
		want      []string
	}{
		{"an update that keeps the annotation says nothing", labelled, true, nil},
		{"a non-default mode that yields to the child", deepChild, false, []string{"Warning: PRC-W232 this annotation change takes `rateLimit` away from 1 child route"}},
		{"back to the parent's", doc, false, []string{"Warning: PRC-W233 this annotation change overrides `rateLimit` of 1 child route with the parent's"}},
	}
	for _, s := range steps {
		args := []string{"apply", "-f", writeFile(t, "root.yaml", s.doc)}
		if s.dryRun {
			args = append(args, "--dry-run=server")
		}
		harness.EventuallyWithin(t, 20*time.Second, "kubectl apply of the parent route: "+s.name, func() (bool, string) {
			_, stderr, err := kubectl(t, args...)
			var got []string
			for _, l := range warningLines(stderr) {
				if strings.HasPrefix(l, "Warning: PRC-") {
					got = append(got, l)
				}
			}
			return err == nil && cmp.Equal(s.want, got), "stderr: " + stderr + " err: " + harness.ErrString(err)
		})
	}
}

// writeFile writes doc to a file named name in a new temporary folder and returns its path.
func writeFile(t *testing.T, name, doc string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// outageFailsOpen registers, for namespace ns only, the entries of the config/kgateway component
// pointed at an address where nothing answers (Precedent down), and checks what the API server then
// does: a TrafficPolicy write is refused (its entry fails closed), an HTTPRoute or Gateway write goes
// through (their entry, warnings only, fails open).
func outageFailsOpen(t *testing.T, c client.Client, ns string) {
	t.Helper()
	ctx := context.Background()
	tp := policy.Kind{GVK: schema.GroupVersionKind{Group: "gateway.kgateway.dev", Version: "v1alpha1", Kind: "TrafficPolicy"}, Profile: kgateway.Name}
	ws, err := webhook.ComponentWebhooks("kgateway", kgateway.Profile{}, []policy.Kind{tp}, webhook.URLClientConfig("https://127.0.0.1:1", nil))
	if err != nil {
		t.Fatal(err)
	}
	for i := range ws {
		ws[i].NamespaceSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/metadata.name": ns}}
	}
	down := &admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "precedent-down-" + ns}, Webhooks: ws}
	if err := c.Create(ctx, down); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Delete(context.Background(), down) })
	write := func(doc string) error {
		u := &unstructured.Unstructured{}
		if err := yaml.Unmarshal([]byte(strings.ReplaceAll(doc, "{{ns}}", ns)), &u.Object); err != nil {
			t.Fatal(err)
		}
		return c.Create(ctx, u, client.DryRunAll)
	}
	harness.EventuallyWithin(t, 30*time.Second, "a TrafficPolicy write is refused while Precedent is down", func() (bool, string) {
		err := write(`
apiVersion: gateway.kgateway.dev/v1alpha1
kind: TrafficPolicy
metadata: {name: during-outage, namespace: "{{ns}}"}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: cart}]
  timeouts: {request: 5s}`)
		return err != nil && strings.Contains(err.Error(), "failed calling webhook"), harness.ErrString(err)
	})
	for _, doc := range []string{`
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: during-outage, namespace: "{{ns}}", annotations: {kgateway.dev/inherited-policy-priority: DeepMergePreferParent}}
spec:
  parentRefs: [{name: gw}]`, `
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: during-outage, namespace: "{{ns}}"}
spec:
  gatewayClassName: kgateway
  listeners: [{name: http, port: 80, protocol: HTTP}]`} {
		if err := write(doc); err != nil {
			t.Errorf("a route or Gateway write while Precedent is down: %v", err)
		}
	}
}
