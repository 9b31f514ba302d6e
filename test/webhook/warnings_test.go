package webhook_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/precedent-dev/precedent/test/harness"
)

const gatewayOverride = `
apiVersion: policy.precedent.dev/v1alpha1
kind: AuthPolicy
metadata: {name: gw-policy, namespace: "{{ns}}"}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: gw}
  overrides: {strategy: merge, rules: {authorization: {b: {opa: {rego: allow = true}}}}}`

const routePolicy = `
apiVersion: policy.precedent.dev/v1alpha1
kind: AuthPolicy
metadata: {name: route-policy, namespace: "{{ns}}"}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: route}
  rules: {authorization: {b: {opa: {rego: allow = false}}, c: {opa: {rego: allow = false}}}}`

// warningsOf runs write with a server-side dry-run until its warnings equal want (the webhook's cache
// follows the test's objects), then for real, and asserts the same warnings both times.
func warningsOf(t *testing.T, rec *harness.Recorder, want []string, write func(dry bool) error) {
	t.Helper()
	rec.Take()
	harness.EventuallyWithin(t, 10*time.Second, "the dry-run warns as expected", func() (bool, string) {
		err := write(true)
		got := rec.Take()
		if err != nil {
			return false, "dry-run rejected: " + err.Error()
		}
		if diff := cmp.Diff(want, got); diff != "" {
			return false, "dry-run warnings (-want +got):\n" + diff
		}
		return true, ""
	})
	if err := write(false); err != nil {
		t.Fatalf("write rejected: %v", err)
	}
	if diff := cmp.Diff(want, rec.Take()); diff != "" {
		t.Fatalf("warnings (-want +got):\n%s", diff)
	}
}

// rewrite returns a write for warningsOf: read the stored obj, edit it, update it (dry-run or not).
func rewrite(ctx context.Context, c client.Client, obj *unstructured.Unstructured, edit func(u *unstructured.Unstructured)) func(dry bool) error {
	return func(dry bool) error {
		cur := &unstructured.Unstructured{}
		cur.SetGroupVersionKind(obj.GroupVersionKind())
		if err := c.Get(ctx, client.ObjectKeyFromObject(obj), cur); err != nil {
			return err
		}
		edit(cur)
		if dry {
			return c.Update(ctx, cur, client.DryRunAll)
		}
		return c.Update(ctx, cur)
	}
}

func TestWarnings(t *testing.T) {
	c, rec := h.NewClient()
	ctx := context.Background()
	ns := harness.Namespace(t, c)
	harness.Apply(t, c, ns, topology)
	harness.Create(t, c, harness.ObjectIn(ns, gatewayOverride))

	route := harness.ObjectIn(ns, routePolicy)
	t.Run("create", func(t *testing.T) {
		warningsOf(t, rec, []string{
			"PRC-W002 rule authorization.b on route " + ns + "/route is overridden by AuthPolicy " + ns + "/gw-policy",
		}, func(dry bool) error {
			o := route.DeepCopy()
			if dry {
				return c.Create(ctx, o, client.DryRunAll)
			}
			return c.Create(ctx, o)
		})
		// the dry-runs persisted nothing before the real create: the real create succeeded
	})

	t.Run("update", func(t *testing.T) {
		warningsOf(t, rec, []string{
			"PRC-W002 rule authorization.b on route " + ns + "/route is overridden by AuthPolicy " + ns + "/gw-policy",
		}, rewrite(ctx, c, route, func(u *unstructured.Unstructured) {
			_ = unstructured.SetNestedField(u.Object, map[string]interface{}{"opa": map[string]interface{}{"rego": "allow = true"}}, "spec", "rules", "authorization", "d")
		}))
	})

	t.Run("delete of the Gateway policy", func(t *testing.T) {
		// How many routes the delete changes is a note, which the webhook sends when the
		// PrecedentConfig asks; what takes the place of the override in effect is a warning.
		setConfig(t, c, map[string]interface{}{"notes": true})
		t.Cleanup(func() { setConfig(t, c, map[string]interface{}{}) })
		gw := harness.ObjectIn(ns, gatewayOverride)
		warningsOf(t, rec, []string{
			"PRC-N003 removing this policy changes the effective AuthPolicy of 1 route",
			"PRC-W026 removing this policy puts AuthPolicy " + ns + "/route-policy's `authorization.b` in effect instead on 1 route",
		}, func(dry bool) error {
			if dry {
				return c.Delete(ctx, gw.DeepCopy(), client.DryRunAll)
			}
			return c.Delete(ctx, gw.DeepCopy())
		})
		harness.EventuallyWithin(t, 10*time.Second, "the gateway policy is gone", func() (bool, string) {
			err := c.Get(ctx, client.ObjectKeyFromObject(gw), gw.DeepCopy())
			return apierrors.IsNotFound(err), "get after delete: " + harness.ErrString(err)
		})
	})
}

const gatewayLimits = `
apiVersion: policy.precedent.dev/v1alpha1
kind: RateLimitPolicy
metadata: {name: gw-limits, namespace: "{{ns}}"}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: gw}
  defaults: {strategy: merge, limits: {global: {rates: [{limit: 1000, window: 1m}]}}}`

// TestRewriteWithoutChange: re-writing a Gateway policy whose rules did not change (a label added,
// as a GitOps re-apply does) projects no change, and changing a number does. The rules hold numbers,
// which the webhook must read as the cache holds them (int64) to see that they are the same. The
// projected change is a note, which the webhook sends with notes switched on.
func TestRewriteWithoutChange(t *testing.T) {
	c, rec := h.NewClient()
	setConfig(t, c, map[string]interface{}{"notes": true})
	t.Cleanup(func() { setConfig(t, c, map[string]interface{}{}) })
	ctx := context.Background()
	ns := harness.Namespace(t, c)
	harness.Apply(t, c, ns, topology)
	gw := harness.ObjectIn(ns, gatewayLimits)
	harness.Create(t, c, gw)
	t.Run("a label", func(t *testing.T) {
		warningsOf(t, rec, nil, rewrite(ctx, c, gw, func(u *unstructured.Unstructured) {
			u.SetLabels(map[string]string{"team": "platform"})
		}))
	})
	t.Run("a limit", func(t *testing.T) {
		warningsOf(t, rec, []string{"PRC-N003 this write changes the effective RateLimitPolicy of 1 route"}, rewrite(ctx, c, gw, func(u *unstructured.Unstructured) {
			_ = unstructured.SetNestedSlice(u.Object, []interface{}{map[string]interface{}{"limit": int64(500), "window": "1m"}}, "spec", "defaults", "limits", "global", "rates")
		}))
	})
}

func TestDryRunPersistsNothing(t *testing.T) {
	c, rec := h.NewClient()
	ctx := context.Background()
	ns := harness.Namespace(t, c)
	harness.Apply(t, c, ns, topology)
	harness.Create(t, c, harness.ObjectIn(ns, gatewayOverride))
	want := []string{"PRC-W002 rule authorization.b on route " + ns + "/route is overridden by AuthPolicy " + ns + "/gw-policy"}
	harness.EventuallyWithin(t, 10*time.Second, "the dry-run warns of the override", func() (bool, string) {
		err := c.Create(ctx, harness.ObjectIn(ns, routePolicy), client.DryRunAll)
		got := rec.Take()
		return err == nil && cmp.Equal(want, got), "dry-run: " + harness.ErrString(err) + ", warnings: " + strings.Join(got, " | ")
	})
	list := &unstructured.UnstructuredList{}
	list.SetAPIVersion("policy.precedent.dev/v1alpha1")
	list.SetKind("AuthPolicyList")
	if err := c.List(ctx, list, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range list.Items {
		names = append(names, p.GetName())
	}
	if diff := cmp.Diff([]string{"gw-policy"}, names); diff != "" {
		t.Errorf("policies after dry-runs (-want +got):\n%s", diff)
	}
	// A dry-run delete warns like a real one and leaves the policy in place.
	gw := harness.ObjectIn(ns, gatewayOverride)
	if err := c.Delete(ctx, gw.DeepCopy(), client.DryRunAll); err != nil {
		t.Fatal(err)
	}
	rec.Take()
	if err := c.Get(ctx, client.ObjectKeyFromObject(gw), gw.DeepCopy()); err != nil {
		t.Errorf("policy gone after a dry-run delete: %v", err)
	}
}

// kubectl runs kubectl against the test API server and returns its exit error, stdout and stderr.
func kubectl(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	cmd := exec.Command("kubectl", append([]string{"--kubeconfig", h.Kubeconfig}, args...)...)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	return out.String(), errb.String(), err
}

func warningLines(stderr string) []string {
	var out []string
	for _, l := range strings.Split(stderr, "\n") {
		if strings.HasPrefix(l, "Warning: ") {
			out = append(out, l)
		}
	}
	return out
}

func TestKubectl(t *testing.T) {
	if _, err := exec.LookPath("kubectl"); err != nil {
		t.Fatalf("kubectl is needed for this test (it is part of the toolchain): %v", err)
	}
	c, _ := h.NewClient()
	ns := harness.Namespace(t, c)
	harness.Apply(t, c, ns, topology)
	harness.Create(t, c, harness.ObjectIn(ns, gatewayOverride))
	dir := t.TempDir()
	file := func(name, doc string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(strings.ReplaceAll(doc, "{{ns}}", ns)), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	warned := file("route.yaml", routePolicy)
	want := []string{"Warning: PRC-W002 rule authorization.b on route " + ns + "/route is overridden by AuthPolicy " + ns + "/gw-policy"}

	t.Run("apply --dry-run=server", func(t *testing.T) {
		var stdout, stderr string
		harness.EventuallyWithin(t, 10*time.Second, "kubectl shows the override warning", func() (bool, string) {
			var err error
			stdout, stderr, err = kubectl(t, "apply", "--dry-run=server", "-f", warned)
			return err == nil && cmp.Equal(want, warningLines(stderr)), "stderr: " + stderr + " err: " + harness.ErrString(err)
		})
		if !strings.Contains(stdout, "authpolicy.policy.precedent.dev/route-policy created (server dry run)") {
			t.Errorf("stdout: %s", stdout)
		}
	})
	t.Run("apply", func(t *testing.T) {
		stdout, stderr, err := kubectl(t, "apply", "-f", warned)
		if err != nil {
			t.Fatalf("%v: %s", err, stderr)
		}
		if diff := cmp.Diff(want, warningLines(stderr)); diff != "" {
			t.Errorf("Warning: lines (-want +got):\n%s", diff)
		}
		if !strings.Contains(stdout, "authpolicy.policy.precedent.dev/route-policy created") {
			t.Errorf("stdout: %s", stdout)
		}
	})
	t.Run("apply rejected", func(t *testing.T) {
		rejected := file("unset.yaml", `
apiVersion: policy.precedent.dev/v1alpha1
kind: AuthPolicy
metadata: {name: unset-policy, namespace: "{{ns}}"}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: route}
  unset: [authorization.b]`)
		for _, args := range [][]string{{"apply", "--dry-run=server", "-f", rejected}, {"apply", "-f", rejected}} {
			_, stderr, err := kubectl(t, args...)
			if err == nil {
				t.Fatalf("kubectl %v admitted the policy", args)
			}
			wantErr := `The AuthPolicy "unset-policy" is invalid: spec.unset[0]: Forbidden: PRC-E023 rule authorization.b is set by the overrides of AuthPolicy ` + ns + `/gw-policy and cannot be unset: remove it from spec.unset`
			if !strings.Contains(stderr, wantErr) {
				t.Errorf("kubectl %v stderr:\n%s\nwant a line:\n%s", args, stderr, wantErr)
			}
		}
	})
}

// TestUnsetDisplacesGatewayDefault: a route policy whose unset removes a Gateway default is told,
// on --dry-run=server and on the real write, that it unsets that policy's rule there (not that it
// overrides it), naming the rule id and not its value.
func TestUnsetDisplacesGatewayDefault(t *testing.T) {
	c, rec := h.NewClient()
	ns := harness.Namespace(t, c)
	harness.Apply(t, c, ns, topology)
	harness.Apply(t, c, ns, `
apiVersion: policy.precedent.dev/v1alpha1
kind: AuthPolicy
metadata: {name: gw-defaults}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: gw}
  defaults: {strategy: merge, rules: {authentication: {a: {apiKey: {}}}}}`)
	route := harness.ObjectIn(ns, `
apiVersion: policy.precedent.dev/v1alpha1
kind: AuthPolicy
metadata: {name: no-api-key, namespace: "{{ns}}"}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: route}
  rules: {authorization: {c: {opa: {rego: allow = true}}}}
  unset: [authentication.a]`)
	harness.WarningsOf(t, c, rec, route, []string{
		"PRC-W010 unsets " + ns + "/gw-defaults's `authentication.a` on route " + ns + "/route (defaults-overrides: a more specific policy's unset removes a default)",
	})
}
