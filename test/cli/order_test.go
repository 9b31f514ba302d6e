package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/precedent-dev/precedent/test/harness"
)

const orderTopology = `
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw}
spec:
  gatewayClassName: example
  listeners:
  - {name: http, port: 80, protocol: HTTP}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: cart}
spec:
  parentRefs: [{name: gw}]
  rules: [{name: main, backendRefs: [{name: cart, port: 80}]}]`

// orderPolicy is a route-level RateLimitPolicy of apiVersion named name with one limit.
func orderPolicy(apiVersion, ns, name, limit string) string {
	return `
apiVersion: ` + apiVersion + `
kind: RateLimitPolicy
metadata: {name: ` + name + `, namespace: ` + ns + `}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: cart}
  limits: {per-user: {rates: [{limit: ` + limit + `, window: 1m}]}}`
}

// TestOrderOfCreationAgainstTheCluster: zz-team is stored in the cluster (with its real
// creationTimestamp), aa-team is new in diff -f's change set, hence newer, although its name sorts
// first. Precedent's own RateLimitPolicy is oldest-wins: the cluster's zz-team keeps the limit.
// Kuadrant's is newer-wins: the new aa-team takes it. Neither answer depends on an unknown order;
// two new policies in the change set do.
func TestOrderOfCreationAgainstTheCluster(t *testing.T) {
	kc := "--kubeconfig=" + h.Kubeconfig
	cases := []struct {
		name       string
		apiVersion string
		args       []string
		// stored is in the cluster; files are new in the change set.
		stored, files []string
		want          []string // warnings (with their namespace as NS)
		unknown       bool     // a PRC-W100 line is expected
	}{
		{
			name:       "oldest wins: the cluster's policy keeps the limit",
			apiVersion: "policy.precedent.dev/v1alpha1",
			stored:     []string{"zz-team"},
			files:      []string{"aa-team"},
			want:       []string{"Note: PRC-N001 RateLimitPolicy NS/aa-team: spec.limits of this policy are replaced by RateLimitPolicy NS/zz-team on route NS/cart"},
		},
		{
			name:       "Kuadrant, newer wins: the new policy takes the limit",
			apiVersion: "kuadrant.io/v1",
			args:       []string{"--config", filepath.Join("..", "..", "config", "kuadrant", "precedentconfig.yaml")},
			stored:     []string{"zz-team"},
			files:      []string{"aa-team"},
			want:       []string{"Warning: PRC-W010 RateLimitPolicy NS/aa-team: replaces NS/zz-team's `per-user` on route NS/cart (Kuadrant: the newer policy on one target wins)"},
		},
		{
			name:       "two new policies: the order is unknown and both outcomes are given",
			apiVersion: "policy.precedent.dev/v1alpha1",
			files:      []string{"zz-team", "aa-team"},
			want: []string{
				"Warning: PRC-W100 RateLimitPolicy NS/aa-team: the outcome depends on whether it or RateLimitPolicy NS/zz-team is created first",
				"Warning: PRC-W100 RateLimitPolicy NS/zz-team: if created before NS/aa-team: PRC-W010 RateLimitPolicy NS/zz-team: replaces NS/aa-team's `per-user` on route NS/cart (defaults-overrides: the oldest policy on one target wins)",
			},
			unknown: true,
		},
	}
	limits := map[string]string{"zz-team": "10", "aa-team": "99"}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ns := harness.Namespace(t, c)
			harness.Apply(t, c, ns, orderTopology)
			for _, n := range tc.stored {
				harness.Apply(t, c, ns, orderPolicy(tc.apiVersion, ns, n, limits[n]))
			}
			var docs []string
			for _, n := range tc.files {
				docs = append(docs, orderPolicy(tc.apiVersion, ns, n, limits[n]))
			}
			file := filepath.Join(t.TempDir(), "change.yaml")
			if err := os.WriteFile(file, []byte(strings.Join(docs, "\n---")), 0o644); err != nil {
				t.Fatal(err)
			}
			out, stderr, code := precedent(t, append([]string{"diff", "-f", file, kc}, tc.args...)...)
			if code == 2 {
				t.Fatalf("exit 2\n%s%s", out, stderr)
			}
			for _, w := range tc.want {
				if w = strings.ReplaceAll(w, "NS", ns); !strings.Contains(out, w) {
					t.Errorf("missing %q in:\n%s", w, out)
				}
			}
			if got := strings.Contains(out, "PRC-W100"); got != tc.unknown {
				t.Errorf("order called unknown: %v, want %v:\n%s", got, tc.unknown, out)
			}
		})
	}
}
