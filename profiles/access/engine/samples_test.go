package engine

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/precedent-dev/precedent/internal/manifest"
)

// TestSamples checks config/samples/access: every policy is valid, and creating each policy (the
// others already there) warns about the refund_payment grants that prod-gateway makes unreachable.
// Re-applying an unchanged Gateway-level policy warns about nothing: it makes nothing newly unreachable.
func TestSamples(t *testing.T) {
	policies, topo, s := readSamples(t)
	unreachable := []string{
		"PRC-W013 tool `refund_payment` granted to sa prod/payment-agent by prod/backend-policy-admin is denied at gateway prod/prod-gateway: no gateway rule allows it",
		"PRC-W013 tool `refund_payment` granted to sa prod/payments-admin by prod/backend-policy-admin is denied at gateway prod/prod-gateway: no gateway rule allows it",
	}
	want := map[string][]string{
		"gateway-policy-audit":  nil, // ExternalAuth only: no allow-list, nothing becomes unreachable
		"gateway-policy-region": unreachable,
		"backend-policy-admin":  unreachable,
	}
	got := map[string][]string{}
	for i, p := range policies {
		rest := append(append([]Policy{}, policies[:i]...), policies[i+1:]...)
		got[p.Name] = ProjectWrite(p, rest, &topo, s, 0)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("warnings on create mismatch (-want +got):\n%s", diff)
	}
	for _, p := range policies {
		if p.Level() != LevelGateway {
			continue
		}
		if w := ProjectWrite(p, policies, &topo, s, 0); len(w) > 0 {
			t.Errorf("re-applying %s warned: %q", p.Name, w)
		}
	}
}

// readSamples reads config/samples/access: its policies (each valid under the default settings) and
// the topology of its Gateways and HTTPRoutes.
func readSamples(t *testing.T) ([]Policy, Topology, Settings) {
	t.Helper()
	objs, err := manifest.Read("../../../config/samples/access")
	if err != nil {
		t.Fatal(err)
	}
	s := DefaultSettings()
	var policies []Policy
	var others []*unstructured.Unstructured
	for _, o := range objs {
		if !IsPolicy(o.GroupVersionKind().GroupKind()) {
			others = append(others, o.Unstructured)
			continue
		}
		p, errs := Parse(o.Unstructured, s)
		if len(errs) > 0 {
			t.Errorf("%s: %v", o.GetName(), errs)
		}
		policies = append(policies, p)
	}
	topo, err := NewTopology(others, s)
	if err != nil {
		t.Fatal(err)
	}
	return policies, topo, s
}
