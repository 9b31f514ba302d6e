package kuma_test

import (
	"context"
	"testing"

	"strings"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/precedent-dev/precedent/internal/settings"
	"github.com/precedent-dev/precedent/test/harness"
)

// manageKuma manages the kuma.io kinds with the mesh profile for the test, and the shipped kinds again
// after it.
func manageKuma(t *testing.T, c client.Client) {
	t.Helper()
	ctx := context.Background()
	t.Cleanup(func() {
		h.SetConfig(t, c, map[string]interface{}{})
		if err := h.Env.RegisterWebhooks(ctx, c, settings.Defaults().Registry().Kinds()); err != nil {
			t.Errorf("registering the webhooks for the shipped kinds again: %v", err)
		}
	})
	h.SetConfig(t, c, map[string]interface{}{"kinds": kumaKinds})
	if err := h.Env.RegisterWebhooks(ctx, c, h.Live.Current().Registry().Kinds()); err != nil {
		t.Fatal(err)
	}
}

// TestKumaRules writes Kuma's rules shape (the v2.14 test CRDs of test/crds/kuma hold both from and
// rules) to a real API server and asserts the warnings the client sees: an allow that a deny of
// another policy covers (Kuma matches every deny first), a deny written over an existing allow, from
// items that rules replace on every proxy, the from deprecation with its rules form, and a MeshTimeout
// rule whose fields a winning policy sets. The rules survive the API server as written.
func TestKumaRules(t *testing.T) {
	c, rec := h.NewClient()
	ctx := context.Background()
	ns := harness.Namespace(t, c)
	manageKuma(t, c)
	harness.Apply(t, c, ns, `
apiVersion: kuma.io/v1alpha1
kind: Dataplane
metadata: {name: backend-1, namespace: "{{ns}}", labels: {app: backend}}
mesh: default
spec:
  networking:
    address: 127.0.0.20
    inbound: [{port: 8080, tags: {kuma.io/service: backend}}]`)
	pol := func(doc string) *unstructured.Unstructured { return harness.ObjectIn(ns, doc) }

	deny := pol(`
apiVersion: kuma.io/v1alpha1
kind: MeshTrafficPermission
metadata: {name: deny-malicious, namespace: "{{ns}}", labels: {kuma.io/mesh: default}}
spec:
  targetRef: {kind: Dataplane, labels: {app: backend}}
  rules:
  - default:
      deny: [{spiffeID: {type: Prefix, value: "spiffe://default.zone-1.mesh.local/ns/malicious"}}]`)
	shadowAllow := pol(`
apiVersion: kuma.io/v1alpha1
kind: MeshTrafficPermission
metadata: {name: shadow-malicious, namespace: "{{ns}}", labels: {kuma.io/mesh: default}}
spec:
  rules:
  - default:
      allowWithShadowDeny: [{spiffeID: {type: Prefix, value: "spiffe://default.zone-1.mesh.local/ns/malicious/sa"}}]`)
	t.Run("a deny written over an existing allow names the allow it makes void", func(t *testing.T) {
		if err := c.Create(ctx, shadowAllow); err != nil {
			t.Fatal(err)
		}
		harness.WarningsOf(t, c, rec, deny, []string{
			"PRC-W014 MeshTrafficPermission " + ns + "/shadow-malicious: spec.rules[0].default.allowWithShadowDeny[0] never takes effect on any Dataplane: spec.rules[0].default.deny[0] of " + ns + "/deny-malicious denies all it matches, and Kuma matches de...", // cut at 240 bytes (validate.Limit)
		})
	})
	t.Run("the rules survive the API server as written", func(t *testing.T) {
		got := deny.DeepCopy()
		if err := c.Get(ctx, client.ObjectKeyFromObject(got), got); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(deny.Object["spec"], got.Object["spec"]); diff != "" {
			t.Errorf("spec (-written +stored):\n%s", diff)
		}
	})
	t.Run("an allow inside the deny never takes effect", func(t *testing.T) {
		harness.DryRunWarnings(t, c, rec, pol(`
apiVersion: kuma.io/v1alpha1
kind: MeshTrafficPermission
metadata: {name: allow-batch, namespace: "{{ns}}", labels: {kuma.io/mesh: default}}
spec:
  rules:
  - default:
      allow:
      - spiffeID: {type: Exact, value: "spiffe://default.zone-1.mesh.local/ns/malicious/sa/batch"}
      - spiffeID: {type: Prefix, value: "spiffe://default.zone-1.mesh.local/ns/web"}`), []string{
			"PRC-W014 MeshTrafficPermission " + ns + "/allow-batch: spec.rules[0].default.allow[0] never takes effect on any Dataplane: spec.rules[0].default.deny[0] of " + ns + "/deny-malicious denies all it matches, and Kuma matches deny first",
		})
	})
	t.Run("from items: deprecated, and replaced by the rules on every proxy on Kuma 2.14 only", func(t *testing.T) {
		// The same write, reviewed as the kind line's version says: on 2.14 the rules of an inbound
		// leave every from item out there (plugin.go at v2.14.3); on 3.0, the default, rules and from
		// items are merged (#18774), so the from items still apply.
		legacy := pol(`
apiVersion: kuma.io/v1alpha1
kind: MeshTrafficPermission
metadata: {name: legacy, namespace: "{{ns}}", labels: {kuma.io/mesh: default}}
spec:
  from: [{targetRef: {kind: Mesh}, default: {action: Allow}}]`)
		deprecated := []string{
			"PRC-W015 MeshTrafficPermission " + ns + "/legacy: spec.from is deprecated by Kuma 2.x and dropped silently by Kuma 3.0 on create and update: use spec.rules",
			"PRC-W015 MeshTrafficPermission " + ns + `/legacy: spec.from[0] as spec.rules[0]: {"default":{"allow":[{"spiffeID":{"type":"Prefix","value":"spiffe://<trust-domain>"}}]}}`,
		}
		for _, v := range []struct {
			version string
			want    []string
		}{
			{"2.14", append(append([]string(nil), deprecated...),
				"PRC-W014 MeshTrafficPermission "+ns+"/legacy never takes effect on any Dataplane: the spec.rules of "+ns+"/deny-malicious, "+ns+"/shadow-malicious replace its from items wherever it applies")},
			{"3.0", deprecated},
			{"", deprecated}, // no version: the newest, 3.0
		} {
			h.SetConfig(t, c, map[string]interface{}{"kinds": kumaKindsAt(v.version)})
			harness.DryRunWarnings(t, c, rec, legacy, v.want)
		}
	})
	t.Run("a MeshTimeout rule whose fields a winning policy sets, and a match without a spiffeID", func(t *testing.T) {
		if err := c.Create(ctx, pol(`
apiVersion: kuma.io/v1alpha1
kind: MeshTimeout
metadata: {name: a-inbound, namespace: "{{ns}}", labels: {kuma.io/mesh: default}}
spec:
  rules:
  - default: {idleTimeout: 1h, http: {requestTimeout: 5s}}`)); err != nil {
			t.Fatal(err)
		}
		harness.DryRunWarnings(t, c, rec, pol(`
apiVersion: kuma.io/v1alpha1
kind: MeshTimeout
metadata: {name: b-inbound, namespace: "{{ns}}", labels: {kuma.io/mesh: default}}
spec:
  rules:
  - default: {idleTimeout: 2h}
  - matches: [{sni: {type: Exact, value: backend.svc}}]
    default: {http: {requestTimeout: 1s}}`), []string{
			"PRC-W016 MeshTimeout " + ns + "/b-inbound: spec.rules[1].matches[0] never takes effect: Kuma applies a rule only to matches with a spiffeID",
			"PRC-W014 MeshTimeout " + ns + "/b-inbound never takes effect on any Dataplane: every field it sets is decided by " + ns + "/a-inbound",
		})
	})
	t.Run("a rules item Kuma rejects is rejected with its path", func(t *testing.T) {
		err := c.Create(ctx, pol(`
apiVersion: kuma.io/v1alpha1
kind: MeshTimeout
metadata: {name: bad-inbound, namespace: "{{ns}}", labels: {kuma.io/mesh: default}}
spec:
  rules:
  - matches: [{spiffeID: {type: Exact, value: "spiffe://default.zone-1.mesh.local/ns/a/sa/b"}}]
    default: {connectionTimeout: 1s, http: {requestTimeout: 1s}}`))
		want := "spec.rules[0].default.connectionTimeout: Forbidden: PRC-E031 must not be set when matches contain a spiffeID"
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("create: %v, want an error with %q", err, want)
		}
	})
}
