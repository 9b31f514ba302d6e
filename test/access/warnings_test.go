package access_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/precedent-dev/precedent/test/harness"
)

// topology is a Gateway gw, an HTTPRoute route on it sending traffic to the XBackend shop, and shop.
const topology = `
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: "{{ns}}"}
spec:
  gatewayClassName: example
  listeners: [{name: http, port: 80, protocol: HTTP}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: route, namespace: "{{ns}}"}
spec:
  parentRefs: [{name: gw}]
  rules: [{backendRefs: [{group: agentic.prototype.x-k8s.io, kind: XBackend, name: shop}]}]
---
apiVersion: agentic.prototype.x-k8s.io/v0alpha0
kind: XBackend
metadata: {name: shop, namespace: "{{ns}}"}
spec: {}`

// grant is a policy of kind in {{ns}} on target (gw or shop) letting sa agent call tools.
func grant(kind, name, target string, tools ...string) string {
	apiVersion := "policy.precedent.dev/v1alpha1"
	if kind == "XAccessPolicy" {
		apiVersion = "agentic.prototype.x-k8s.io/v0alpha0"
	}
	ref := "{group: gateway.networking.k8s.io, kind: Gateway, name: gw}"
	if target == "shop" {
		ref = "{group: agentic.prototype.x-k8s.io, kind: XBackend, name: shop}"
	}
	return fmt.Sprintf(`
apiVersion: %s
kind: %s
metadata: {name: %s, namespace: "{{ns}}"}
spec:
  targetRefs: [%s]
  rules: [{name: agent, source: {type: ServiceAccount, serviceAccount: {name: agent}}, authorization: {type: InlineTools, tools: %s}}]`,
		apiVersion, kind, name, ref, quoted(tools))
}

// quoted renders a list of tool names in YAML flow style, quoted (YAML reads a bare y as true).
func quoted(tools []string) string {
	q := make([]string, len(tools))
	for i, t := range tools {
		q[i] = fmt.Sprintf("%q", t)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// unreachable is the projection warning for tool of sa {{ns}}/agent granted by backend-pol.
func unreachable(ns, tool, reason string) string {
	return fmt.Sprintf("PRC-W013 tool `%s` granted to sa %s/agent by %s/backend-pol is denied at gateway %s/gw: %s", tool, ns, ns, ns, reason)
}

func TestGatewayWriteWarnsOfUnreachableBackendGrants(t *testing.T) {
	c, rec := h.NewClient()
	ns := harness.Namespace(t, c)
	harness.Apply(t, c, ns, topology)
	harness.Apply(t, c, ns, grant("AccessPolicy", "backend-pol", "shop", "x", "y"))
	gw := harness.ObjectIn(ns, grant("AccessPolicy", "gw-pol", "gw", "x"))
	harness.WarningsOf(t, c, rec, gw, []string{unreachable(ns, "y", "no gateway rule allows it")})

	// Re-applying it makes nothing newly unreachable: no warning.
	cur := &unstructured.Unstructured{}
	cur.SetGroupVersionKind(gw.GroupVersionKind())
	if err := c.Get(context.Background(), client.ObjectKeyFromObject(gw), cur); err != nil {
		t.Fatal(err)
	}
	if err := c.Update(context.Background(), cur); err != nil {
		t.Fatalf("update rejected: %v", err)
	}
	if ws := rec.Take(); len(ws) != 0 {
		t.Errorf("unchanged update warned: %q", ws)
	}
}

func TestBackendWriteWarnsOfGrantsTheGatewayDenies(t *testing.T) {
	c, rec := h.NewClient()
	ns := harness.Namespace(t, c)
	harness.Apply(t, c, ns, topology)
	harness.Apply(t, c, ns, grant("AccessPolicy", "gw-pol", "gw", "x"))
	harness.WarningsOf(t, c, rec, harness.ObjectIn(ns, grant("AccessPolicy", "backend-pol", "shop", "x", "y")),
		[]string{unreachable(ns, "y", "no gateway rule allows it")})
}

func TestTargetNotFound(t *testing.T) {
	c, rec := h.NewClient()
	ns := harness.Namespace(t, c)
	harness.WarningsOf(t, c, rec, harness.ObjectIn(ns, grant("AccessPolicy", "gw-pol", "gw", "x")),
		[]string{fmt.Sprintf("PRC-W011 spec.targetRefs[0]: target Gateway %s/gw not found: the policy has no effect until it exists", ns)})
	harness.WarningsOf(t, c, rec, harness.ObjectIn(ns, grant("AccessPolicy", "backend-pol", "shop", "x")),
		[]string{fmt.Sprintf("PRC-W011 spec.targetRefs[0]: target XBackend %s/shop not found: the policy has no effect until it exists", ns)})
}

// TestWarningLimit: six unreachable grants under warningLimit 3 come back as two and a count.
func TestWarningLimit(t *testing.T) {
	c, rec := h.NewClient()
	ns := harness.Namespace(t, c)
	t.Cleanup(func() { h.SetConfig(t, c, map[string]interface{}{}) })
	h.SetConfig(t, c, map[string]interface{}{"warningLimit": int64(3)})
	harness.Apply(t, c, ns, topology)
	harness.Apply(t, c, ns, grant("AccessPolicy", "backend-pol", "shop", "t1", "t2", "t3", "t4", "t5", "t6"))
	harness.WarningsOf(t, c, rec, harness.ObjectIn(ns, grant("AccessPolicy", "gw-pol", "gw")), []string{
		unreachable(ns, "t1", "no gateway rule allows it"),
		unreachable(ns, "t2", "no gateway rule allows it"),
		"PRC-W013 and 4 more unreachable grants",
	})
}

// TestCombineSwitch flips access.combine: under anyAllow gw-a's allow of y suffices; under allAllow
// gw-b, which lists only x, denies y.
func TestCombineSwitch(t *testing.T) {
	c, rec := h.NewClient()
	ns := harness.Namespace(t, c)
	t.Cleanup(func() { h.SetConfig(t, c, map[string]interface{}{}) })
	harness.Apply(t, c, ns, topology)
	harness.Apply(t, c, ns, grant("AccessPolicy", "gw-a", "gw", "x", "y")+"\n---\n"+grant("AccessPolicy", "gw-b", "gw", "x"))
	backend := harness.ObjectIn(ns, grant("AccessPolicy", "backend-pol", "shop", "y"))
	combine := func(mode string) {
		h.SetConfig(t, c, map[string]interface{}{"access": map[string]interface{}{"combine": mode}})
	}

	combine("allAllow")
	harness.DryRunWarnings(t, c, rec, backend, []string{unreachable(ns, "y", "gateway policy "+ns+"/gw-b does not allow it")})
	combine("anyAllow")
	harness.DryRunWarnings(t, c, rec, backend, nil)
	combine("allAllow")
	harness.WarningsOf(t, c, rec, backend, []string{unreachable(ns, "y", "gateway policy "+ns+"/gw-b does not allow it")})
}

// TestDeleteWarnsOfWhatItRevokesOrOpens: deleting an AccessPolicy (dry run, then for real) warns
// of the grants no rule left allows, and of a level left without allow rules, which lets every
// source through.
func TestDeleteWarnsOfWhatItRevokesOrOpens(t *testing.T) {
	ctx := context.Background()
	c, rec := h.NewClient()
	ns := harness.Namespace(t, c)
	harness.Apply(t, c, ns, topology)
	harness.Apply(t, c, ns, grant("AccessPolicy", "backend-pol", "shop", "x", "y"), grant("AccessPolicy", "also", "shop", "x"),
		grant("AccessPolicy", "gw-pol", "gw", "x", "y"))
	deleteWarns := func(name string, want []string) {
		t.Helper()
		obj := harness.ObjectIn(ns, grant("AccessPolicy", name, "shop"))
		rec.Take()
		harness.EventuallyWithin(t, 10*time.Second, "the dry-run delete of "+name+" warns as expected", func() (bool, string) {
			if err := c.Delete(ctx, obj.DeepCopy(), client.DryRunAll); err != nil {
				return false, err.Error()
			}
			got := rec.Take()
			return cmp.Equal(want, got), fmt.Sprintf("warnings %q", got)
		})
		if err := c.Delete(ctx, obj.DeepCopy()); err != nil {
			t.Fatalf("delete of %s: %v", name, err)
		}
		if diff := cmp.Diff(want, rec.Take()); diff != "" {
			t.Errorf("warnings of deleting %s (-want +got):\n%s", name, diff)
		}
	}
	deleteWarns("backend-pol", []string{"PRC-W013 tool `y` granted to sa " + ns + "/agent by " + ns + "/backend-pol is no longer granted at backend " + ns + "/shop: no backend rule allows it"})
	deleteWarns("also", []string{"PRC-W012 removing this policy leaves backend " + ns + "/shop without allow rules: every source that passes the gateways in front of it may call every tool"})
	deleteWarns("gw-pol", []string{"PRC-W012 removing this policy leaves gateway " + ns + "/gw without allow rules: every source may call every tool of the 1 backend behind it"})
}
