package reconcile_test

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/precedent-dev/precedent/test/harness"
)

// TestDiffAgainstCluster runs `precedent diff -f` against the cluster: base is what the API server
// stores, head the cluster with the file applied. The file replaces b-policy (which must keep its
// stored creationTimestamp, so a-policy's bare rules still win), creates z-policy on the same route
// (created now, so not older than a-policy: its bare rules lose, where a zero creationTimestamp would make them win) and creates a
// Gateway override, the one change.
func TestDiffAgainstCluster(t *testing.T) {
	bin, err := harness.BuildPrecedent(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ns := harness.Namespace(t, c)
	harness.Apply(t, c, ns, gatewayAndRoute)
	harness.Apply(t, c, ns, `
apiVersion: policy.precedent.dev/v1alpha1
kind: AuthPolicy
metadata: {name: a-policy}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: route}
  rules:
    authorization:
      x: {opa: {rego: allow = true}}
`)
	harness.Apply(t, c, ns, `
apiVersion: policy.precedent.dev/v1alpha1
kind: AuthPolicy
metadata: {name: b-policy}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: route}
  rules:
    authorization:
      x: {opa: {rego: allow = false}}
`)
	file := filepath.Join(t.TempDir(), "change.yaml")
	if err := os.WriteFile(file, []byte(`
apiVersion: policy.precedent.dev/v1alpha1
kind: AuthPolicy
metadata: {name: b-policy}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: route}
  rules:
    authorization:
      x: {opa: {rego: allow = false}}
      y: {opa: {rego: allow = false}}
---
apiVersion: policy.precedent.dev/v1alpha1
kind: AuthPolicy
metadata: {name: z-policy}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: route}
  rules:
    authorization:
      x: {opa: {rego: allow = false}}
---
apiVersion: policy.precedent.dev/v1alpha1
kind: AuthPolicy
metadata: {name: gw-policy}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: gw}
  overrides:
    strategy: merge
    rules:
      authorization:
        z: {opa: {rego: allow = false}}
`), 0o600); err != nil {
		t.Fatal(err)
	}

	out, err := exec.Command(bin, "diff", "-f", file, "--kind", "AuthPolicy", "-o", "json", "--kubeconfig", h.Kubeconfig, "-n", ns).Output()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("precedent diff -f: %v (want exit 1: changes)\n%s%s", err, out, stderr(err))
	}
	var got struct {
		Changes []map[string]interface{} `json:"changes"`
		Errors  []string                 `json:"errors"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	want := []map[string]interface{}{{
		"kind": "AuthPolicy", "group": "policy.precedent.dev", "gateway": ns + "/gw", "listener": "", "route": ns + "/route", "rule": "", "ruleId": "authorization.z",
		"change": "added", "before": nil, "after": map[string]interface{}{"value": map[string]interface{}{"opa": map[string]interface{}{"rego": "allow = false"}}, "from": ns + "/gw-policy"},
	}}
	if d := cmp.Diff(want, got.Changes); d != "" {
		t.Errorf("changes (-want +got):\n%s", d)
	}
	if len(got.Errors) != 0 {
		t.Errorf("errors: %v", got.Errors)
	}

	// The cluster is untouched: nothing was written.
	out, err = exec.Command(bin, "diff", "-f", file, "--kind", "AuthPolicy", "-o", "table", "--kubeconfig", h.Kubeconfig, "-n", ns).Output()
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("second run: %v\n%s", err, out)
	}
}
