package envoygateway

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/precedent-dev/precedent/internal/inventory"
	"github.com/precedent-dev/precedent/internal/manifest"
	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/profile"
	"github.com/precedent-dev/precedent/internal/settings"
	"github.com/precedent-dev/precedent/internal/topology"
)

// samples reads sample files of config/samples/envoy-gateway (with its PrecedentConfig) as the CLI
// reads an offline input.
func samples(t *testing.T, files ...string) *profile.Offline {
	t.Helper()
	var paths []string
	for _, f := range append([]string{"precedentconfig.yaml", "topology.yaml"}, files...) {
		paths = append(paths, filepath.Join("..", "..", "config", "samples", "envoy-gateway", f))
	}
	objs, err := manifest.Read(paths...)
	if err != nil {
		t.Fatal(err)
	}
	s := settings.Defaults()
	var us []*unstructured.Unstructured
	for _, o := range objs {
		if o.GroupVersionKind().GroupKind() == settings.GVK.GroupKind() {
			cs, errs := settings.Decode(o.Unstructured)
			if len(errs) > 0 {
				t.Fatal(errs)
			}
			s = cs
			continue
		}
		us = append(us, o.Unstructured)
	}
	reg := s.Registry()
	inv := inventory.Build(reg, us, nil)
	return &profile.Offline{Objects: us, Settings: s, Registry: reg, Inv: inv, Graph: topology.Build(inv.Topology)}
}

// TestExplainPolicy: explain --policy of Envoy Gateway's kinds says what Envoy Gateway decides for
// a policy: the Gateway's JWT policy is replaced whole on the route a route policy holds
// (securitypolicy.go, ProcessSecurityPolicies: the most specific policy wins), the route policy is
// in effect, and the newer of two policies on one route is Conflicted, naming the older holder
// (resource.go, Resources.Sort: the oldest wins).
func TestExplainPolicy(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files []string
		ref   policy.Ref
		want  *profile.PolicyExplanation
	}{
		{"the Gateway policy is replaced where a route policy holds the route", []string{"replacement.yaml"}, policy.Ref{Namespace: "envoy-gateway-system", Name: "gw-auth"},
			&profile.PolicyExplanation{Kind: "SecurityPolicy", Policy: "envoy-gateway-system/gw-auth",
				Accepted: profile.Condition{Status: "True", Reason: "Accepted", Message: "Policy has been accepted"},
				Enforced: profile.Condition{Status: "True", Reason: "PartiallyEnforced", Message: "1 of 1 fields replaced on some or all paths"},
				Rules:    []profile.RuleFate{{ID: "jwt", State: "partly", By: "shop/cart-authz", Paths: 4}}}},
		{"the route policy is in effect", []string{"replacement.yaml"}, policy.Ref{Namespace: "shop", Name: "cart-authz"},
			&profile.PolicyExplanation{Kind: "SecurityPolicy", Policy: "shop/cart-authz",
				Accepted: profile.Condition{Status: "True", Reason: "Accepted", Message: "Policy has been accepted"},
				Enforced: profile.Condition{Status: "True", Reason: "Enforced", Message: "every field is in effect"},
				Rules:    []profile.RuleFate{{ID: "extAuth", State: "in-effect", Paths: 2}}}},
		{"the newer of two on one route is Conflicted", []string{"conflict.yaml"}, policy.Ref{Namespace: "shop", Name: "shelf-cors-v2"},
			&profile.PolicyExplanation{Kind: "SecurityPolicy", Policy: "shop/shelf-cors-v2",
				Accepted: profile.Condition{Status: "False", Reason: "Conflicted", Message: "shop/shelf-cors holds HTTPRoute shop/shelf"},
				Enforced: profile.Condition{Status: "False", Reason: "Conflicted", Message: "the policy is not accepted"},
				Rules:    []profile.RuleFate{{ID: "cors", State: "in-effect"}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := samples(t, tc.files...)
			k, err := in.Registry.Resolve("SecurityPolicy")
			if err != nil {
				t.Fatal(err)
			}
			got, err := Profile{}.ExplainPolicy(in, k, tc.ref)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("explanation (-want +got):\n%s", diff)
			}
		})
	}
}
