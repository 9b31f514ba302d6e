package cli_test

import (
	"context"
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

// TestUnacceptedPolicyLeftOut: the cluster switches unset off while a route policy using unset is
// stored (no webhook runs here to reject it). The reconciler would write Accepted=False/Invalid on
// it, so effective and explain leave it out, and a note names it and the reason: the Gateway's
// default it unsets and replaces stays in effect.
func TestUnacceptedPolicyLeftOut(t *testing.T) {
	kc := "--kubeconfig=" + h.Kubeconfig
	ns := harness.Namespace(t, c)
	harness.Apply(t, c, ns, orderTopology, `
apiVersion: policy.precedent.dev/v1alpha1
kind: AuthPolicy
metadata: {name: gw-policy}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: gw}
  defaults:
    strategy: merge
    rules:
      authorization:
        b: {opa: {rego: allow = true}}`, viewsRoutePolicy(false)+`
  unset: [authorization.b]`)
	cfg := harness.Object(`
apiVersion: policy.precedent.dev/v1alpha1
kind: PrecedentConfig
metadata: {name: cluster}
spec: {unsetEnabled: false}`)
	harness.Create(t, c, cfg)
	t.Cleanup(func() { _ = c.Delete(context.Background(), cfg) })

	note := "Note: PRC-N300 AuthPolicy NS/route-policy: left out, not accepted: Invalid: Policy is invalid: spec.unset: Forbidden: unset is switched off"
	cases := []struct {
		name string
		args []string
		want []string // in stdout
		// shows says whether the route policy may be named in stdout (what explain --policy is about)
		shows bool
	}{
		{
			name: "effective: the Gateway's default is in effect, the route policy holds nothing",
			args: []string{"effective", "--kind", "AuthPolicy", "--target", "httproute/NS/cart", "-o", "json"},
			want: []string{`"sources": {
        "authorization.b": "NS/gw-policy"
      }`},
		},
		{
			name: "explain the rule: it comes from the Gateway policy",
			args: []string{"explain", "--kind", "AuthPolicy", "--target", "httproute/NS/cart", "--rule", "authorization.b"},
			want: []string{"NS/gw-policy"},
		},
		{
			name:  "explain the policy: not accepted, no rule in effect",
			args:  []string{"explain", "--kind", "AuthPolicy", "--policy", "NS/route-policy", "-o", "json"},
			want:  []string{`"reason": "Invalid"`, `"rules": []`},
			shows: true,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			args := []string{kc}
			for _, a := range tc.args {
				args = append(args, strings.ReplaceAll(a, "NS", ns))
			}
			out, stderr, code := precedent(t, args...)
			if code != 0 {
				t.Fatalf("exit %d\n%s%s", code, out, stderr)
			}
			for _, w := range tc.want {
				if w = strings.ReplaceAll(w, "NS", ns); !strings.Contains(out, w) {
					t.Errorf("missing %q in:\n%s", w, out)
				}
			}
			if n := strings.ReplaceAll(note, "NS", ns); !strings.Contains(stderr, n) {
				t.Errorf("missing %q in stderr:\n%s", n, stderr)
			}
			if strings.Contains(out, ns+"/route-policy") && !tc.shows {
				t.Errorf("the route policy is shown:\n%s", out)
			}
		})
	}
}
