package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/precedent-dev/precedent/internal/settings"
	"github.com/precedent-dev/precedent/test/harness"
)

const kuadrantConfig = `
apiVersion: policy.precedent.dev/v1alpha1
kind: PrecedentConfig
metadata: {name: cluster}
spec:
  kinds:
  - gvk: {group: kuadrant.io, version: v1, kind: RateLimitPolicy}
    profile: kuadrant`

const kuadrantObjects = `
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw}
spec:
  gatewayClassName: istio
  listeners: [{name: http, port: 80, protocol: HTTP}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: cart}
spec:
  parentRefs: [{name: gw}]
  rules: [{name: main}]
---
apiVersion: kuadrant.io/v1
kind: RateLimitPolicy
metadata: {name: gw-rlp}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: gw}
  defaults:
    strategy: merge
    limits:
      global: {rates: [{limit: 100, window: 1m}]}
      per-user: {rates: [{limit: 10, window: 1m}]}
---
apiVersion: kuadrant.io/v1
kind: RateLimitPolicy
metadata: {name: cart-rlp}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: cart}
  limits:
    per-user: {rates: [{limit: 5, window: 1m}]}`

// precedent runs the binary and returns its stdout, stderr and exit status.
func precedent(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return out.String(), errb.String(), 0
	case errors.As(err, &ee):
		return out.String(), errb.String(), ee.ExitCode()
	}
	t.Fatalf("running precedent %v: %v", args, err)
	return "", "", 0
}

// TestClusterSettingsManageKuadrantKinds: the cluster commands read the cluster's PrecedentConfig,
// so a kuadrant.io RateLimitPolicy it manages is found by Kind.group, its plain Kind is ambiguous
// once the cluster holds RateLimitPolicies of both groups,
// and the cluster's answers equal the offline ones over the same objects and settings.
func TestClusterSettingsManageKuadrantKinds(t *testing.T) {
	ns := harness.Namespace(t, c)
	harness.Apply(t, c, ns, kuadrantObjects)
	kc := "--kubeconfig=" + h.Kubeconfig
	effective := []string{"effective", "--kind", "RateLimitPolicy.kuadrant.io", "--target", "httproute/" + ns + "/cart", "-o", "json"}

	// No PrecedentConfig: the cluster's settings are the defaults, which do not manage the kind.
	_, stderr, code := precedent(t, append(effective, kc)...)
	wantUnmanaged := `error: --kind "RateLimitPolicy.kuadrant.io" is not a managed policy kind; the managed kinds are AuthPolicy.policy.precedent.dev, RateLimitPolicy.policy.precedent.dev, TrafficPolicy.policy.precedent.dev` + "\n"
	if code != 2 || stderr != wantUnmanaged {
		t.Fatalf("without a PrecedentConfig: exit %d, stderr:\n%s\nwant exit 2 and:\n%s", code, stderr, wantUnmanaged)
	}

	cfg := harness.Object(kuadrantConfig)
	harness.Create(t, c, cfg)
	t.Cleanup(func() { _ = c.Delete(context.Background(), cfg) })

	dir := writeOffline(t, ns)
	cases := []struct {
		name string
		args []string
	}{
		// --target in its own namespace, whatever the context's (default here).
		{"effective through a target of another namespace", effective},
		{"effective of every path", []string{"effective", "--kind", "ratelimitpolicy.kuadrant.io", "-A"}},
		{"explain --policy -o json", []string{"explain", "--kind", "RateLimitPolicy.kuadrant.io", "--policy", ns + "/gw-rlp", "-o", "json"}},
		{"explain --policy text", []string{"explain", "--kind", "RateLimitPolicy.kuadrant.io", "--policy", ns + "/cart-rlp"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cluster, stderr, code := precedent(t, append(tc.args, kc)...)
			if code != 0 {
				t.Fatalf("cluster: exit %d\n%s", code, stderr)
			}
			offline, stderr, code := precedent(t, append(tc.args, "-f", dir)...)
			if code != 0 {
				t.Fatalf("offline: exit %d\n%s", code, stderr)
			}
			if diff := cmp.Diff(offline, cluster); diff != "" {
				t.Errorf("cluster differs from offline (-offline +cluster):\n%s", diff)
			}
			if !strings.Contains(cluster, ns+"/") {
				t.Errorf("nothing about namespace %s:\n%s", ns, cluster)
			}
		})
	}

	t.Run("explain --policy -o json is the contract's shape", func(t *testing.T) {
		out, stderr, code := precedent(t, "explain", "--kind", "RateLimitPolicy.kuadrant.io", "--policy", ns+"/gw-rlp", "-o", "json", kc)
		if code != 0 {
			t.Fatalf("exit %d\n%s", code, stderr)
		}
		var got struct {
			Kind, Policy       string
			Accepted, Enforced struct{ Status, Reason, Message string }
			Rules              []struct {
				ID, State, By string
				Paths         int
			}
		}
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		if got.Kind != "RateLimitPolicy" || got.Policy != ns+"/gw-rlp" || got.Accepted.Status != "True" || len(got.Rules) != 2 {
			t.Errorf("explain --policy -o json:\n%s", out)
		}
	})

	// A RateLimitPolicy of policy.precedent.dev beside Kuadrant's: the plain Kind names both.
	harness.Apply(t, c, ns, `
apiVersion: policy.precedent.dev/v1alpha1
kind: RateLimitPolicy
metadata: {name: cart-limits}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: cart}
  limits:
    search: {rates: [{limit: 5, window: 1s}]}`)
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"a Kind of two managed groups the cluster holds objects of is ambiguous", []string{"effective", "--kind", "RateLimitPolicy"}, 2,
			"error: --kind RateLimitPolicy is ambiguous: there are objects of RateLimitPolicy.kuadrant.io and RateLimitPolicy.policy.precedent.dev; give Kind.group\n"},
		{"a target that does not exist is exit 1", []string{"effective", "--kind", "RateLimitPolicy.kuadrant.io", "--target", "httproute/" + ns + "/nope"}, 1,
			"error: HTTPRoute " + ns + "/nope not found\n"},
		{"a policy that does not exist is exit 1", []string{"explain", "--kind", "RateLimitPolicy.kuadrant.io", "--policy", ns + "/nope"}, 1,
			"error: RateLimitPolicy.kuadrant.io " + ns + "/nope not found\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, stderr, code := precedent(t, append(tc.args, kc)...)
			if code != tc.code || stderr != tc.want {
				t.Errorf("exit %d, stderr:\n%s\nwant exit %d and:\n%s", code, stderr, tc.code, tc.want)
			}
		})
	}
}

// writeOffline writes the namespace's objects, as stored, and the cluster's PrecedentConfig into a
// folder for the offline commands.
func writeOffline(t *testing.T, ns string) string {
	t.Helper()
	var manifest bytes.Buffer
	add := func(apiVersion, kind string, key types.NamespacedName) {
		u := &unstructured.Unstructured{}
		u.SetAPIVersion(apiVersion)
		u.SetKind(kind)
		if err := c.Get(context.Background(), key, u); err != nil {
			t.Fatal(err)
		}
		b, err := yaml.Marshal(u.Object)
		if err != nil {
			t.Fatal(err)
		}
		manifest.WriteString("---\n")
		manifest.Write(b)
	}
	add(settings.GVK.GroupVersion().String(), settings.GVK.Kind, client.ObjectKey{Name: settings.Name})
	for _, o := range []struct{ apiVersion, kind, name string }{
		{"gateway.networking.k8s.io/v1", "Gateway", "gw"}, {"gateway.networking.k8s.io/v1", "HTTPRoute", "cart"},
		{"kuadrant.io/v1", "RateLimitPolicy", "gw-rlp"}, {"kuadrant.io/v1", "RateLimitPolicy", "cart-rlp"},
	} {
		add(o.apiVersion, o.kind, types.NamespacedName{Namespace: ns, Name: o.name})
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "objects.yaml"), manifest.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}
