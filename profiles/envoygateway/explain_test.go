package envoygateway

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/precedent-dev/precedent/internal/effective"
	"github.com/precedent-dev/precedent/internal/inventory"
	"github.com/precedent-dev/precedent/internal/manifest"
	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/profile"
	"github.com/precedent-dev/precedent/internal/settings"
	"github.com/precedent-dev/precedent/internal/topology"
)

// samples reads sample files of config/samples/envoy-gateway, with the PrecedentConfig of the
// config/envoy-gateway component, as the CLI reads an offline input.
func samples(t *testing.T, files ...string) *profile.Offline {
	t.Helper()
	paths := []string{filepath.Join("..", "..", "config", "envoy-gateway", "precedentconfig.yaml")}
	for _, f := range append([]string{"topology.yaml"}, files...) {
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
	return offlineOf(s, us)
}

// offlineOf is the offline input of objs under settings s.
func offlineOf(s settings.Settings, objs []*unstructured.Unstructured) *profile.Offline {
	reg := s.Registry()
	inv := inventory.Build(reg, objs, nil)
	return &profile.Offline{Objects: objs, Settings: s, Registry: reg, Inv: inv, Graph: topology.Build(inv.Topology)}
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

// TestExplainAgreesWithEffective: on the merge samples, explain --policy gives each field the fate
// `effective` shows: in effect where the policy's value (alone or merged) is among the field's
// sources, else replaced by the policy whose value is in effect where it set one. The Gateway's
// compression is replaced by search's JSONMerge list, not by shelf's StrategicMerge one, which
// keeps it; a route policy merged through a ListenerSet has its cors in effect on both listeners;
// the ListenerSet-wide parent is replaced on the listener whose own policy is the closest parent.
func TestExplainAgreesWithEffective(t *testing.T) {
	accepted := profile.Condition{Status: "True", Reason: "Accepted", Message: "Policy has been accepted"}
	enforced := profile.Condition{Status: "True", Reason: "Enforced", Message: "every field is in effect"}
	for _, tc := range []struct {
		file, kind string
		policy     policy.Ref
		enforced   profile.Condition
		rules      []profile.RuleFate
	}{
		{"merges.yaml", "BackendTrafficPolicy", policy.Ref{Namespace: "envoy-gateway-system", Name: "gw-traffic"},
			profile.Condition{Status: "True", Reason: "PartiallyEnforced", Message: "1 of 3 fields replaced on some or all paths"},
			[]profile.RuleFate{{ID: "compression", State: "partly", By: "shop/search-traffic", Paths: 4}, {ID: "retry", State: "in-effect", Paths: 4}, {ID: "timeout", State: "in-effect", Paths: 4}}},
		{"merges.yaml", "BackendTrafficPolicy", policy.Ref{Namespace: "shop", Name: "shelf-traffic"}, enforced,
			[]profile.RuleFate{{ID: "compression", State: "in-effect", Paths: 1}, {ID: "timeout", State: "in-effect", Paths: 1}}},
		{"merges.yaml", "BackendTrafficPolicy", policy.Ref{Namespace: "shop", Name: "search-traffic"}, enforced,
			[]profile.RuleFate{{ID: "compression", State: "in-effect", Paths: 1}, {ID: "timeout", State: "in-effect", Paths: 1}}},
		{"ratelimits.yaml", "BackendTrafficPolicy", policy.Ref{Namespace: "envoy-gateway-system", Name: "gw-limits"}, enforced,
			[]profile.RuleFate{{ID: "rateLimit", State: "in-effect", Paths: 4}}},
		{"ratelimits.yaml", "BackendTrafficPolicy", policy.Ref{Namespace: "shop", Name: "pay-limits"}, enforced,
			[]profile.RuleFate{{ID: "rateLimit", State: "in-effect", Paths: 1}}},
		{"listenerset-merge.yaml", "SecurityPolicy", policy.Ref{Namespace: "partners", Name: "catalog-cors"}, enforced,
			[]profile.RuleFate{{ID: "cors", State: "in-effect", Paths: 2}}},
		{"listenerset-merge.yaml", "SecurityPolicy", policy.Ref{Namespace: "edge-system", Name: "partners-api-cors"}, enforced,
			[]profile.RuleFate{{ID: "cors", State: "in-effect", Paths: 1}}},
		{"listenerset-merge.yaml", "SecurityPolicy", policy.Ref{Namespace: "edge-system", Name: "partners-cors"},
			profile.Condition{Status: "True", Reason: "PartiallyEnforced", Message: "1 of 1 fields replaced on some or all paths"},
			[]profile.RuleFate{{ID: "cors", State: "partly", By: "edge-system/partners-api-cors", Paths: 2}}},
		{"listenerset-merge.yaml", "SecurityPolicy", policy.Ref{Namespace: "edge-system", Name: "edge-cors"},
			profile.Condition{Status: "False", Reason: "Overridden", Message: "replaced by edge-system/partners-api-cors"},
			[]profile.RuleFate{{ID: "cors", State: "replaced", By: "edge-system/partners-api-cors", Paths: 2}}},
	} {
		t.Run(tc.file+" "+tc.policy.String(), func(t *testing.T) {
			in := samples(t, tc.file)
			k, err := in.Registry.Resolve(tc.kind)
			if err != nil {
				t.Fatal(err)
			}
			want := &profile.PolicyExplanation{Kind: tc.kind, Policy: tc.policy.String(), Accepted: accepted, Enforced: tc.enforced, Rules: tc.rules}
			got, err := Profile{}.ExplainPolicy(in, k, tc.policy)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("explanation (-want +got):\n%s", diff)
			}
			items, err := Profile{}.Effective(in, k, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, rf := range got.Rules {
				if msg := agrees(rf, tc.policy.String(), items); msg != "" {
					t.Errorf("rule %s (%s, by %q) disagrees with effective: %s", rf.ID, rf.State, rf.By, msg)
				}
			}
		})
	}
}

// agrees checks a field's fate against the effective items: in effect (wholly or partly) only
// where a source of the field names the policy, and replaced by a policy a source of the field
// names; "" when they agree.
func agrees(rf profile.RuleFate, me string, items []effective.Item) string {
	from := map[string]bool{}
	for _, it := range items {
		for _, f := range contributors(it.Sources, rf.ID) {
			from[f.String()] = true
		}
	}
	switch {
	case rf.State != "replaced" && !from[me]:
		return "no effective item has the policy's value"
	case rf.State == "replaced" && from[me]:
		return "an effective item has the policy's value"
	case rf.State != "in-effect" && (rf.By == me || !from[rf.By]):
		return "no effective item has the value of " + rf.By
	case rf.State == "in-effect" && rf.By != "":
		return "a field in effect names who replaced it"
	}
	return ""
}
