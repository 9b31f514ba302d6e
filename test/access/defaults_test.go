package access_test

import (
	"context"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/precedent-dev/precedent/test/harness"
)

// TestServiceAccountNamespaceDefaulted: the mutating webhook fills in the namespace of a
// ServiceAccount source that has none (the policy's own), on dry-run and for real; a source with a
// namespace is left as written.
func TestServiceAccountNamespaceDefaulted(t *testing.T) {
	c, _ := h.NewClient()
	ns := harness.Namespace(t, c)
	doc := `
apiVersion: policy.precedent.dev/v1alpha1
kind: AccessPolicy
metadata: {name: sa-default, namespace: "{{ns}}"}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw}]
  rules:
  - {name: mine, source: {type: ServiceAccount, serviceAccount: {name: agent}}}
  - {name: theirs, source: {type: ServiceAccount, serviceAccount: {name: agent, namespace: other}}}
`
	for _, dryRun := range []bool{true, false} {
		u := harness.ObjectIn(ns, doc)
		var opts []client.CreateOption
		if dryRun {
			opts = append(opts, client.DryRunAll)
		}
		if err := c.Create(context.Background(), u, opts...); err != nil {
			t.Fatalf("create (dry-run %t): %v", dryRun, err)
		}
		rules, _, _ := unstructured.NestedSlice(u.Object, "spec", "rules")
		got := []string{}
		for _, r := range rules {
			n, _, _ := unstructured.NestedString(r.(map[string]interface{}), "source", "serviceAccount", "namespace")
			got = append(got, n)
		}
		if len(got) != 2 || got[0] != ns || got[1] != "other" {
			t.Errorf("dry-run %t: serviceAccount namespaces = %v, want [%s other]", dryRun, got, ns)
		}
	}
}
