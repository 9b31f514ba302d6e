package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/precedent-dev/precedent/test/harness"
)

// viewsGatewayPolicy overrides the rule of viewsRoutePolicy on the route of orderTopology: reviewed
// as a write, either policy has something to say.
const viewsGatewayPolicy = `
apiVersion: policy.precedent.dev/v1alpha1
kind: AuthPolicy
metadata: {name: gw-policy}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: gw}
  overrides:
    strategy: merge
    rules:
      authorization:
        b: {opa: {rego: allow = false}}`

// viewsRoutePolicy is the route's policy with the rule authorization.b and the extra rule c when
// extra is set.
func viewsRoutePolicy(extra bool) string {
	doc := `
apiVersion: policy.precedent.dev/v1alpha1
kind: AuthPolicy
metadata: {name: route-policy}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: cart}
  rules:
    authorization:
      b: {opa: {rego: allow = true}}`
	if extra {
		doc += `
      c: {opa: {rego: allow = true}}`
	}
	return doc
}

// TestDiffOfObjectsAsStored: `diff -f` of objects identical to the cluster's says there is no
// change and has nothing to say about them; a changed object gets its own findings only.
func TestDiffOfObjectsAsStored(t *testing.T) {
	kc := "--kubeconfig=" + h.Kubeconfig
	ns := harness.Namespace(t, c)
	harness.Apply(t, c, ns, orderTopology, viewsGatewayPolicy, viewsRoutePolicy(false))
	cases := []struct {
		name  string
		docs  []string
		code  int
		want  []string // lines of stdout that must be there (NS: the namespace)
		never []string // texts that must not be anywhere
	}{
		{
			name:  "identical objects: no change, no findings",
			docs:  []string{orderTopology, viewsGatewayPolicy, viewsRoutePolicy(false)},
			want:  []string{"no change to the effective policies"},
			never: []string{"Warning:", "Note:", "AuthPolicy NS/"},
		},
		{
			name:  "one changed object: its findings only",
			docs:  []string{orderTopology, viewsGatewayPolicy, viewsRoutePolicy(true)},
			code:  1,
			want:  []string{"AuthPolicy NS/route-policy"},
			never: []string{"AuthPolicy NS/gw-policy:", "PRC-W000 AuthPolicy NS/gw-policy"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "change.yaml")
			if err := os.WriteFile(file, []byte(strings.Join(tc.docs, "\n---")), 0o600); err != nil {
				t.Fatal(err)
			}
			out, stderr, code := precedent(t, "diff", "-f", file, "--kind", "AuthPolicy", "-n", ns, kc)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\n%s%s", code, tc.code, out, stderr)
			}
			for _, w := range tc.want {
				if w = strings.ReplaceAll(w, "NS", ns); !strings.Contains(out, w) {
					t.Errorf("missing %q in:\n%s", w, out)
				}
			}
			for _, n := range tc.never {
				if n = strings.ReplaceAll(n, "NS", ns); strings.Contains(out+stderr, n) {
					t.Errorf("unexpected %q in:\n%s%s", n, out, stderr)
				}
			}
		})
	}
}
