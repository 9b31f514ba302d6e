package engine

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

const (
	kumaTimeout    = KindMeshTimeout + "." + KumaGroup
	kumaPermission = KindMeshTrafficPermission + "." + KumaGroup
)

func find(t *testing.T, dps []Dataplane, name string) Dataplane {
	t.Helper()
	for _, dp := range dps {
		if dp.Name == name {
			return dp
		}
	}
	t.Fatalf("no Dataplane %s", name)
	return Dataplane{}
}

func without(policies []Policy, names ...string) []Policy {
	var out []Policy
	for _, p := range policies {
		if !contains(names, p.Name) {
			out = append(out, p)
		}
	}
	return out
}

// TestKumaMerge takes Kuma's documented examples and the MADR's through the kuma.io kinds, merged in
// the order Kuma 2.14's control plane enforces on tag outbounds (TestKumaToItemOrder has 3.0's;
// SortByTargetRef in
// pkg/plugins/policies/core/matchers/dataplane.go; createRule and merge.Confs in
// pkg/plugins/policies/core/rules).
func TestKumaMerge(t *testing.T) {
	policies, dps := load(t, "testdata/kuma")
	tests := []struct {
		name     string
		kind     string
		policies []Policy
		proxy    string
		dir      Direction
		target   Selector
		want     Result
	}{
		{
			name: "Kuma docs, simple outbound HTTP configuration: applies to a proxy of its namespace", kind: kumaTimeout,
			policies: without(policies, "00-base-timeouts", "01-consume-backend-timeouts", "web-timeouts"),
			proxy:    "backend-1", dir: To, target: Selector{Service: "payments"},
			want: Result{
				Conf:    map[string]interface{}{"connectionTimeout": "2s", "idleTimeout": "20s", "http": map[string]interface{}{"requestTimeout": "2s"}},
				Origins: map[string]string{"connectionTimeout": "timeout-global", "idleTimeout": "timeout-global", "http.requestTimeout": "timeout-global"},
			},
		},
		{
			name: "Kuma docs, simple outbound HTTP configuration: a consumer policy skips proxies of other namespaces", kind: kumaTimeout,
			policies: without(policies, "00-base-timeouts", "01-consume-backend-timeouts", "web-timeouts"),
			proxy:    "web-other", dir: To, target: Selector{Service: "backend"},
			want: Result{Conf: map[string]interface{}{}, Origins: map[string]string{}},
		},
		{
			name: "MADR UpstreamTimeout example as kuma.io: the smaller name wins within the Mesh level", kind: kumaTimeout,
			policies: without(policies, "timeout-global"),
			proxy:    "web-v1", dir: To, target: Selector{Service: "backend"},
			want: Result{
				Conf:    map[string]interface{}{"connectionTimeout": "5s", "idleTimeout": "1h", "http": map[string]interface{}{"requestTimeout": "15s"}},
				Origins: map[string]string{"connectionTimeout": "web-timeouts", "idleTimeout": "00-base-timeouts", "http.requestTimeout": "web-timeouts"},
			},
		},
		{
			name: "MADR example plus Kuma docs: a consumer policy outranks system policies of its level", kind: kumaTimeout,
			policies: policies, proxy: "web-v1", dir: To, target: Selector{Service: "backend"},
			want: Result{
				Conf:    map[string]interface{}{"connectionTimeout": "5s", "idleTimeout": "20s", "http": map[string]interface{}{"requestTimeout": "15s"}},
				Origins: map[string]string{"connectionTimeout": "web-timeouts", "idleTimeout": "timeout-global", "http.requestTimeout": "web-timeouts"},
			},
		},
		{
			name: "MADR example as kuma.io: a proxy of another namespace gets the system policies", kind: kumaTimeout,
			policies: policies, proxy: "web-other", dir: To, target: Selector{Service: "backend"},
			want: Result{
				Conf:    map[string]interface{}{"connectionTimeout": "10s", "idleTimeout": "1h", "http": map[string]interface{}{"requestTimeout": "5s"}},
				Origins: map[string]string{"connectionTimeout": "00-base-timeouts", "idleTimeout": "00-base-timeouts", "http.requestTimeout": "00-base-timeouts"},
			},
		},
		{
			name: "Kuma docs MeshTrafficPermission: allow-all wins over deny-web-v1 by name, Dataplane level below MeshService", kind: kumaPermission,
			policies: policies, proxy: "backend-1", dir: From, target: Selector{Service: "web", Tags: map[string]string{"version": "v1"}},
			want: Result{Conf: map[string]interface{}{"action": "Allow"}, Origins: map[string]string{"action": "allow-all"}},
		},
		{
			name: "Kuma docs MeshTrafficPermission: only the Dataplane-level policy speaks for an unknown source", kind: kumaPermission,
			policies: without(policies, "allow-all"), proxy: "backend-1", dir: From, target: Selector{Service: "web", Tags: map[string]string{"version": "v2"}},
			want: Result{Conf: map[string]interface{}{"action": "AllowWithShadowDeny"}, Origins: map[string]string{"action": "shadow-web"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := MergeAt(Kuma214, tt.kind, tt.policies, find(t, dps, tt.proxy), tt.dir, tt.target)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("merge (-want +got):\n%s", diff)
			}
		})
	}
}

// TestKumaLaterItemWins: Kuma merges the items of one policy as JSON merge patches in order, so its
// last matching item wins (createRule in pkg/plugins/policies/core/rules/rules.go); the MADR lets
// the first win. Kuma 2.14 on a tag outbound; 3.0 sorts the items by kind first (TestKumaToItemOrder).
func TestKumaLaterItemWins(t *testing.T) {
	doc := func(apiVersion, item0, item1 string) Policy {
		return policy(t, "apiVersion: "+apiVersion+"\nkind: MeshTimeout\nmetadata: {name: p, namespace: kuma-system}\nspec:\n  targetRef: {kind: Mesh}\n  to:\n  - "+item0+"\n  - "+item1+"\n")
	}
	dp := proxy("web-1", map[string]string{ServiceTag: "web"}, "backend")
	kuma := doc("kuma.io/v1alpha1", "{targetRef: {kind: MeshService, name: backend}, default: {connectionTimeout: 1s}}", "{targetRef: {kind: Mesh}, default: {connectionTimeout: 2s}}")
	madr := doc("policy.precedent.dev/v1alpha1", "{targetRef: {kind: Service, name: backend}, connectTimeout: 1s}", "{targetRef: {kind: Mesh}, connectTimeout: 2s}")
	if got := MergeAt(Kuma214, kumaTimeout, []Policy{kuma}, dp, To, Selector{Service: "backend"}).Conf["connectionTimeout"]; got != "2s" {
		t.Errorf("kuma.io: connectionTimeout = %v, want 2s (the later item)", got)
	}
	if got := Merge(KindMeshTimeout, []Policy{madr}, dp, To, Selector{Service: "backend"}).Conf["connectTimeout"]; got != "1s" {
		t.Errorf("MADR: connectTimeout = %v, want 1s (the first item)", got)
	}
	want := []string{"PRC-W014 MeshTimeout kuma-system/p: spec.to[0] never takes effect on any Dataplane: every field it sets is decided by spec.to[1] of kuma-system/p"}
	if diff := cmp.Diff(want, WriteWarningsAt(Kuma214, kuma, nil, []Dataplane{dp}, true)); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
}

// TestKumaOrder: the order of Kuma's SortByTargetRef, highest priority first.
func TestKumaOrder(t *testing.T) {
	mk := func(name, ns, top string, labels string) Policy {
		return policy(t, "apiVersion: kuma.io/v1alpha1\nkind: MeshTimeout\nmetadata: {name: "+name+", namespace: "+ns+", labels: {"+labels+"}}\nspec:\n  targetRef: "+top+"\n  to:\n  - {targetRef: {kind: Mesh}, default: {connectionTimeout: 1s}}\n")
	}
	policies := []Policy{
		mk("a-mesh", "kuma-system", "{kind: Mesh}", ""),
		mk("b-mesh", "kuma-system", "{kind: Mesh}", ""),
		mk("zone-mesh", "kuma-system", "{kind: Mesh}", "kuma.io/origin: zone"),
		mk("consumer-mesh", "kuma-demo", "{kind: Mesh}", ""),
		mk("dp-all", "kuma-system", "{kind: Dataplane}", ""),
		mk("dp-labels", "kuma-system", "{kind: Dataplane, labels: {app: web}}", ""),
		mk("dp-name", "kuma-system", "{kind: Dataplane, name: web-1, namespace: kuma-demo}", ""),
		mk("subset", "kuma-system", "{kind: MeshSubset, tags: {version: v1}}", ""),
		mk("service", "kuma-system", "{kind: MeshService, name: web}", ""),
		mk("service-subset", "kuma-system", "{kind: MeshServiceSubset, name: web, tags: {version: v1}}", ""),
	}
	dp := Dataplane{Namespace: "kuma-demo", Name: "web-1", Labels: map[string]string{"app": "web"},
		Inbound: []map[string]string{{ServiceTag: "web", "version": "v1"}}}
	var got []string
	for _, p := range Order(kumaTimeout, policies, &dp) {
		got = append(got, p.Name)
	}
	// Dataplane refs: by name beats by labels (CompareDataplaneKind); a ref to all Dataplanes compares
	// equal to both and falls to the name. Origin comes before role: a zone policy beats a consumer one.
	want := []string{"service-subset", "service", "subset", "dp-all", "dp-name", "dp-labels",
		"zone-mesh", "consumer-mesh", "a-mesh", "b-mesh"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
}

func TestKumaValidate(t *testing.T) {
	head := "apiVersion: kuma.io/v1alpha1\nkind: %s\nmetadata: {name: p, namespace: %s}\nspec:\n"
	tests := []struct {
		name string
		doc  string
		want []string
	}{
		{
			name: "to item of a kind Kuma does not accept names the element",
			doc:  "MeshTimeout|kuma-system|  to:\n  - {targetRef: {kind: Mesh}, default: {connectionTimeout: 1s}}\n  - {targetRef: {kind: MeshSubset, tags: {a: b}}, default: {connectionTimeout: 1s}}\n",
			want: []string{`spec.to[1].targetRef.kind: Unsupported value: "MeshSubset": supported values: "Mesh", "MeshService", "MeshExternalService", "MeshMultiZoneService", "MeshHTTPRoute"`},
		},
		{
			name: "configuration inline, as the MADR writes it, is not Kuma's shape",
			doc:  "MeshTimeout|kuma-system|  to:\n  - {targetRef: {kind: Mesh}, connectionTimeout: 1s}\n",
			want: []string{"spec.to[0].connectionTimeout: Forbidden: unknown field: supported fields are targetRef, default", "spec.to[0].default: Required value: at least one timeout must be set"},
		},
		{
			name: "zero connectionTimeout and a malformed duration",
			doc:  "MeshTimeout|kuma-system|  to:\n  - {targetRef: {kind: Mesh}, default: {connectionTimeout: 0s, http: {requestTimeout: soon}}}\n",
			want: []string{`spec.to[0].default.connectionTimeout: Invalid value: "0s": must be greater than zero`, `spec.to[0].default.http.requestTimeout: Invalid value: "soon": must be a duration such as "5s", "1h30m" or "0.5s"`},
		},
		{
			name: "MeshTimeout from accepts only the Mesh",
			doc:  "MeshTimeout|kuma-system|  from:\n  - {targetRef: {kind: MeshService, name: web}, default: {idleTimeout: 1s}}\n",
			want: []string{`spec.from[0].targetRef.kind: Unsupported value: "MeshService": supported values: "Mesh"`},
		},
		{
			name: "MeshTrafficPermission action is Kuma's enum",
			doc:  "MeshTrafficPermission|kuma-system|  from:\n  - {targetRef: {kind: Mesh}, default: {action: ALLOW}}\n",
			want: []string{`spec.from[0].default.action: Unsupported value: "ALLOW": supported values: "Allow", "Deny", "AllowWithShadowDeny"`},
		},
		{
			name: "MeshTrafficPermission has no to",
			doc:  "MeshTrafficPermission|kuma-system|  to:\n  - {targetRef: {kind: Mesh}, default: {action: Allow}}\n",
			want: []string{"spec.to: Forbidden: unknown field: supported fields are targetRef, from, rules", "spec: Required value: at least one of spec.to, spec.from or spec.rules must have an element"},
		},
		{
			name: "an app-namespace policy mixing to and from",
			doc:  "MeshTimeout|kuma-demo|  to:\n  - {targetRef: {kind: Mesh}, default: {idleTimeout: 1s}}\n  from:\n  - {targetRef: {kind: Mesh}, default: {idleTimeout: 1s}}\n",
			want: []string{"spec.from: Forbidden: a policy outside kuma-system must not mix spec.to and spec.from: split it in two"},
		},
		{
			name: "MeshGateway top level only in the system namespace",
			doc:  "MeshTimeout|kuma-demo|  targetRef: {kind: MeshGateway, name: gw}\n  to:\n  - {targetRef: {kind: Mesh}, default: {idleTimeout: 1s}}\n",
			want: []string{`spec.targetRef.kind: Unsupported value: "MeshGateway": supported values: "Mesh", "Dataplane", "MeshSubset", "MeshService", "MeshServiceSubset"`},
		},
		{
			name: "name on a Mesh ref, labels with a name on a Dataplane ref",
			doc:  "MeshTimeout|kuma-system|  targetRef: {kind: Dataplane, name: a, labels: {app: web}}\n  to:\n  - {targetRef: {kind: Mesh, name: x}, default: {idleTimeout: 1s}}\n",
			want: []string{"spec.targetRef.labels: Forbidden: set either labels, or name and namespace", "spec.to[0].targetRef.name: Forbidden: must not be set when kind is Mesh"},
		},
		{
			name: "rules are accepted alone",
			doc:  "MeshTrafficPermission|kuma-system|  rules:\n  - default: {allow: [{spiffeID: {type: Exact, value: spiffe://a/b}}]}\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			parts := splitDoc(tt.doc)
			_, errs := Parse(obj(t, sprintf(head, parts[0], parts[1])+parts[2]))
			var got []string
			for _, e := range errs {
				got = append(got, e.Error())
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}

// TestKumaShadowedExamples: on the kuma.io examples, the MADR's 01-consume-backend-timeouts never
// takes effect (00-base-timeouts, whose name sorts first, sets its fields on every proxy), and
// deny-web-v1 and shadow-web lose to allow-all. Kuma 2.14 (3.0: TestKumaToItemOrder).
func TestKumaShadowedExamples(t *testing.T) {
	policies, dps := load(t, "testdata/kuma")
	var got []string
	for _, w := range ShadowedAt(Kuma214, policies, dps) {
		got = append(got, w.String())
	}
	want := []string{
		"PRC-W014 MeshTimeout kuma-system/01-consume-backend-timeouts never takes effect on any Dataplane: every field it sets is decided by kuma-system/web-timeouts, kuma-demo/timeout-global, kuma-system/00-base-timeouts",
		"PRC-W014 MeshTrafficPermission kuma-system/deny-web-v1 never takes effect on any Dataplane: every field it sets is decided by kuma-system/allow-all",
		"PRC-W014 MeshTrafficPermission kuma-system/shadow-web never takes effect on any Dataplane: every field it sets is decided by kuma-system/allow-all",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Shadowed (-want +got):\n%s", diff)
	}
	for _, kind := range []string{kumaTimeout, kumaPermission} {
		x := NewIndexAt(Kuma214, kind, policies, dps)
		for _, p := range policies {
			if p.GroupKind() != kind {
				continue
			}
			if diff := cmp.Diff(WriteWarningsAt(Kuma214, p, policies, dps, true), x.WriteWarnings(p, true)); diff != "" {
				t.Errorf("index on %s %s (-want +got):\n%s", kind, p.Name, diff)
			}
		}
	}
}
