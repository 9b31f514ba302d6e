package engine_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"github.com/precedent-dev/precedent/internal/effective"
	"github.com/precedent-dev/precedent/internal/inventory"
	"github.com/precedent-dev/precedent/internal/manifest"
	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/topology"
	"github.com/precedent-dev/precedent/profiles/kuadrant/engine"
)

// kuadrantPolicy is one Kuadrant policy of a test: its kind, where it sits, when it was made and
// its spec without the target.
type kuadrantPolicy struct {
	kind, ns, name, target, created, spec string
}

func (p kuadrantPolicy) doc() string {
	apiVersion := "kuadrant.io/v1"
	if p.kind == "TokenRateLimitPolicy" {
		apiVersion = "kuadrant.io/v1alpha1"
	}
	kind, name, _ := strings.Cut(p.target, "/")
	return fmt.Sprintf("apiVersion: %s\nkind: %s\nmetadata: {name: %s, namespace: %s, creationTimestamp: %q}\nspec:\n  targetRef: {group: gateway.networking.k8s.io, kind: %s, name: %s}\n%s",
		apiVersion, p.kind, p.name, p.ns, p.created, kind, name, indent(p.spec))
}

func indent(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for i := range lines {
		lines[i] = "  " + lines[i]
	}
	return strings.Join(lines, "\n")
}

// kuadrantSnapshot builds the snapshot of one Kuadrant kind over the overview's topology.
func kuadrantSnapshot(t testing.TB, kind string, ps []kuadrantPolicy) *effective.Snapshot {
	t.Helper()
	objs, err := manifest.Read("testdata/kuadrant/topology.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var us []*unstructured.Unstructured
	for i := range objs {
		us = append(us, objs[i].Unstructured)
	}
	for _, p := range ps {
		u := &unstructured.Unstructured{}
		if err := yaml.Unmarshal([]byte(p.doc()), &u.Object); err != nil {
			t.Fatalf("policy %s: %v\n%s", p.name, err, p.doc())
		}
		us = append(us, u)
	}
	var kinds []policy.Kind
	for _, gvk := range []schema.GroupVersionKind{
		{Group: "kuadrant.io", Version: "v1", Kind: "RateLimitPolicy"},
		{Group: "kuadrant.io", Version: "v1", Kind: "AuthPolicy"},
		{Group: "kuadrant.io", Version: "v1alpha1", Kind: "TokenRateLimitPolicy"},
	} {
		kinds = append(kinds, engine.KuadrantKind(gvk))
	}
	reg := policy.NewRegistry(append(policy.Builtin(), kinds...)...)
	inv := inventory.Build(reg, us, nil)
	k, ok := reg.Lookup(schema.GroupKind{Group: "kuadrant.io", Kind: kind})
	if !ok {
		t.Fatalf("kind %s not registered", kind)
	}
	for _, it := range inv.Items(k) {
		if len(it.Errs) > 0 {
			t.Fatalf("policy %s: %v", it.Policy.Ref, it.Errs.ToAggregate())
		}
	}
	return effective.NewSnapshot(k, topology.Build(inv.Topology), inv.Views(k), nil)
}

// routeItems maps each route reached by a policy to its effective policy.
func routeItems(s *effective.Snapshot) map[string]effective.Item {
	out := map[string]effective.Item{}
	for _, it := range s.Items(s.Reached(nil)) {
		out[it.Route] = it
	}
	return out
}

const (
	gwSys   = "gateway-system"
	toys    = "toystore"
	day1    = "2024-10-01T10:00:00Z"
	day2    = "2024-10-02T10:00:00Z"
	day3    = "2024-10-03T10:00:00Z"
	limit5  = "{rates: [{limit: 5, window: 10s}]}"
	limit10 = "{rates: [{limit: 10, window: 10s}]}"
	limit50 = "{rates: [{limit: 50, window: 1m}]}"
)

// want is the expected effective policy of one route: its spec in Kuadrant's bare form and the
// policy each rule comes from.
type want struct {
	spec    string
	sources map[string]string
}

// TestKuadrantDocumentedExamples takes the examples of Kuadrant's documentation through the
// kuadrant profile and checks the effective policy of each route, as Kuadrant's operator computes
// it (api/v1/merge_strategies.go). The tests are named after the documents.
func TestKuadrantDocumentedExamples(t *testing.T) {
	gwPolicy := func(block string) kuadrantPolicy {
		return kuadrantPolicy{"RateLimitPolicy", gwSys, "g", "Gateway/g", day1, block + ":\n  limits: {global: " + limit50 + "}"}
	}
	routeA := kuadrantPolicy{"RateLimitPolicy", toys, "a", "HTTPRoute/a", day2, "limits: {a: " + limit5 + "}"}
	routeB := kuadrantPolicy{"RateLimitPolicy", toys, "b", "HTTPRoute/b", day2, "limits: {b: " + limit10 + "}"}
	tests := []struct {
		name     string
		kind     string
		policies []kuadrantPolicy
		want     map[string]want
	}{
		{
			name: "rate-limiting overview: gateway defaults, the route policy prevails", kind: "RateLimitPolicy",
			policies: []kuadrantPolicy{gwPolicy("defaults"), routeA, routeB},
			want: map[string]want{
				"toystore/a":     {"limits: {a: " + limit5 + "}", map[string]string{"a": "toystore/a"}},
				"toystore/b":     {"limits: {b: " + limit10 + "}", map[string]string{"b": "toystore/b"}},
				"toystore/other": {"limits: {global: " + limit50 + "}", map[string]string{"global": "gateway-system/g"}},
			},
		},
		{
			name: "rate-limiting overview: a gateway policy with neither defaults nor overrides acts as defaults", kind: "RateLimitPolicy",
			policies: []kuadrantPolicy{{"RateLimitPolicy", gwSys, "g", "Gateway/g", day1, "limits: {global: " + limit50 + "}"}, routeA},
			want: map[string]want{
				"toystore/a":     {"limits: {a: " + limit5 + "}", map[string]string{"a": "toystore/a"}},
				"toystore/b":     {"limits: {global: " + limit50 + "}", map[string]string{"global": "gateway-system/g"}},
				"toystore/other": {"limits: {global: " + limit50 + "}", map[string]string{"global": "gateway-system/g"}},
			},
		},
		{
			name: "rate-limiting overview: gateway overrides are enforced on every route", kind: "RateLimitPolicy",
			policies: []kuadrantPolicy{gwPolicy("overrides"), routeA, routeB},
			want: map[string]want{
				"toystore/a":     {"limits: {global: " + limit50 + "}", map[string]string{"global": "gateway-system/g"}},
				"toystore/b":     {"limits: {global: " + limit50 + "}", map[string]string{"global": "gateway-system/g"}},
				"toystore/other": {"limits: {global: " + limit50 + "}", map[string]string{"global": "gateway-system/g"}},
			},
		},
		{
			name: "auth overview: merged defaults keep the route's rules and add the gateway's of other names", kind: "AuthPolicy",
			policies: []kuadrantPolicy{
				{"AuthPolicy", gwSys, "g", "Gateway/g", day1, "defaults:\n  strategy: merge\n  rules:\n    authentication: {api-key: {apiKey: {selector: {}}}}\n    authorization: {deny-all: {opa: {rego: allow = false}}}"},
				{"AuthPolicy", toys, "a", "HTTPRoute/a", day2, "rules:\n  authorization: {deny-all: {opa: {rego: allow = true}}}"},
			},
			want: map[string]want{
				"toystore/a": {"rules: {authentication: {api-key: {apiKey: {selector: {}}}}, authorization: {deny-all: {opa: {rego: allow = true}}}}",
					map[string]string{"authentication.api-key": "gateway-system/g", "authorization.deny-all": "toystore/a"}},
				"toystore/b": {"rules: {authentication: {api-key: {apiKey: {selector: {}}}}, authorization: {deny-all: {opa: {rego: allow = false}}}}",
					map[string]string{"authentication.api-key": "gateway-system/g", "authorization.deny-all": "gateway-system/g"}},
				"toystore/other": {"rules: {authentication: {api-key: {apiKey: {selector: {}}}}, authorization: {deny-all: {opa: {rego: allow = false}}}}",
					map[string]string{"authentication.api-key": "gateway-system/g", "authorization.deny-all": "gateway-system/g"}},
			},
		},
		{
			name: "auth overview: merged overrides replace rules of the same name and keep the others", kind: "AuthPolicy",
			policies: []kuadrantPolicy{
				{"AuthPolicy", gwSys, "g", "Gateway/g", day1, "overrides:\n  strategy: merge\n  rules:\n    authentication: {mtls: {x509: {selector: {}}}}"},
				{"AuthPolicy", toys, "a", "HTTPRoute/a", day2, "rules:\n  authentication: {mtls: {anonymous: {}}, jwt: {jwt: {issuerUrl: https://issuer}}}"},
			},
			want: map[string]want{
				"toystore/a": {"rules: {authentication: {mtls: {x509: {selector: {}}}, jwt: {jwt: {issuerUrl: https://issuer}}}}",
					map[string]string{"authentication.mtls": "gateway-system/g", "authentication.jwt": "toystore/a"}},
				"toystore/b":     {"rules: {authentication: {mtls: {x509: {selector: {}}}}}", map[string]string{"authentication.mtls": "gateway-system/g"}},
				"toystore/other": {"rules: {authentication: {mtls: {x509: {selector: {}}}}}", map[string]string{"authentication.mtls": "gateway-system/g"}},
			},
		},
		{
			name: "authpolicy reference: a merge override of response.success.headers merges header by header", kind: "AuthPolicy",
			policies: []kuadrantPolicy{
				{"AuthPolicy", gwSys, "g", "Gateway/g", day1, "overrides:\n  strategy: merge\n  rules:\n    response: {success: {headers: {x-platform: {plain: {value: gw}}}}}"},
				{"AuthPolicy", toys, "a", "HTTPRoute/a", day2, "rules:\n  authentication: {anon: {anonymous: {}}}\n  response: {success: {headers: {x-app: {plain: {value: a}}}, filters: {ident: {json: {properties: {}}}}}, unauthorized: {code: 403}}"},
			},
			want: map[string]want{
				"toystore/a": {"rules: {authentication: {anon: {anonymous: {}}}, response: {unauthorized: {code: 403}, success: {headers: {x-app: {plain: {value: a}}, x-platform: {plain: {value: gw}}}, filters: {ident: {json: {properties: {}}}}}}}",
					map[string]string{"authentication.anon": "toystore/a", "response.success.headers.x-app": "toystore/a", "response.success.headers.x-platform": "gateway-system/g",
						"response.success.metadata.ident": "toystore/a", "response.unauthorized": "toystore/a"}},
				"toystore/b":     {"rules: {response: {success: {headers: {x-platform: {plain: {value: gw}}}}}}", map[string]string{"response.success.headers.x-platform": "gateway-system/g"}},
				"toystore/other": {"rules: {response: {success: {headers: {x-platform: {plain: {value: gw}}}}}}", map[string]string{"response.success.headers.x-platform": "gateway-system/g"}},
			},
		},
		{
			name: "ratelimitpolicy reference: the top-level when is carried as one rule", kind: "RateLimitPolicy",
			policies: []kuadrantPolicy{
				{"RateLimitPolicy", gwSys, "g", "Gateway/g", day1, "defaults:\n  strategy: merge\n  when: [{predicate: request.method == 'POST'}]\n  limits: {global: " + limit50 + "}"},
				{"RateLimitPolicy", toys, "a", "HTTPRoute/a", day2, "limits: {a: " + limit5 + "}"},
			},
			want: map[string]want{
				"toystore/a": {"when: [{predicate: request.method == 'POST'}]\nlimits: {a: " + limit5 + ", global: " + limit50 + "}",
					map[string]string{"a": "toystore/a", "global": "gateway-system/g", "when": "gateway-system/g"}},
				"toystore/b": {"when: [{predicate: request.method == 'POST'}]\nlimits: {global: " + limit50 + "}",
					map[string]string{"global": "gateway-system/g", "when": "gateway-system/g"}},
				"toystore/other": {"when: [{predicate: request.method == 'POST'}]\nlimits: {global: " + limit50 + "}",
					map[string]string{"global": "gateway-system/g", "when": "gateway-system/g"}},
			},
		},
		{
			name: "merge strategies: of two bare policies on one route the newer wins", kind: "RateLimitPolicy",
			policies: []kuadrantPolicy{
				{"RateLimitPolicy", toys, "old", "HTTPRoute/a", day1, "limits: {old: " + limit5 + "}"},
				{"RateLimitPolicy", toys, "new", "HTTPRoute/a", day2, "limits: {new: " + limit10 + "}"},
			},
			want: map[string]want{"toystore/a": {"limits: {new: " + limit10 + "}", map[string]string{"new": "toystore/new"}}},
		},
		{
			name: "merge strategies: of two atomic overrides on one gateway the older wins", kind: "RateLimitPolicy",
			policies: []kuadrantPolicy{
				{"RateLimitPolicy", gwSys, "old", "Gateway/g", day1, "overrides:\n  limits: {old: " + limit5 + "}"},
				{"RateLimitPolicy", gwSys, "new", "Gateway/g", day2, "overrides:\n  limits: {new: " + limit10 + "}"},
			},
			want: map[string]want{
				"toystore/a":     {"limits: {old: " + limit5 + "}", map[string]string{"old": "gateway-system/old"}},
				"toystore/b":     {"limits: {old: " + limit5 + "}", map[string]string{"old": "gateway-system/old"}},
				"toystore/other": {"limits: {old: " + limit5 + "}", map[string]string{"old": "gateway-system/old"}},
			},
		},
		{
			name: "merge strategies: atomic defaults take the gateway's when the route's has no limits (Empty)", kind: "TokenRateLimitPolicy",
			policies: []kuadrantPolicy{
				{"TokenRateLimitPolicy", gwSys, "g", "Gateway/g", day1, "defaults:\n  limits: {tokens: " + limit50 + "}"},
				{"TokenRateLimitPolicy", toys, "a", "HTTPRoute/a", day2, "overrides:\n  strategy: merge\n  when: [{predicate: auth.identity.tier == 'free'}]"},
			},
			want: map[string]want{
				"toystore/a":     {"limits: {tokens: " + limit50 + "}", map[string]string{"tokens": "gateway-system/g"}},
				"toystore/b":     {"limits: {tokens: " + limit50 + "}", map[string]string{"tokens": "gateway-system/g"}},
				"toystore/other": {"limits: {tokens: " + limit50 + "}", map[string]string{"tokens": "gateway-system/g"}},
			},
		},
		{
			name: "policy-machinery order: at one creationTimestamp namespace/name decides, as one string", kind: "RateLimitPolicy",
			policies: []kuadrantPolicy{
				// Same creationTimestamp: "toystore/a" sorts before "toystore/a-b", so a-b counts as the
				// newer and, being bare, wins (policies of one target share its namespace).
				{"RateLimitPolicy", toys, "a-b", "HTTPRoute/a", day3, "limits: {second: " + limit10 + "}"},
				{"RateLimitPolicy", toys, "a", "HTTPRoute/a", day3, "limits: {first: " + limit5 + "}"},
			},
			want: map[string]want{"toystore/a": {"limits: {second: " + limit10 + "}", map[string]string{"second": "toystore/a-b"}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := routeItems(kuadrantSnapshot(t, tt.kind, tt.policies))
			wantItems := map[string]effective.Item{}
			for route, w := range tt.want {
				it := got[route]
				wantItems[route] = effective.Item{Kind: tt.kind, Gateway: "gateway-system/g", Route: route, Spec: spec(t, w.spec), Sources: w.sources, Listener: it.Listener, Rule: it.Rule}
			}
			if diff := cmp.Diff(wantItems, got); diff != "" {
				t.Errorf("effective policies (-want +got):\n%s", diff)
			}
		})
	}
}

func spec(t testing.TB, y string) map[string]interface{} {
	t.Helper()
	var m map[string]interface{}
	if err := yaml.Unmarshal([]byte(y), &m); err != nil {
		t.Fatal(err)
	}
	return m
}
