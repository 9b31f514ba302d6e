package export_test

import (
	"context"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/precedent-dev/precedent/test/harness"
)

// egConfig manages BackendTrafficPolicy with the envoy-gateway profile and defaults its mergeType
// to StrategicMerge; SecurityPolicy's line sets no default.
const egConfig = `
apiVersion: policy.precedent.dev/v1alpha1
kind: PrecedentConfig
metadata: {name: cluster}
spec:
  kinds:
  - {gvk: {group: gateway.envoyproxy.io, version: v1alpha1, kind: BackendTrafficPolicy}, profile: envoy-gateway, defaults: {mergeType: StrategicMerge}}
  - {gvk: {group: gateway.envoyproxy.io, version: v1alpha1, kind: SecurityPolicy}, profile: envoy-gateway}`

// TestMAPEnvoyGateway: the exported mergeType default compiles against Envoy Gateway's real CRDs,
// and with no webhook a route-targeted BackendTrafficPolicy without mergeType comes back with the
// kind line's default, while a Gateway-targeted one (where Envoy Gateway's CRD forbids mergeType)
// is left alone.
func TestMAPEnvoyGateway(t *testing.T) {
	names := applyStream(t, export(t, "map", egConfig))
	const want = "precedent-defaults-backendtrafficpolicy.gateway.envoyproxy.io"
	if !contains(names["MutatingAdmissionPolicy"], want) || !contains(names["MutatingAdmissionPolicyBinding"], want) {
		t.Fatalf("export map has no MutatingAdmissionPolicy and binding %s: %v", want, names)
	}
	if contains(names["MutatingAdmissionPolicy"], "precedent-defaults-securitypolicy.gateway.envoyproxy.io") {
		t.Errorf("export map defaults SecurityPolicy, whose line sets no default: %v", names)
	}
	ns := harness.Namespace(t, c)
	policy := func(name, target string) string {
		return `
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: BackendTrafficPolicy
metadata: {name: ` + name + `, namespace: "{{ns}}"}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: ` + target + `, name: x}]
  timeout: {http: {requestTimeout: 5s}}`
	}
	mergeType := func(doc string) (string, error) {
		u := harness.ObjectIn(ns, doc)
		if err := c.Create(context.Background(), u); err != nil {
			return "", err
		}
		defer func() { _ = c.Delete(context.Background(), u) }()
		m, _, _ := unstructured.NestedString(u.Object, "spec", "mergeType")
		return m, nil
	}
	harness.EventuallyWithin(t, 30*time.Second, "a route-targeted policy without mergeType comes back with StrategicMerge", func() (bool, string) {
		m, err := mergeType(policy("on-route", "HTTPRoute"))
		if err != nil {
			return false, "create: " + harness.ErrString(err)
		}
		return m == "StrategicMerge", "mergeType=" + m
	})
	m, err := mergeType(policy("on-gateway", "Gateway"))
	if err != nil || m != "" {
		t.Errorf("a Gateway-targeted policy: mergeType %q, error %v; want it admitted without mergeType", m, harness.ErrString(err))
	}
}
