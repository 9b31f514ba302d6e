package engine

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// kumaRule writes a kuma.io policy of the demo namespace: kind, name, extra labels ("k: v, …"),
// and the spec in YAML flow style.
func kumaRule(t testing.TB, kind, name, labels, spec string) Policy {
	t.Helper()
	return policy(t, `
apiVersion: kuma.io/v1alpha1
kind: `+kind+`
metadata: {name: `+name+`, namespace: kong-mesh-demo, labels: {kuma.io/mesh: default`+labels+`}}
spec: `+spec)
}

func conf(kv ...interface{}) map[string]interface{} {
	out := map[string]interface{}{}
	for i := 0; i+1 < len(kv); i += 2 {
		out[kv[i].(string)] = kv[i+1]
	}
	return out
}

// TestKumaRulesTimeout takes Kuma's `rules` examples through kuma.io MeshTimeouts, in the order of
// Kuma's own tests (pkg/plugins/policies/core/rules/inbound/testdata/inboundrules, v2.14: mt-mixed,
// mt-order-by-origin, mt-order-by-role, mt-rules), then its docs ("Set timeouts for requests a
// service receives") and the source-conditioned routes of meshtimeout/plugin/xds/configurer.go.
func TestKumaRulesTimeout(t *testing.T) {
	_, dps := load(t, "testdata/kumarules")
	backend := find(t, dps, "backend-1")
	mt := func(name, labels, spec string) Policy { return kumaRule(t, KindMeshTimeout, name, labels, spec) }
	tests := []struct {
		name      string
		policies  []Policy
		src       *Source
		wantOrder []string // InboundRules: policy and path, Kuma's order
		want      Result
	}{
		{
			name: "mt-mixed: from items of one policy read as rules among the rules of others, the smaller name wins",
			policies: []Policy{
				mt("matched-for-rules-mt-aaaaaa", "", `{rules: [{default: {idleTimeout: 10s}}]}`),
				mt("matched-for-rules-mt-bbbbbb", "", `{from: [{targetRef: {kind: Mesh}, default: {idleTimeout: 100s, connectionTimeout: 101s}}]}`),
				mt("matched-for-rules-mt-cccccc", "", `{rules: [{default: {idleTimeout: 200s, http: {requestTimeout: 202s}}}]}`),
			},
			wantOrder: []string{"matched-for-rules-mt-cccccc spec.rules[0]", "matched-for-rules-mt-bbbbbb spec.from[0]", "matched-for-rules-mt-aaaaaa spec.rules[0]"},
			want: Result{
				Conf:    conf("idleTimeout", "10s", "connectionTimeout", "101s", "http", conf("requestTimeout", "202s")),
				Origins: map[string]string{"idleTimeout": "matched-for-rules-mt-aaaaaa", "connectionTimeout": "matched-for-rules-mt-bbbbbb", "http.requestTimeout": "matched-for-rules-mt-cccccc"},
			},
		},
		{
			name: "mt-order-by-origin: a zone policy over one of unknown origin over a global one",
			policies: []Policy{
				mt("matched-for-rules-ccc", ", kuma.io/origin: zone", `{rules: [{default: {connectionTimeout: 111s, idleTimeout: 109s}}]}`),
				mt("matched-for-rules-bbb", "", `{rules: [{default: {connectionTimeout: 211s, http: {requestTimeout: 209s}}}]}`),
				mt("matched-for-rules-aaa", ", kuma.io/origin: global", `{rules: [{default: {connectionTimeout: 11s, http: {requestTimeout: 12s}}}]}`),
			},
			wantOrder: []string{"matched-for-rules-aaa spec.rules[0]", "matched-for-rules-bbb spec.rules[0]", "matched-for-rules-ccc spec.rules[0]"},
			want: Result{
				Conf:    conf("connectionTimeout", "111s", "idleTimeout", "109s", "http", conf("requestTimeout", "209s")),
				Origins: map[string]string{"connectionTimeout": "matched-for-rules-ccc", "idleTimeout": "matched-for-rules-ccc", "http.requestTimeout": "matched-for-rules-bbb"},
			},
		},
		{
			name: "mt-order-by-role: consumer over producer over system",
			policies: []Policy{
				mt("matched-for-rules-ccc", ", kuma.io/policy-role: consumer", `{rules: [{default: {connectionTimeout: 111s, idleTimeout: 109s}}]}`),
				mt("matched-for-rules-bbb", ", kuma.io/policy-role: producer", `{rules: [{default: {connectionTimeout: 211s, http: {requestTimeout: 209s}}}]}`),
				mt("matched-for-rules-aaa", ", kuma.io/policy-role: system", `{rules: [{default: {connectionTimeout: 11s, http: {requestTimeout: 12s}}}]}`),
			},
			wantOrder: []string{"matched-for-rules-aaa spec.rules[0]", "matched-for-rules-bbb spec.rules[0]", "matched-for-rules-ccc spec.rules[0]"},
			want: Result{
				Conf:    conf("connectionTimeout", "111s", "idleTimeout", "109s", "http", conf("requestTimeout", "209s")),
				Origins: map[string]string{"connectionTimeout": "matched-for-rules-ccc", "idleTimeout": "matched-for-rules-ccc", "http.requestTimeout": "matched-for-rules-bbb"},
			},
		},
		{
			name: "mt-rules: of two policies with rules at one level, the smaller name is merged last and wins",
			policies: []Policy{
				mt("matched-for-rules-mt-aaaaaa", "", `{rules: [{default: {idleTimeout: 10s, http: {requestTimeout: 12s}}}]}`),
				mt("matched-for-rules-mt-bbbbbb", "", `{rules: [{default: {idleTimeout: 100s, connectionTimeout: 101s, http: {requestTimeout: 102s}}}]}`),
			},
			wantOrder: []string{"matched-for-rules-mt-bbbbbb spec.rules[0]", "matched-for-rules-mt-aaaaaa spec.rules[0]"},
			want: Result{
				Conf:    conf("connectionTimeout", "101s", "idleTimeout", "10s", "http", conf("requestTimeout", "12s")),
				Origins: map[string]string{"connectionTimeout": "matched-for-rules-mt-bbbbbb", "idleTimeout": "matched-for-rules-mt-aaaaaa", "http.requestTimeout": "matched-for-rules-mt-aaaaaa"},
			},
		},
		{
			name: "docs, inbound timeouts: a Dataplane policy by labels over a Mesh-wide one, whatever the names",
			policies: []Policy{
				mt("backend-inbound", "", `{targetRef: {kind: Dataplane, labels: {app: backend}}, rules: [{default: {connectionTimeout: 10s, idleTimeout: 2h, http: {requestTimeout: 30s}}}]}`),
				mt("a-mesh-wide", "", `{targetRef: {kind: Mesh}, rules: [{default: {idleTimeout: 1h, http: {requestTimeout: 5s, streamIdleTimeout: 30m}}}]}`),
			},
			wantOrder: []string{"a-mesh-wide spec.rules[0]", "backend-inbound spec.rules[0]"},
			want: Result{
				Conf:    conf("connectionTimeout", "10s", "idleTimeout", "2h", "http", conf("requestTimeout", "30s", "streamIdleTimeout", "30m")),
				Origins: map[string]string{"connectionTimeout": "backend-inbound", "idleTimeout": "backend-inbound", "http.requestTimeout": "backend-inbound", "http.streamIdleTimeout": "a-mesh-wide"},
			},
		},
		{
			name: "rules with SPIFFE ID matches sort first, Exact before Prefix, and give a matching client its route timeouts",
			policies: []Policy{
				mt("backend-inbound", "", `{rules: [
  {default: {idleTimeout: 1h, http: {requestTimeout: 30s, streamIdleTimeout: 5m}}},
  {matches: [{spiffeID: {type: Prefix, value: "spiffe://zone-1.mesh.local/ns/batch"}}], default: {http: {requestTimeout: 5m}}},
  {matches: [{spiffeID: {type: Exact, value: "spiffe://zone-1.mesh.local/ns/batch/sa/nightly"}}], default: {http: {streamIdleTimeout: 1h}}}]}`),
			},
			src:       &Source{SpiffeID: "spiffe://zone-1.mesh.local/ns/batch/sa/nightly"},
			wantOrder: []string{"backend-inbound spec.rules[2]", "backend-inbound spec.rules[1]", "backend-inbound spec.rules[0]"},
			want: Result{
				Conf:    conf("idleTimeout", "1h", "http", conf("requestTimeout", "5m", "streamIdleTimeout", "1h")),
				Origins: map[string]string{"idleTimeout": "backend-inbound", "http.requestTimeout": "backend-inbound", "http.streamIdleTimeout": "backend-inbound"},
			},
		},
		{
			name: "a client no match selects gets the catch-all timeouts",
			policies: []Policy{
				mt("backend-inbound", "", `{rules: [
  {default: {http: {requestTimeout: 30s}}},
  {matches: [{spiffeID: {type: Prefix, value: "spiffe://zone-1.mesh.local/ns/batch"}}], default: {http: {requestTimeout: 5m}}}]}`),
			},
			src:       &Source{SpiffeID: "spiffe://zone-1.mesh.local/ns/web/sa/default"},
			wantOrder: []string{"backend-inbound spec.rules[1]", "backend-inbound spec.rules[0]"},
			want:      Result{Conf: conf("http", conf("requestTimeout", "30s")), Origins: map[string]string{"http.requestTimeout": "backend-inbound"}},
		},
		{
			name: "the route of the longer prefix comes first; the shorter one still fills what it leaves",
			policies: []Policy{
				mt("b-batch", "", `{rules: [{matches: [{spiffeID: {type: Prefix, value: "spiffe://zone-1.mesh.local/ns"}}], default: {http: {requestTimeout: 1m, streamIdleTimeout: 2m}}}]}`),
				mt("a-nightly", "", `{rules: [{matches: [{spiffeID: {type: Prefix, value: "spiffe://zone-1.mesh.local/ns/batch"}}], default: {http: {requestTimeout: 5m}}}]}`),
			},
			src:       &Source{SpiffeID: "spiffe://zone-1.mesh.local/ns/batch/sa/x"},
			wantOrder: []string{"b-batch spec.rules[0]", "a-nightly spec.rules[0]"},
			want: Result{
				Conf:    conf("http", conf("requestTimeout", "5m", "streamIdleTimeout", "2m")),
				Origins: map[string]string{"http.requestTimeout": "a-nightly", "http.streamIdleTimeout": "b-batch"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var order []string
			for _, r := range InboundRules(kumaTimeout, tt.policies, &backend) {
				order = append(order, r.Policy.Name+" "+r.Path)
			}
			if diff := cmp.Diff(tt.wantOrder, order); diff != "" {
				t.Errorf("InboundRules order (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.want, MergeInbound(kumaTimeout, tt.policies, backend, tt.src)); diff != "" {
				t.Errorf("MergeInbound (-want +got):\n%s", diff)
			}
		})
	}
}

// TestKumaRulesPermission takes the examples of Kuma's MeshTrafficPermission docs (rules with
// SPIFFE ID matchers, v2.12+) through kuma.io kinds, in the docs' order: deny a namespace, allow a
// namespace, exclude a namespace from a broader allow, shadow-deny before enforcing; then SNI.
func TestKumaRulesPermission(t *testing.T) {
	_, dps := load(t, "testdata/kumarules")
	backend := find(t, dps, "backend-1")
	mtp := func(name, spec string) Policy { return kumaRule(t, KindMeshTrafficPermission, name, "", spec) }
	denyMalicious := mtp("deny-malicious-ns", `{rules: [{default: {deny: [{spiffeID: {type: Prefix, value: "spiffe://default.default.mesh.local/ns/malicious"}}]}}]}`)
	allowObservability := mtp("allow-observability-ns", `{rules: [{default: {allow: [{spiffeID: {type: Prefix, value: "spiffe://default.default.mesh.local/ns/observability"}}]}}]}`)
	exclude := mtp("deny-malicious-sa", `{targetRef: {kind: Mesh}, rules: [{default: {
  deny: [{spiffeID: {type: Prefix, value: "spiffe://default.zone-1.mesh.local/ns/malicious/sa"}}],
  allow: [{spiffeID: {type: Prefix, value: "spiffe://default.zone-1.mesh.local"}}]}}]}`)
	shadow := mtp("shadow-deny-legacy", `{targetRef: {kind: Dataplane, labels: {app: backend}}, rules: [{default: {
  allowWithShadowDeny: [{spiffeID: {type: Prefix, value: "spiffe://default.zone-1.mesh.local/ns/legacy/sa"}}],
  allow: [{spiffeID: {type: Prefix, value: "spiffe://default.zone-1.mesh.local"}}]}}]}`)
	sni := mtp("allow-sni", `{rules: [{default: {allow: [{spiffeID: {type: Exact, value: "spiffe://default.zone-1.mesh.local/ns/web/sa/web"}, sni: {type: Exact, value: "backend.kong-mesh-demo.svc"}}]}}]}`)
	action := permissionAction
	tests := []struct {
		name     string
		policies []Policy
		src      Source
		want     Result
	}{
		{"deny a namespace: a client of it is denied", []Policy{denyMalicious}, Source{SpiffeID: "spiffe://default.default.mesh.local/ns/malicious/sa/x"}, action("Deny", "deny-malicious-ns")},
		{"deny a namespace: with no allow, any other client is denied by default", []Policy{denyMalicious}, Source{SpiffeID: "spiffe://default.default.mesh.local/ns/web/sa/x"}, action("Deny", "")},
		{"allow a namespace: a client of it is allowed", []Policy{allowObservability}, Source{SpiffeID: "spiffe://default.default.mesh.local/ns/observability/sa/prom"}, action("Allow", "allow-observability-ns")},
		{"deny and allow in two policies: deny over allow whatever their order", []Policy{allowObservability, mtp("deny-prom", `{rules: [{default: {deny: [{spiffeID: {type: Exact, value: "spiffe://default.default.mesh.local/ns/observability/sa/prom"}}]}}]}`)}, Source{SpiffeID: "spiffe://default.default.mesh.local/ns/observability/sa/prom"}, action("Deny", "deny-prom")},
		{"exclude a namespace from a broader allow: the namespace is denied", []Policy{exclude}, Source{SpiffeID: "spiffe://default.zone-1.mesh.local/ns/malicious/sa/x"}, action("Deny", "deny-malicious-sa")},
		{"exclude a namespace from a broader allow: the rest of the trust domain is allowed", []Policy{exclude}, Source{SpiffeID: "spiffe://default.zone-1.mesh.local/ns/web/sa/x"}, action("Allow", "deny-malicious-sa")},
		{"shadow-deny before enforcing: the legacy namespace is allowed with a shadow deny", []Policy{shadow}, Source{SpiffeID: "spiffe://default.zone-1.mesh.local/ns/legacy/sa/old"}, action("AllowWithShadowDeny", "shadow-deny-legacy")},
		{"shadow-deny before enforcing: others are allowed", []Policy{shadow}, Source{SpiffeID: "spiffe://default.zone-1.mesh.local/ns/web/sa/x"}, action("Allow", "shadow-deny-legacy")},
		{"SNI and SPIFFE ID in one match must both hold", []Policy{sni}, Source{SpiffeID: "spiffe://default.zone-1.mesh.local/ns/web/sa/web", SNI: "other.svc"}, action("Deny", "")},
		{"SNI and SPIFFE ID both holding allow", []Policy{sni}, Source{SpiffeID: "spiffe://default.zone-1.mesh.local/ns/web/sa/web", SNI: "backend.kong-mesh-demo.svc"}, action("Allow", "allow-sni")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := tt.src
			if diff := cmp.Diff(tt.want, MergeInbound(kumaPermission, tt.policies, backend, &src)); diff != "" {
				t.Errorf("MergeInbound (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("all clients: the lists concatenated in Kuma's order", func(t *testing.T) {
		got := MergeInbound(kumaPermission, []Policy{allowObservability, denyMalicious}, backend, nil)
		want := Result{
			Conf: conf(
				"deny", []interface{}{map[string]interface{}{"spiffeID": map[string]interface{}{"type": "Prefix", "value": "spiffe://default.default.mesh.local/ns/malicious"}}},
				"allow", []interface{}{map[string]interface{}{"spiffeID": map[string]interface{}{"type": "Prefix", "value": "spiffe://default.default.mesh.local/ns/observability"}}}),
			Origins: map[string]string{"deny[0]": "deny-malicious-ns", "allow[0]": "allow-observability-ns"},
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("MergeInbound (-want +got):\n%s", diff)
		}
	})
}

// TestKumaRulesValidate: what Kuma's validators reject in rules, with the exact path.
func TestKumaRulesValidate(t *testing.T) {
	tests := []struct {
		name, kind, spec string
		want             []string
	}{
		{"a timeout rule with a spiffeID match sets only route timeouts", KindMeshTimeout,
			`{rules: [{matches: [{spiffeID: {type: Exact, value: "spiffe://td/ns/a"}}], default: {idleTimeout: 1s, http: {requestTimeout: 1s}}}]}`,
			[]string{"spec.rules[0].default.idleTimeout: Forbidden: must not be set when matches contain a spiffeID: it cannot depend on the client's identity"}},
		{"an empty match in a timeout rule", KindMeshTimeout,
			`{rules: [{matches: [{}], default: {http: {requestTimeout: 1s}}}]}`,
			[]string{"spec.rules[0].matches[0]: Required value: set spiffeID or sni"}},
		{"permission lists all empty", KindMeshTrafficPermission, `{rules: [{default: {}}]}`,
			[]string{"spec.rules[0].default: Required value: at least one of allow, allowWithShadowDeny, deny must have an element"}},
		{"a SPIFFE ID must be one, an SNI type Exact", KindMeshTrafficPermission,
			`{rules: [{default: {allow: [{spiffeID: {type: Prefix, value: "spiffe://td/ns/"}, sni: {type: Prefix, value: a.b}}]}}]}`,
			[]string{
				`spec.rules[0].default.allow[0].sni.type: Unsupported value: "Prefix": supported values: "Exact"`,
				`spec.rules[0].default.allow[0].spiffeID.value: Invalid value: "spiffe://td/ns/": must be a SPIFFE ID: spiffe://<trust domain>/<path>`,
			}},
		{"matches are MeshTimeout's only", KindMeshTrafficPermission,
			`{rules: [{matches: [], default: {deny: [{sni: {type: Exact, value: a.b}}]}}]}`,
			[]string{"spec.rules[0].matches: Forbidden: unknown field: supported fields are default"}},
		{"rules and from together", KindMeshTrafficPermission,
			`{from: [{targetRef: {kind: Mesh}, default: {action: Allow}}], rules: [{default: {deny: [{sni: {type: Exact, value: a.b}}]}}]}`,
			[]string{"spec.rules: Forbidden: spec.to and spec.from must be empty when spec.rules is set"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, errs := Parse(obj(t, `
apiVersion: kuma.io/v1alpha1
kind: `+tt.kind+`
metadata: {name: p, namespace: kong-mesh-demo}
spec: `+tt.spec))
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

// TestKumaRulesWarnings: the warnings a write of rules (or from) gets, through the Index and the
// plain path alike, after the deprecations, as the webhook gives them.
func TestKumaRulesWarnings(t *testing.T) {
	_, dps := load(t, "testdata/kumarules")
	mtp := func(name, spec string) Policy { return kumaRule(t, KindMeshTrafficPermission, name, "", spec) }
	mt := func(name, spec string) Policy { return kumaRule(t, KindMeshTimeout, name, "", spec) }
	denyNS := mtp("deny-malicious", `{rules: [{default: {deny: [{spiffeID: {type: Prefix, value: "spiffe://td/ns/malicious"}}]}}]}`)
	tests := []struct {
		name     string
		kind     string
		existing []Policy
		written  Policy
		want     []string
		at       Version // "" is the newest
	}{
		{
			name: "an allow inside a deny of another policy never takes effect", kind: kumaPermission,
			existing: []Policy{denyNS},
			written:  mtp("allow-batch", `{rules: [{default: {allow: [{spiffeID: {type: Exact, value: "spiffe://td/ns/malicious/sa/batch"}}, {spiffeID: {type: Prefix, value: "spiffe://td/ns/web"}}]}}]}`),
			want:     []string{"PRC-W014 MeshTrafficPermission kong-mesh-demo/allow-batch: spec.rules[0].default.allow[0] never takes effect on any Dataplane: spec.rules[0].default.deny[0] of kong-mesh-demo/deny-malicious denies all it matches, and Kuma matches deny first"},
		},
		{
			name: "a deny on one inbound (sectionName) voids no allow of the whole proxy", kind: kumaPermission,
			existing: []Policy{mtp("deny-admin", `{targetRef: {kind: Dataplane, labels: {app: backend}, sectionName: admin}, rules: [{default: {deny: [{spiffeID: {type: Prefix, value: "spiffe://td/ns/malicious"}}]}}]}`)},
			written:  mtp("allow-batch", `{rules: [{default: {allow: [{spiffeID: {type: Exact, value: "spiffe://td/ns/malicious/sa/batch"}}]}}]}`),
		},
		{
			name: "a deny written over an existing allow names it", kind: kumaPermission,
			existing: []Policy{mtp("allow-batch", `{rules: [{default: {allowWithShadowDeny: [{spiffeID: {type: Prefix, value: "spiffe://td/ns/malicious/sa"}}]}}]}`)},
			written:  denyNS,
			want:     []string{"PRC-W014 MeshTrafficPermission kong-mesh-demo/allow-batch: spec.rules[0].default.allowWithShadowDeny[0] never takes effect on any Dataplane: spec.rules[0].default.deny[0] of kong-mesh-demo/deny-malicious denies all it matches, and Kuma matches deny first"},
		},
		{
			name: "Kuma 2.14, from items where rules select every proxy: deprecated, and replaced by the rules", kind: kumaPermission,
			existing: []Policy{denyNS}, at: Kuma214,
			written: mtp("legacy", `{from: [{targetRef: {kind: Mesh}, default: {action: Allow}}, {targetRef: {kind: MeshService, name: web}, default: {action: Deny}}]}`),
			want: []string{
				"PRC-W015 MeshTrafficPermission kong-mesh-demo/legacy: spec.from is deprecated by Kuma 2.x and dropped silently by Kuma 3.0 on create and update: use spec.rules",
				`PRC-W015 MeshTrafficPermission kong-mesh-demo/legacy: spec.from[0] as spec.rules[0]: {"default":{"allow":[{"spiffeID":{"type":"Prefix","value":"spiffe://<trust-domain>"}}]}}`,
				`PRC-W015 MeshTrafficPermission kong-mesh-demo/legacy: spec.from[1] as spec.rules[1]: {"default":{"deny":[{"spiffeID":{"type":"Exact","value":"spiffe://<trust-domain>/ns/<namespace>/sa/<service account of web>"}}]}}`,
				"PRC-W014 MeshTrafficPermission kong-mesh-demo/legacy never takes effect on any Dataplane: the spec.rules of kong-mesh-demo/deny-malicious replace its from items wherever it applies",
			},
		},
		{
			// Kuma 3.0 merges the rules and the from items of an inbound, every deny first (#18774;
			// MergePermission): the from items are not replaced.
			name: "Kuma 3.0, from items where rules select every proxy: deprecated, and still applied", kind: kumaPermission,
			existing: []Policy{denyNS}, at: Kuma30,
			written: mtp("legacy", `{from: [{targetRef: {kind: Mesh}, default: {action: Allow}}, {targetRef: {kind: MeshService, name: web}, default: {action: Deny}}]}`),
			want: []string{
				"PRC-W015 MeshTrafficPermission kong-mesh-demo/legacy: spec.from is deprecated by Kuma 2.x and dropped silently by Kuma 3.0 on create and update: use spec.rules",
				`PRC-W015 MeshTrafficPermission kong-mesh-demo/legacy: spec.from[0] as spec.rules[0]: {"default":{"allow":[{"spiffeID":{"type":"Prefix","value":"spiffe://<trust-domain>"}}]}}`,
				`PRC-W015 MeshTrafficPermission kong-mesh-demo/legacy: spec.from[1] as spec.rules[1]: {"default":{"deny":[{"spiffeID":{"type":"Exact","value":"spiffe://<trust-domain>/ns/<namespace>/sa/<service account of web>"}}]}}`,
			},
		},
		{
			name: "a MeshTimeout rule shadowed by the rule of a policy that wins", kind: kumaTimeout,
			existing: []Policy{mt("a-inbound", `{rules: [{default: {idleTimeout: 1h, http: {requestTimeout: 5s}}}]}`)},
			written:  mt("b-inbound", `{rules: [{default: {idleTimeout: 2h}}, {matches: [{sni: {type: Exact, value: a.b}}], default: {http: {requestTimeout: 1s}}}]}`),
			want: []string{
				"PRC-W016 MeshTimeout kong-mesh-demo/b-inbound: spec.rules[1].matches[0] never takes effect: Kuma applies a rule only to matches with a spiffeID",
				"PRC-W014 MeshTimeout kong-mesh-demo/b-inbound never takes effect on any Dataplane: every field it sets is decided by kong-mesh-demo/a-inbound",
			},
		},
		{
			name: "MeshTimeout from: deprecated, with its rules form", kind: kumaTimeout,
			written: mt("legacy", `{from: [{targetRef: {kind: Mesh}, default: {idleTimeout: 1h}}]}`),
			want: []string{
				"PRC-W015 MeshTimeout kong-mesh-demo/legacy: spec.from is deprecated by Kuma 2.x and dropped silently by Kuma 3.0 on create and update: use spec.rules",
				`PRC-W015 MeshTimeout kong-mesh-demo/legacy: spec.from[0] as spec.rules[0]: {"default":{"idleTimeout":"1h"}}`,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, _ := VersionOf(string(tt.at))
			plain := append(Deprecations(&tt.written), WriteWarningsAt(v, tt.written, tt.existing, dps, true)...)
			if diff := cmp.Diff(tt.want, plain); diff != "" {
				t.Errorf("WriteWarnings (-want +got):\n%s", diff)
			}
			indexed := append(Deprecations(&tt.written), NewIndexAt(v, tt.kind, tt.existing, dps).WriteWarnings(tt.written, true)...)
			if diff := cmp.Diff(tt.want, indexed); diff != "" {
				t.Errorf("Index.WriteWarnings (-want +got):\n%s", diff)
			}
		})
	}
}

// TestKumaRulesNoTopology: without Dataplanes only the warnings that need none are given.
func TestKumaRulesNoTopology(t *testing.T) {
	p := kumaRule(t, KindMeshTimeout, "b-inbound", "", `{rules: [{default: {idleTimeout: 2h}}, {matches: [{sni: {type: Exact, value: a.b}}], default: {http: {requestTimeout: 1s}}}]}`)
	want := []string{"PRC-W016 MeshTimeout kong-mesh-demo/b-inbound: spec.rules[1].matches[0] never takes effect: Kuma applies a rule only to matches with a spiffeID"}
	if diff := cmp.Diff(want, NewIndex(kumaTimeout, nil, nil).WriteWarnings(p, true)); diff != "" {
		t.Errorf("Index.WriteWarnings (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, WriteWarnings(p, nil, nil, true)); diff != "" {
		t.Errorf("WriteWarnings (-want +got):\n%s", diff)
	}
}

// TestKumaRulesIndexUpsertRemove: after upserts and removals of MeshTrafficPermissions with rules and
// with from, the index answers what the plain analysis answers for a series of writes.
func TestKumaRulesIndexUpsertRemove(t *testing.T) {
	_, dps := load(t, "testdata/kumarules")
	mtp := func(name, spec string) Policy { return kumaRule(t, KindMeshTrafficPermission, name, "", spec) }
	policies := []Policy{
		mtp("deny-malicious", `{rules: [{default: {deny: [{spiffeID: {type: Prefix, value: "spiffe://td/ns/malicious"}}]}}]}`),
		mtp("backend-allow", `{targetRef: {kind: Dataplane, labels: {app: backend}}, rules: [{default: {allow: [{spiffeID: {type: Prefix, value: "spiffe://td/ns/malicious/sa"}}, {spiffeID: {type: Prefix, value: "spiffe://td/ns/web"}}]}}]}`),
		mtp("legacy", `{from: [{targetRef: {kind: Mesh}, default: {action: Allow}}]}`),
		mtp("web-legacy", `{targetRef: {kind: Dataplane, labels: {app: web}}, from: [{targetRef: {kind: Mesh}, default: {action: Deny}}]}`),
	}
	writes := []Policy{
		mtp("web-rules", `{targetRef: {kind: Dataplane, labels: {app: web}}, rules: [{default: {allow: [{spiffeID: {type: Exact, value: "spiffe://td/ns/malicious/sa/x"}}]}}]}`),
		mtp("deny-malicious", `{rules: [{default: {deny: [{spiffeID: {type: Exact, value: "spiffe://td/ns/malicious/sa/y"}}]}}]}`),
		mtp("deny-all-web", `{rules: [{default: {deny: [{spiffeID: {type: Prefix, value: "spiffe://td/ns/web"}}]}}]}`),
		mtp("legacy", `{from: [{targetRef: {kind: Mesh}, default: {action: Deny}}]}`),
	}
	x := NewIndex(kumaPermission, policies, dps)
	current := append([]Policy(nil), policies...)
	warned := 0
	defer func() {
		if warned == 0 {
			t.Error("no write was warned: the comparison says nothing")
		}
	}()
	check := func(step string) {
		for _, w := range writes {
			want := WriteWarnings(w, current, dps, false)
			warned += len(want)
			if diff := cmp.Diff(want, x.WriteWarnings(w, false)); diff != "" {
				t.Errorf("%s, write of %s: Index.WriteWarnings (-plain +index):\n%s", step, w.Name, diff)
			}
		}
	}
	check("built")
	for _, w := range writes {
		x.Upsert(w)
		kept := current[:0:0]
		for _, p := range current {
			if p.Name != w.Name {
				kept = append(kept, p)
			}
		}
		current = append(kept, w)
		check("after upsert of " + w.Name)
	}
	for _, name := range []string{"backend-allow", "deny-all-web"} {
		x.Remove("kong-mesh-demo/" + name)
		kept := current[:0:0]
		for _, p := range current {
			if p.Name != name {
				kept = append(kept, p)
			}
		}
		current = kept
		check("after removal of " + name)
	}
}

// permissionAction is the Result of one client's MeshTrafficPermission action a, decided by the
// policy origin ("" for the default deny).
func permissionAction(a, origin string) Result {
	r := Result{Conf: conf("action", a), Origins: map[string]string{}}
	if origin != "" {
		r.Origins["action"] = origin
	}
	return r
}
