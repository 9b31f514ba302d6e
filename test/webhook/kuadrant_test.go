package webhook_test

import (
	"context"
	"strings"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/precedent-dev/precedent/internal/settings"
	"github.com/precedent-dev/precedent/test/harness"
)

// kuadrantKinds is the one line per kind that manages Kuadrant's own kinds.
func kuadrantKinds() []interface{} {
	line := func(version, kind string) interface{} {
		return map[string]interface{}{"gvk": map[string]interface{}{"group": "kuadrant.io", "version": version, "kind": kind}, "profile": "kuadrant"}
	}
	return []interface{}{line("v1", "RateLimitPolicy"), line("v1", "AuthPolicy"), line("v1alpha1", "TokenRateLimitPolicy")}
}

// TestKuadrantKinds manages Kuadrant's kinds (same-shape CRDs, test/crds/kuadrant) with one line per
// kind and checks, through the API server, that the warnings of a write say what Kuadrant's operator
// will enforce, on a real write and on a server-side dry-run, and that Kuadrant's own CRD rules are
// the API server's.
func TestKuadrantKinds(t *testing.T) {
	c, rec := h.NewClient()
	ctx := context.Background()
	ns := harness.Namespace(t, c)
	harness.Apply(t, c, ns, topology)
	harness.InstallCRDFiles(t, c, "test/crds/kuadrant")
	t.Cleanup(func() {
		setConfig(t, c, map[string]interface{}{})
		if err := h.Env.RegisterWebhooks(ctx, c, settings.Defaults().Registry().Kinds()); err != nil {
			t.Errorf("registering the webhooks for the shipped kinds again: %v", err)
		}
	})
	setConfig(t, c, map[string]interface{}{"kinds": kuadrantKinds()})
	if err := h.Env.RegisterWebhooks(ctx, c, h.Live.Current().Registry().Kinds()); err != nil {
		t.Fatal(err)
	}
	harness.Apply(t, c, ns, `
apiVersion: kuadrant.io/v1
kind: RateLimitPolicy
metadata: {name: gw-limits}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: gw}
  overrides:
    strategy: merge
    limits: {global: {rates: [{limit: 100, window: 1m}]}}`)

	t.Run("a merge override of the Gateway replaces the route's limit of the same name", func(t *testing.T) {
		route := harness.ObjectIn(ns, `
apiVersion: kuadrant.io/v1
kind: RateLimitPolicy
metadata: {name: route-limits, namespace: "{{ns}}"}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: route}
  limits:
    global: {rates: [{limit: 5, window: 1m}]}
    per-user: {rates: [{limit: 2, window: 1m}]}`)
		harness.WarningsOf(t, c, rec, route, []string{
			"PRC-W002 rule global on route " + ns + "/route is overridden by RateLimitPolicy " + ns + "/gw-limits",
		})
	})

	t.Run("a merge override of response.success.headers merges header by header", func(t *testing.T) {
		harness.Apply(t, c, ns, `
apiVersion: kuadrant.io/v1
kind: AuthPolicy
metadata: {name: gw-auth}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: gw}
  overrides:
    strategy: merge
    rules:
      response: {success: {headers: {x-platform: {plain: {value: gw}}}}}`)
		route := harness.ObjectIn(ns, `
apiVersion: kuadrant.io/v1
kind: AuthPolicy
metadata: {name: route-auth, namespace: "{{ns}}"}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: route}
  rules:
    authentication: {anon: {anonymous: {}}}
    response: {success: {headers: {x-app: {plain: {value: route}}}}}`)
		// The route's own header is kept beside the Gateway's: no warning at all.
		harness.WarningsOf(t, c, rec, route, nil)
	})

	t.Run("the newer of two bare policies on one route wins, as Kuadrant enforces", func(t *testing.T) {
		// route-limits (above) is older and bare; a newer bare one replaces it whole on the route,
		// and is told whose limits it takes away: per-user (global is the Gateway's override's
		// before and after).
		newer := harness.ObjectIn(ns, `
apiVersion: kuadrant.io/v1
kind: RateLimitPolicy
metadata: {name: route-limits-2, namespace: "{{ns}}"}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: route}
  limits: {burst: {rates: [{limit: 1, window: 1s}]}}`)
		harness.WarningsOf(t, c, rec, newer, []string{
			"PRC-W010 replaces " + ns + "/route-limits's `per-user` on route " + ns + "/route (Kuadrant: the newer policy on one target wins)",
		})
		// Now a write of the older one is told that the newer replaces it.
		older := harness.ObjectIn(ns, `
apiVersion: kuadrant.io/v1
kind: RateLimitPolicy
metadata: {name: route-limits, namespace: "{{ns}}"}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: route}
  limits:
    global: {rates: [{limit: 6, window: 1m}]}`)
		// That is a note, which the webhook sends with notes switched on.
		setConfig(t, c, map[string]interface{}{"kinds": kuadrantKinds(), "notes": true})
		t.Cleanup(func() { setConfig(t, c, map[string]interface{}{"kinds": kuadrantKinds()}) })
		want := "PRC-N001 spec.limits of this policy are replaced by RateLimitPolicy " + ns + "/route-limits-2 on route " + ns + "/route"
		harness.Eventually(t, "an update of the older policy is told the newer one wins", func() (bool, string) {
			cur := older.DeepCopy()
			if err := c.Get(ctx, client.ObjectKeyFromObject(cur), cur); err != nil {
				return false, err.Error()
			}
			cur.Object["spec"] = older.Object["spec"]
			rec.Take()
			if err := c.Update(ctx, cur, client.DryRunAll); err != nil {
				return false, err.Error()
			}
			got := rec.Take()
			return len(got) == 1 && got[0] == want, strings.Join(got, "\n")
		})
	})

	t.Run("two bare policies on one route: the newer displaces the older's limits, and says so", func(t *testing.T) {
		ns := harness.Namespace(t, c) // a route of its own, without the Gateway policy above
		harness.Apply(t, c, ns, topology)
		harness.Apply(t, c, ns, `
apiVersion: kuadrant.io/v1
kind: RateLimitPolicy
metadata: {name: team-a}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: route}
  limits:
    per-user: {rates: [{limit: 2, window: 1m}]}
    global: {rates: [{limit: 100, window: 1m}]}`)
		teamB := harness.ObjectIn(ns, `
apiVersion: kuadrant.io/v1
kind: RateLimitPolicy
metadata: {name: team-b, namespace: "{{ns}}"}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: route}
  limits: {burst: {rates: [{limit: 1, window: 1s}]}}`)
		// The same warning on --dry-run=server and on the real write; the limits' values, which the
		// writer may not be allowed to read, are not in it.
		harness.WarningsOf(t, c, rec, teamB, []string{
			"PRC-W010 replaces " + ns + "/team-a's `global` and `per-user` on route " + ns + "/route (Kuadrant: the newer policy on one target wins)",
		})
		// Re-applying team-b changes nothing: nothing more is taken from team-a.
		cur := teamB.DeepCopy()
		if err := c.Get(ctx, client.ObjectKeyFromObject(cur), cur); err != nil {
			t.Fatal(err)
		}
		rec.Take()
		if err := c.Update(ctx, cur, client.DryRunAll); err != nil {
			t.Fatal(err)
		}
		if got := rec.Take(); len(got) != 0 {
			t.Errorf("an unchanged re-apply of team-b warns %q, want nothing", got)
		}
	})

	t.Run("Kuadrant's CRD rejects bare limits with defaults before the webhook", func(t *testing.T) {
		denied := harness.ObjectIn(ns, `
apiVersion: kuadrant.io/v1
kind: RateLimitPolicy
metadata: {name: mixed, namespace: "{{ns}}"}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: route}
  limits: {a: {rates: [{limit: 1, window: 1s}]}}
  defaults: {limits: {b: {rates: [{limit: 1, window: 1s}]}}}`)
		err := c.Create(ctx, denied, client.DryRunAll)
		if err == nil || !strings.Contains(err.Error(), "Implicit and explicit defaults are mutually exclusive") {
			t.Fatalf("want the CRD's rule to reject it, got %v", err)
		}
	})
}
