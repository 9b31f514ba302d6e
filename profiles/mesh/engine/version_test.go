package engine

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestMergePermissionVersions: a MeshTrafficPermission with rules and one with from items on one
// inbound, per Kuma version. On 2.14 the rules decide alone (plugin.go at v2.14.3 builds the RBAC
// from the rules and calls configureLegacyRules only for an inbound no rules select); on 3.0 both
// count, every deny before any allow (#18774).
func TestMergePermissionVersions(t *testing.T) {
	_, dps := load(t, "testdata/kumarules")
	backend := find(t, dps, "backend-1")
	mtp := func(name, spec string) Policy { return kumaRule(t, KindMeshTrafficPermission, name, "", spec) }
	allowZone := mtp("allow-zone", `{targetRef: {kind: Mesh}, rules: [{default: {allow: [{spiffeID: {type: Prefix, value: "spiffe://default.zone-1.mesh.local"}}]}}]}`)
	denyWeb := mtp("deny-web", `{targetRef: {kind: Mesh}, from: [{targetRef: {kind: MeshService, name: web}, default: {action: Deny}}]}`)
	allowWeb := mtp("allow-web", `{targetRef: {kind: Mesh}, from: [{targetRef: {kind: MeshService, name: web}, default: {action: Allow}}]}`)
	denyObs := mtp("deny-observability", `{targetRef: {kind: Mesh}, rules: [{default: {deny: [{spiffeID: {type: Prefix, value: "spiffe://default.zone-1.mesh.local/ns/observability"}}]}}]}`)
	web := &Source{SpiffeID: "spiffe://default.zone-1.mesh.local/ns/web/sa/web"}
	prom := &Source{SpiffeID: "spiffe://default.zone-1.mesh.local/ns/observability/sa/prom"}
	other := &Source{SpiffeID: "spiffe://other.mesh.local/ns/web/sa/web"}
	webTags := &Selector{Service: "web", Tags: map[string]string{ServiceTag: "web"}}
	action := permissionAction
	tests := []struct {
		name     string
		policies []Policy
		src      *Source
		from     *Selector
		want     map[Version]Result
	}{
		{
			name: "a from deny beside a rules allow: ignored on 2.14, denies on 3.0", policies: []Policy{allowZone, denyWeb}, src: web, from: webTags,
			want: map[Version]Result{Kuma214: action("Allow", "allow-zone"), Kuma30: action("Deny", "deny-web")},
		},
		{
			name: "a from allow beside rules that allow nothing for the client: 3.0 allows", policies: []Policy{denyObs, allowWeb}, src: web, from: webTags,
			want: map[Version]Result{Kuma214: action("Deny", ""), Kuma30: action("Allow", "allow-web")},
		},
		{
			name: "a rules deny beats a from allow on both", policies: []Policy{denyObs, allowWeb}, src: prom, from: webTags,
			want: map[Version]Result{Kuma214: action("Deny", "deny-observability"), Kuma30: action("Deny", "deny-observability")},
		},
		{
			name: "no rules: the from items decide on both", policies: []Policy{allowWeb}, from: webTags,
			want: map[Version]Result{Kuma214: action("Allow", "allow-web"), Kuma30: action("Allow", "allow-web")},
		},
		{
			name: "nothing selects the client: denied by default on both", policies: []Policy{allowZone}, src: other,
			want: map[Version]Result{Kuma214: action("Deny", ""), Kuma30: action("Deny", "")},
		},
	}
	for _, tt := range tests {
		for _, v := range Versions {
			t.Run(string(v)+"/"+tt.name, func(t *testing.T) {
				got := MergePermission(v, kumaPermission, tt.policies, backend, tt.src, tt.from)
				if diff := cmp.Diff(tt.want[v], got); diff != "" {
					t.Errorf("MergePermission (-want +got):\n%s", diff)
				}
			})
		}
	}
}

// TestDataplaneShapeVersions: an inbound of only a port and a name (Kuma 3.0's shape) is read; Kuma
// 2.14's validator requires kuma.io/service on it (validateNetworking at v2.14.3), master's does not.
func TestDataplaneShapeVersions(t *testing.T) {
	tests := []struct {
		name string
		doc  string
		want map[Version]string // the CheckShape error, "" for none
	}{
		{
			name: "an inbound with only port and name",
			doc:  `{apiVersion: kuma.io/v1alpha1, kind: Dataplane, metadata: {name: dp-1, namespace: kuma-system}, spec: {networking: {address: 10.0.0.1, inbound: [{port: 8080, name: http}]}}}`,
			want: map[Version]string{Kuma214: "spec.networking.inbound[0].tags[kuma.io/service]: Required value (Kuma 2.14; Kuma 3.0 reads inbounds without it)", Kuma30: ""},
		},
		{
			name: "an inbound with the service tag",
			doc:  `{apiVersion: kuma.io/v1alpha1, kind: Dataplane, metadata: {name: dp-1, namespace: kuma-system}, spec: {networking: {address: 10.0.0.1, inbound: [{port: 8080, tags: {kuma.io/service: web}}]}}}`,
			want: map[Version]string{Kuma214: "", Kuma30: ""},
		},
	}
	for _, tt := range tests {
		dp, err := ParseDataplane(obj(t, tt.doc))
		if err != nil {
			t.Fatalf("%s: ParseDataplane: %v", tt.name, err)
		}
		for _, v := range Versions {
			got := ""
			if err := dp.CheckShape(v); err != nil {
				got = err.Error()
			}
			if got != tt.want[v] {
				t.Errorf("%s on %s: CheckShape = %q, want %q", tt.name, v, got, tt.want[v])
			}
		}
		if src := Sources([]Dataplane{dp}); tt.want[Kuma214] != "" && len(src) != 0 {
			t.Errorf("%s: an untagged inbound is no source, got %v", tt.name, src)
		}
	}
}

// TestVersionOf: "" is the newest; an unknown name is refused naming the known ones.
func TestVersionOf(t *testing.T) {
	for in, want := range map[string]string{"": "3.0", "2.14": "2.14", "3.0": "3.0", "2.9": `unknown Kuma version "2.9": the known versions are 2.14 and 3.0`} {
		v, err := VersionOf(in)
		got := string(v)
		if err != nil {
			got = err.Error()
		}
		if got != want {
			t.Errorf("VersionOf(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestSelectsProxyZoneAndDelegated: a Dataplane targetRef by name compares the zone too (Kuma's
// resource identifiers: isSelectedByResourceIdentifier, TargetRefToKRI, v2.14.3), and a delegated
// gateway is selected by a MeshService naming the service of its gateway tags
// (inboundsSelectedByTags, v2.14.3); a builtin gateway is not.
func TestSelectsProxyZoneAndDelegated(t *testing.T) {
	dp := func(doc string) Dataplane {
		d, err := ParseDataplane(obj(t, doc))
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	local := dp(`{apiVersion: kuma.io/v1alpha1, kind: Dataplane, metadata: {name: api-1, namespace: kong-mesh-demo, labels: {kuma.io/zone: zone-1}}, spec: {networking: {address: 10.0.0.1, inbound: [{port: 8080, tags: {kuma.io/service: api}}]}}}`)
	delegated := dp(`{apiVersion: kuma.io/v1alpha1, kind: Dataplane, metadata: {name: edge-1, namespace: kong-mesh-demo}, spec: {networking: {address: 10.0.0.2, gateway: {tags: {kuma.io/service: edge}}}}}`)
	builtin := dp(`{apiVersion: kuma.io/v1alpha1, kind: Dataplane, metadata: {name: edge-2, namespace: kong-mesh-demo}, spec: {networking: {address: 10.0.0.3, gateway: {type: BUILTIN, tags: {kuma.io/service: edge}}}}}`)
	mt := func(labels, targetRef string) Policy {
		return kumaRule(t, KindMeshTimeout, "p", labels, `{targetRef: `+targetRef+`, to: [{targetRef: {kind: Mesh}, default: {idleTimeout: 1s}}]}`)
	}
	tests := []struct {
		name   string
		policy Policy
		proxy  Dataplane
		want   bool
	}{
		{"a Dataplane by name of the same zone", mt(", kuma.io/zone: zone-1", `{kind: Dataplane, name: api-1, namespace: kong-mesh-demo}`), local, true},
		{"a Dataplane by name synced from another zone", mt(", kuma.io/zone: zone-2", `{kind: Dataplane, name: api-1, namespace: kong-mesh-demo}`), local, false},
		{"a Dataplane by name from no zone, the proxy in one", mt("", `{kind: Dataplane, name: api-1, namespace: kong-mesh-demo}`), local, false},
		{"a Dataplane by labels ignores the zone", mt(", kuma.io/zone: zone-2", `{kind: Dataplane, labels: {kuma.io/zone: zone-1}}`), local, true},
		{"a MeshService naming a delegated gateway's service", mt("", `{kind: MeshService, name: edge}`), delegated, true},
		{"a MeshService naming another service", mt("", `{kind: MeshService, name: api}`), delegated, false},
		{"a MeshService naming a builtin gateway's service", mt("", `{kind: MeshService, name: edge}`), builtin, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.policy.SelectsProxy(&tt.proxy); got != tt.want {
				t.Errorf("SelectsProxy = %t, want %t", got, tt.want)
			}
		})
	}
}

// kumaTimeoutTo is a system MeshTimeout (namespace kuma-system) with top-level targetRef top and
// the to items given in YAML flow style.
func kumaTimeoutTo(t *testing.T, name, top string, items ...string) Policy {
	t.Helper()
	doc := "apiVersion: kuma.io/v1alpha1\nkind: MeshTimeout\nmetadata: {name: " + name + ", namespace: kuma-system}\nspec:\n  targetRef: " + top + "\n  to:\n"
	for _, it := range items {
		doc += "  - " + it + "\n"
	}
	return policy(t, doc)
}

// TestKumaToItemOrder: the to items of the policies on one outbound, per Kuma version. Kuma 3.0
// merges every outbound with outbound.buildRules, which sorts all the items of all the policies
// together (Sort and CompareByToEntry in pkg/plugins/policies/core/rules/outbound/sort.go): the
// policies' attributes first, then the item's own targetRef kind, then the display name. Kuma 2.14
// merges an outbound named by kuma.io/service tags with legacyBuildToRules (rules.go at v2.14.3):
// policy by policy in SortByTargetRef order, each policy's items in its own order, the later
// winning.
func TestKumaToItemOrder(t *testing.T) {
	examples, dps := load(t, "testdata/kuma")
	web := find(t, dps, "web-v1")
	dp := proxy("web-1", map[string]string{ServiceTag: "web"}, "backend")
	mesh := func(d string) string { return "{targetRef: {kind: Mesh}, default: {connectionTimeout: " + d + "}}" }
	svc := func(d string) string {
		return "{targetRef: {kind: MeshService, name: backend}, default: {connectionTimeout: " + d + "}}"
	}
	connect := func(v, by string) Result {
		return Result{Conf: map[string]interface{}{"connectionTimeout": v}, Origins: map[string]string{"connectionTimeout": by}}
	}
	tests := []struct {
		name     string
		policies []Policy
		proxy    Dataplane
		want     map[Version]Result
	}{
		{
			name: "a MeshService item of one Mesh-wide policy beats a Mesh item of another whose name wins: 3.0 only",
			policies: []Policy{kumaTimeoutTo(t, "a-everything", "{kind: Mesh}", mesh("1s")),
				kumaTimeoutTo(t, "b-backend", "{kind: Mesh}", svc("2s"))},
			proxy: dp,
			want:  map[Version]Result{Kuma214: connect("1s", "a-everything"), Kuma30: connect("2s", "b-backend")},
		},
		{
			name:     "one policy, a MeshService item then a Mesh item: the later wins on 2.14, the MeshService item on 3.0",
			policies: []Policy{kumaTimeoutTo(t, "p", "{kind: Mesh}", svc("1s"), mesh("2s"))},
			proxy:    dp,
			want:     map[Version]Result{Kuma214: connect("2s", "p"), Kuma30: connect("1s", "p")},
		},
		{
			name: "the top-level targetRef still decides first: a MeshService-level policy's Mesh item beats a Mesh-level policy's MeshService item",
			policies: []Policy{kumaTimeoutTo(t, "a-backend", "{kind: Mesh}", svc("1s")),
				kumaTimeoutTo(t, "z-web", "{kind: MeshService, name: web}", mesh("2s"))},
			proxy: dp,
			want:  map[Version]Result{Kuma214: connect("2s", "z-web"), Kuma30: connect("2s", "z-web")},
		},
		{
			name: "items of one kind: the display name that sorts first wins on both",
			policies: []Policy{kumaTimeoutTo(t, "b-backend", "{kind: Mesh}", svc("2s")),
				kumaTimeoutTo(t, "a-backend", "{kind: Mesh}", svc("1s"))},
			proxy: dp,
			want:  map[Version]Result{Kuma214: connect("1s", "a-backend"), Kuma30: connect("1s", "a-backend")},
		},
		{
			name:     "the MADR's example as kuma.io: 01-consume-backend-timeouts' MeshService item sets idleTimeout on 3.0",
			policies: without(examples, "timeout-global"),
			proxy:    web,
			want: map[Version]Result{
				Kuma214: {Conf: map[string]interface{}{"connectionTimeout": "5s", "idleTimeout": "1h", "http": map[string]interface{}{"requestTimeout": "15s"}},
					Origins: map[string]string{"connectionTimeout": "web-timeouts", "idleTimeout": "00-base-timeouts", "http.requestTimeout": "web-timeouts"}},
				Kuma30: {Conf: map[string]interface{}{"connectionTimeout": "5s", "idleTimeout": "0s", "http": map[string]interface{}{"requestTimeout": "15s"}},
					Origins: map[string]string{"connectionTimeout": "web-timeouts", "idleTimeout": "01-consume-backend-timeouts", "http.requestTimeout": "web-timeouts"}},
			},
		},
	}
	for _, tt := range tests {
		for _, v := range Versions {
			t.Run(string(v)+"/"+tt.name, func(t *testing.T) {
				got := MergeAt(v, kumaTimeout, tt.policies, tt.proxy, To, Selector{Service: "backend"})
				if diff := cmp.Diff(tt.want[v], got); diff != "" {
					t.Errorf("MergeAt (-want +got):\n%s", diff)
				}
				x := NewIndexAt(v, kumaTimeout, tt.policies, []Dataplane{tt.proxy})
				for _, p := range tt.policies {
					if diff := cmp.Diff(WriteWarningsAt(v, p, tt.policies, []Dataplane{tt.proxy}, true), x.WriteWarnings(p, true)); diff != "" {
						t.Errorf("index on %s (-plain +index):\n%s", p.Name, diff)
					}
				}
			})
		}
	}
}

// TestKumaToSectionName: a to item's sectionName (one port of a MeshService), per Kuma version. On
// 3.0 an outbound is a MeshService port: an item with a sectionName selects only the outbound to the
// port of that name (Port.GetName: its name, else its number), and beats an item without one
// (CompareByToEntry in core/rules/outbound/sort.go; isRelevant in outbound/resourcerules.go). Kuma
// 2.14's tag rules read the item as its kuma.io/service alone (asSubset in core/rules/rules.go at
// v2.14.3): the sectionName is not looked at.
func TestKumaToSectionName(t *testing.T) {
	dp := proxy("web-1", map[string]string{ServiceTag: "web"}, "backend")
	item := func(section, d string) string {
		return "{targetRef: {kind: MeshService, name: backend" + section + "}, default: {connectionTimeout: " + d + "}}"
	}
	connect := func(v, by string) Result {
		return Result{Conf: map[string]interface{}{"connectionTimeout": v}, Origins: map[string]string{"connectionTimeout": by}}
	}
	whole := kumaTimeoutTo(t, "a-backend", "{kind: Mesh}", item("", "1s"))
	onHTTP := kumaTimeoutTo(t, "b-backend-http", "{kind: Mesh}", item(", sectionName: http", "2s"))
	on8080 := kumaTimeoutTo(t, "b-backend-8080", "{kind: Mesh}", item(", sectionName: \"8080\"", "3s"))
	tests := []struct {
		name     string
		policies []Policy
		section  string
		want     map[Version]Result
	}{
		{
			name: "the outbound to the named port: the sectionName item wins on 3.0, the smaller name on 2.14", policies: []Policy{whole, onHTTP}, section: "http",
			want: map[Version]Result{Kuma214: connect("1s", "a-backend"), Kuma30: connect("2s", "b-backend-http")},
		},
		{
			name: "the outbound to another port: only the item without a sectionName on 3.0", policies: []Policy{whole, onHTTP}, section: "grpc",
			want: map[Version]Result{Kuma214: connect("1s", "a-backend"), Kuma30: connect("1s", "a-backend")},
		},
		{
			name: "an unnamed port is named by its number", policies: []Policy{whole, on8080}, section: "8080",
			want: map[Version]Result{Kuma214: connect("1s", "a-backend"), Kuma30: connect("3s", "b-backend-8080")},
		},
		{
			name: "an outbound whose port is not known: a sectionName item selects it only on 2.14", policies: []Policy{onHTTP},
			want: map[Version]Result{Kuma214: connect("2s", "b-backend-http"), Kuma30: {Conf: map[string]interface{}{}, Origins: map[string]string{}}},
		},
	}
	for _, tt := range tests {
		for _, v := range Versions {
			t.Run(string(v)+"/"+tt.name, func(t *testing.T) {
				got := MergeAt(v, kumaTimeout, tt.policies, dp, To, Selector{Service: "backend", Section: tt.section})
				if diff := cmp.Diff(tt.want[v], got); diff != "" {
					t.Errorf("MergeAt (-want +got):\n%s", diff)
				}
			})
		}
	}
}

// TestKumaToServiceLabels: a to item naming MeshServices only by labels, per Kuma version. Kuma 3.0
// resolves it to the MeshServices of the policy's mesh that carry all the labels (resolve.TargetRef
// in core/rules/resolve/targetref.go, byLabels), so it selects the outbounds to them, as a
// MeshService item, more specific than a Mesh item. Kuma 2.14's tag rules read a MeshService by its
// name (asSubset): a ref without one selects nothing there.
func TestKumaToServiceLabels(t *testing.T) {
	services := []ServiceObject{
		{Namespace: "kuma-demo", Name: "backend", Labels: map[string]string{"team": "payments", "tier": "api"}},
		{Namespace: "kuma-demo", Name: "billing", Labels: map[string]string{"team": "payments"}},
		{Namespace: "kuma-demo", Name: "search", Labels: map[string]string{"team": "discovery"}, Mesh: "other"},
	}
	dp := proxy("web-1", map[string]string{ServiceTag: "web"}, "backend", "billing", "search")
	byLabels := func(name, labels, d string) Policy {
		return kumaTimeoutTo(t, name, "{kind: Mesh}", "{targetRef: {kind: MeshService, labels: {"+labels+"}}, default: {connectionTimeout: "+d+"}}")
	}
	everything := kumaTimeoutTo(t, "a-everything", "{kind: Mesh}", "{targetRef: {kind: Mesh}, default: {connectionTimeout: 1s}}")
	connect := func(v, by string) Result {
		return Result{Conf: map[string]interface{}{"connectionTimeout": v}, Origins: map[string]string{"connectionTimeout": by}}
	}
	tests := []struct {
		name     string
		policies []Policy
		outbound string
		want     map[Version]Result
	}{
		{
			name: "the labels select the outbound's MeshService: the item beats a Mesh item on 3.0", policies: []Policy{everything, byLabels("b-payments", "team: payments", "3s")}, outbound: "billing",
			want: map[Version]Result{Kuma214: connect("1s", "a-everything"), Kuma30: connect("3s", "b-payments")},
		},
		{
			name: "every label must match", policies: []Policy{everything, byLabels("b-payments-api", "team: payments, tier: api", "3s")}, outbound: "billing",
			want: map[Version]Result{Kuma214: connect("1s", "a-everything"), Kuma30: connect("1s", "a-everything")},
		},
		{
			name: "a MeshService of another mesh is not selected", policies: []Policy{everything, byLabels("b-discovery", "team: discovery", "3s")}, outbound: "search",
			want: map[Version]Result{Kuma214: connect("1s", "a-everything"), Kuma30: connect("1s", "a-everything")},
		},
	}
	for _, tt := range tests {
		for _, v := range Versions {
			t.Run(string(v)+"/"+tt.name, func(t *testing.T) {
				resolved := ResolveServices(tt.policies, services)
				got := MergeAt(v, kumaTimeout, resolved, dp, To, Selector{Service: tt.outbound})
				if diff := cmp.Diff(tt.want[v], got); diff != "" {
					t.Errorf("MergeAt (-want +got):\n%s", diff)
				}
				x := NewIndexAt(v, kumaTimeout, resolved, []Dataplane{dp})
				for _, p := range resolved {
					if diff := cmp.Diff(WriteWarningsAt(v, p, resolved, []Dataplane{dp}, true), x.WriteWarnings(p, true)); diff != "" {
						t.Errorf("index on %s (-plain +index):\n%s", p.Name, diff)
					}
				}
			})
		}
	}
	if tt := tests[0].policies; tt[1].To[0].TargetRef.Services != nil {
		t.Errorf("ResolveServices changed the policies it was given: %v", tt[1].To[0].TargetRef.Services)
	}
}

// TestOutboundBackendRef: an outbound of Kuma's MeshService shape (a backendRef instead of tags,
// Dataplane_Networking_Outbound.BackendRef in api/mesh/v1alpha1/dataplane.proto) is an outbound to
// the MeshService it names; its tags, when set, keep their service.
func TestOutboundBackendRef(t *testing.T) {
	tests := []struct {
		name     string
		outbound string
		want     []map[string]string
	}{
		{"a backendRef to a MeshService", "{port: 10001, backendRef: {kind: MeshService, name: backend, port: 8080}}", []map[string]string{{ServiceTag: "backend"}}},
		{"tags win over a backendRef", "{port: 10001, tags: {kuma.io/service: legacy}, backendRef: {kind: MeshService, name: backend}}", []map[string]string{{ServiceTag: "legacy"}}},
		{"a backendRef of another kind names no service", "{port: 10001, backendRef: {kind: MeshExternalService, name: ext}}", []map[string]string{{}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dp, err := ParseDataplane(obj(t, "{apiVersion: kuma.io/v1alpha1, kind: Dataplane, metadata: {name: web-1}, spec: {networking: {outbound: ["+tt.outbound+"]}}}"))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, dp.Outbound); diff != "" {
				t.Errorf("outbounds (-want +got):\n%s", diff)
			}
		})
	}
}
