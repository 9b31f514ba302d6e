package envoygateway_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/precedent-dev/precedent/test/harness"
)

func samples(t *testing.T, files ...string) []*unstructured.Unstructured {
	t.Helper()
	var out []*unstructured.Unstructured
	for _, f := range files {
		raw, err := os.ReadFile(filepath.Join("..", "..", "config", "samples", "envoy-gateway", f))
		if err != nil {
			t.Fatal(err)
		}
		for _, doc := range bytes.Split(raw, []byte("\n---")) {
			u := &unstructured.Unstructured{}
			if err := yaml.Unmarshal(doc, &u.Object); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			if len(u.Object) > 0 {
				out = append(out, u)
			}
		}
	}
	return out
}

// The real API server, with Envoy Gateway's real CRDs, accepts every sample policy (server-side
// dry run, in a namespace of the test's own).
func TestSamplesAcceptedByTheRealCRDs(t *testing.T) {
	ns := harness.Namespace(t, c)
	for _, u := range samples(t, "replacement.yaml", "merges.yaml", "ratelimits.yaml", "conflict.yaml") {
		u.SetNamespace(ns)
		if err := c.Create(context.Background(), u, client.DryRunAll); err != nil {
			t.Errorf("%s %s: %v", u.GetKind(), u.GetName(), err)
		}
	}
}

// The real CRDs refuse mergeType on a Gateway target and Replace on a route, the two cases
// envoygateway.Stateless refuses with field paths.
func TestRealCRDsRefuseMergeTypeOffRoutes(t *testing.T) {
	ns := harness.Namespace(t, c)
	for _, c2 := range []struct{ name, spec, want string }{
		{"gateway target", `{targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: eg}], mergeType: StrategicMerge, cors: {}}`, "mergeType"},
		{"replace", `{targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: cart}], mergeType: Replace, cors: {}}`, "mergeType"},
	} {
		t.Run(c2.name, func(t *testing.T) {
			u := &unstructured.Unstructured{}
			if err := yaml.Unmarshal([]byte(`{apiVersion: gateway.envoyproxy.io/v1alpha1, kind: SecurityPolicy, metadata: {name: x}, spec: `+c2.spec+`}`), &u.Object); err != nil {
				t.Fatal(err)
			}
			u.SetNamespace(ns)
			err := c.Create(context.Background(), u, client.DryRunAll)
			if err == nil || !strings.Contains(err.Error(), c2.want) {
				t.Errorf("dry-run create: %v, want a refusal naming %s", err, c2.want)
			}
		})
	}
}
