package engine

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestMergeMADRExamples(t *testing.T) {
	policies, dps := load(t, "testdata/madr")
	byName := map[string]Dataplane{}
	for _, dp := range dps {
		byName[dp.Name] = dp
	}
	tests := []struct {
		name   string
		kind   string
		proxy  string
		dir    Direction
		target Selector
		want   Result
	}{
		{
			// The MADR's 00-base-timeouts writes `streamIdleTimeout: 1h`, but its merged listings
			// and both results say `idleTimeout: 1h`; testdata follows the listings (idleTimeout).
			name: "upstream timeout backend outbound of web", kind: KindMeshTimeout, proxy: "web-v1",
			dir: To, target: Selector{Service: "backend"},
			want: Result{
				Conf: map[string]interface{}{"connectTimeout": "5s", "http": map[string]interface{}{"requestTimeout": "15s", "idleTimeout": "0s"}},
				Origins: map[string]string{
					"connectTimeout":      "web-timeouts",
					"http.requestTimeout": "web-timeouts",
					"http.idleTimeout":    "01-consume-backend-timeouts",
				},
			},
		},
		{
			name: "upstream timeout payments outbound of web", kind: KindMeshTimeout, proxy: "web-v1",
			dir: To, target: Selector{Service: "payments"},
			want: Result{
				Conf: map[string]interface{}{"connectTimeout": "5s", "http": map[string]interface{}{"requestTimeout": "5s", "idleTimeout": "1h"}},
				Origins: map[string]string{
					"connectTimeout":      "web-timeouts",
					"http.requestTimeout": "00-base-timeouts",
					"http.idleTimeout":    "00-base-timeouts",
				},
			},
		},
		{
			name: "upstream timeout on a proxy web-timeouts does not select", kind: KindMeshTimeout, proxy: "infra-monitoring-1",
			dir: To, target: Selector{Service: "backend"},
			want: Result{
				Conf: map[string]interface{}{"connectTimeout": "20s", "http": map[string]interface{}{"requestTimeout": "5s", "idleTimeout": "0s"}},
				Origins: map[string]string{
					"connectTimeout":      "01-consume-backend-timeouts",
					"http.requestTimeout": "00-base-timeouts",
					"http.idleTimeout":    "01-consume-backend-timeouts",
				},
			},
		},
		{
			name: "traffic permission backend from web v1", kind: KindMeshTrafficPermission, proxy: "backend-1",
			dir: From, target: Selector{Service: "web", Tags: map[string]string{"version": "v1"}},
			want: Result{Conf: map[string]interface{}{"action": "DENY"}, Origins: map[string]string{"action": "backend-permissions"}},
		},
		{
			name: "traffic permission backend from infra-monitoring", kind: KindMeshTrafficPermission, proxy: "backend-1",
			dir: From, target: Selector{Service: "infra-monitoring"},
			want: Result{Conf: map[string]interface{}{"action": "ALLOW"}, Origins: map[string]string{"action": "backend-permissions"}},
		},
		{
			name: "traffic permission backend from infra-logger", kind: KindMeshTrafficPermission, proxy: "backend-1",
			dir: From, target: Selector{Service: "infra-logger"},
			want: Result{Conf: map[string]interface{}{"action": "ALLOW"}, Origins: map[string]string{"action": "backend-permissions"}},
		},
		{
			name: "traffic permission backend from web v2 is allowed by the mesh element", kind: KindMeshTrafficPermission, proxy: "backend-1",
			dir: From, target: Selector{Service: "web", Tags: map[string]string{"version": "v2"}},
			want: Result{Conf: map[string]interface{}{"action": "ALLOW"}, Origins: map[string]string{"action": "backend-permissions"}},
		},
		{
			name: "traffic permission web from infra-logger is allowed by allow-only-infra", kind: KindMeshTrafficPermission, proxy: "web-v1",
			dir: From, target: Selector{Service: "infra-logger"},
			want: Result{Conf: map[string]interface{}{"action": "ALLOW"}, Origins: map[string]string{"action": "allow-only-infra"}},
		},
		{
			name: "traffic permission web from backend is denied by allow-only-infra", kind: KindMeshTrafficPermission, proxy: "web-v1",
			dir: From, target: Selector{Service: "backend"},
			want: Result{Conf: map[string]interface{}{"action": "DENY"}, Origins: map[string]string{"action": "allow-only-infra"}},
		},
		{
			name: "no element selects the target", kind: KindMeshTimeout, proxy: "web-v1",
			dir: From, target: Selector{Service: "backend"},
			want: Result{Conf: map[string]interface{}{}, Origins: map[string]string{}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dp, ok := byName[tt.proxy]
			if !ok {
				t.Fatalf("no Dataplane %s in testdata", tt.proxy)
			}
			got := Merge(tt.kind, policies, dp, tt.dir, tt.target)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Merge (-want +got):\n%s", diff)
			}
		})
	}
}

// The MADR (Kuma's "New Policy Matching") orders policies of one level so that the name that sorts later has priority:
// its example lists 01-consume-backend-timeouts above 00-base-timeouts. Current Kuma lets the
// smaller name win instead; on the MADR's example that changes http.idleTimeout of web's backend
// outbound from 0s (01-consume-backend-timeouts) to 1h (00-base-timeouts).
func TestNameOrderDiffersFromKuma(t *testing.T) {
	policies, dps := load(t, "testdata/madr")
	var web Dataplane
	for _, dp := range dps {
		if dp.Name == "web-v1" {
			web = dp
		}
	}
	tests := []struct {
		name  string
		order nameOrder
		want  Result
	}{
		{
			name: "MADR: later name has priority", order: laterNameFirst,
			want: Result{
				Conf:    map[string]interface{}{"connectTimeout": "5s", "http": map[string]interface{}{"requestTimeout": "15s", "idleTimeout": "0s"}},
				Origins: map[string]string{"connectTimeout": "web-timeouts", "http.requestTimeout": "web-timeouts", "http.idleTimeout": "01-consume-backend-timeouts"},
			},
		},
		{
			name: "current Kuma: smaller name has priority", order: smallerNameFirst,
			want: Result{
				Conf:    map[string]interface{}{"connectTimeout": "5s", "http": map[string]interface{}{"requestTimeout": "15s", "idleTimeout": "1h"}},
				Origins: map[string]string{"connectTimeout": "web-timeouts", "http.requestTimeout": "web-timeouts", "http.idleTimeout": "00-base-timeouts"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := MergeEntries(Entries(order(KindMeshTimeout, policies, &web, tt.order), To), Selector{Service: "backend"})
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("merge (-want +got):\n%s", diff)
			}
		})
	}
}

func TestMergeOrder(t *testing.T) {
	web := proxy("web-1", map[string]string{ServiceTag: "web", "version": "v1", "kuma.io/zone": "us-east"}, "backend", "payments")
	timeout := func(name, top string, to string) Policy {
		return policy(t, "kind: MeshTimeout\nmetadata: {name: "+name+"}\nspec:\n  targetRef: "+top+"\n  to:\n"+to)
	}
	tests := []struct {
		name     string
		policies []Policy
		target   Selector
		want     Result
	}{
		{
			name: "same level later name has priority",
			policies: []Policy{
				timeout("b", "{kind: Mesh}", "  - {targetRef: {kind: Mesh}, connectTimeout: 2s}\n"),
				timeout("a", "{kind: Mesh}", "  - {targetRef: {kind: Mesh}, connectTimeout: 1s, http: {idleTimeout: 1m}}\n"),
			},
			target: Selector{Service: "backend"},
			want: Result{
				Conf:    map[string]interface{}{"connectTimeout": "2s", "http": map[string]interface{}{"idleTimeout": "1m"}},
				Origins: map[string]string{"connectTimeout": "b", "http.idleTimeout": "a"},
			},
		},
		{
			name: "more specific level has priority over a later name",
			policies: []Policy{
				timeout("z", "{kind: Mesh}", "  - {targetRef: {kind: Service, name: backend}, connectTimeout: 9s}\n"),
				timeout("a", "{kind: Service, name: web}", "  - {targetRef: {kind: Mesh}, connectTimeout: 1s}\n"),
			},
			target: Selector{Service: "backend"},
			want:   Result{Conf: map[string]interface{}{"connectTimeout": "1s"}, Origins: map[string]string{"connectTimeout": "a"}},
		},
		{
			name: "levels Proxy over ServiceSubset over Service over MeshSubset over Mesh",
			policies: []Policy{
				timeout("1-mesh", "{kind: Mesh}", "  - {targetRef: {kind: Mesh}, connectTimeout: 1s, http: {requestTimeout: 1s, idleTimeout: 1s, streamIdleTimeout: 1s}}\n"),
				timeout("2-meshsubset", "{kind: MeshSubset, tags: {kuma.io/zone: us-east}}", "  - {targetRef: {kind: Mesh}, connectTimeout: 2s, http: {requestTimeout: 2s, idleTimeout: 2s}}\n"),
				timeout("3-service", "{kind: Service, name: web}", "  - {targetRef: {kind: Mesh}, connectTimeout: 3s, http: {requestTimeout: 3s}}\n"),
				timeout("4-servicesubset", "{kind: ServiceSubset, name: web, tags: {version: v1}}", "  - {targetRef: {kind: Mesh}, connectTimeout: 4s}\n"),
				timeout("5-proxy", "{kind: Proxy, name: web-1}", "  - {targetRef: {kind: Mesh}, http: {streamIdleTimeout: 5s}}\n"),
			},
			target: Selector{Service: "backend"},
			want: Result{
				Conf: map[string]interface{}{"connectTimeout": "4s", "http": map[string]interface{}{"requestTimeout": "3s", "idleTimeout": "2s", "streamIdleTimeout": "5s"}},
				Origins: map[string]string{
					"connectTimeout": "4-servicesubset", "http.requestTimeout": "3-service",
					"http.idleTimeout": "2-meshsubset", "http.streamIdleTimeout": "5-proxy",
				},
			},
		},
		{
			// The MADR's "Applying" example: param1 from the first element, param2 from the second.
			name: "within one array the first element that sets a field wins",
			policies: []Policy{
				timeout("p", "{kind: Mesh}", ""+
					"  - {targetRef: {kind: Mesh}, connectTimeout: 1s}\n"+
					"  - {targetRef: {kind: Service, name: backend}, connectTimeout: 2s, http: {requestTimeout: 3s}}\n"+
					"  - {targetRef: {kind: Mesh}, http: {requestTimeout: 4s}}\n"),
			},
			target: Selector{Service: "backend"},
			want: Result{
				Conf:    map[string]interface{}{"connectTimeout": "1s", "http": map[string]interface{}{"requestTimeout": "3s"}},
				Origins: map[string]string{"connectTimeout": "p", "http.requestTimeout": "p"},
			},
		},
		{
			name: "elements for another service do not apply",
			policies: []Policy{
				timeout("p", "{kind: Mesh}", "  - {targetRef: {kind: Service, name: backend}, connectTimeout: 2s}\n  - {targetRef: {kind: Mesh}, connectTimeout: 3s}\n"),
			},
			target: Selector{Service: "payments"},
			want:   Result{Conf: map[string]interface{}{"connectTimeout": "3s"}, Origins: map[string]string{"connectTimeout": "p"}},
		},
		{
			name: "an HTTPRoute element selects no whole outbound",
			policies: []Policy{
				timeout("p", "{kind: Mesh}", "  - {targetRef: {kind: HTTPRoute, name: backend-route}, connectTimeout: 2s}\n"),
			},
			target: Selector{Service: "backend"},
			want:   Result{Conf: map[string]interface{}{}, Origins: map[string]string{}},
		},
		{
			name: "policies that select other proxies do not apply",
			policies: []Policy{
				timeout("service", "{kind: Service, name: backend}", "  - {targetRef: {kind: Mesh}, connectTimeout: 1s}\n"),
				timeout("meshsubset", "{kind: MeshSubset, tags: {kuma.io/zone: us-west}}", "  - {targetRef: {kind: Mesh}, connectTimeout: 2s}\n"),
				timeout("servicesubset", "{kind: ServiceSubset, name: web, tags: {version: v2}}", "  - {targetRef: {kind: Mesh}, connectTimeout: 3s}\n"),
				timeout("proxy", "{kind: Proxy, name: web-2}", "  - {targetRef: {kind: Mesh}, connectTimeout: 4s}\n"),
				timeout("route", "{kind: HTTPRoute, name: web-route}", "  - {targetRef: {kind: Mesh}, connectTimeout: 5s}\n"),
			},
			target: Selector{Service: "backend"},
			want:   Result{Conf: map[string]interface{}{}, Origins: map[string]string{}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Merge(KindMeshTimeout, tt.policies, web, To, tt.target)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Merge (-want +got):\n%s", diff)
			}
		})
	}
}

func TestMergeSources(t *testing.T) {
	backend := proxy("backend-1", map[string]string{ServiceTag: "backend", "kuma.io/zone": "us-east"})
	// The MADR's inbound example: traffic from backend v2 selected by three elements.
	madr := policy(t, `
kind: MeshTimeout
metadata: {name: inbound}
spec:
  targetRef: {kind: Mesh}
  from:
    - {targetRef: {kind: ServiceSubset, name: backend, tags: {version: v2}}, connectTimeout: 1s}
    - {targetRef: {kind: Service, name: backend}, connectTimeout: 2s, http: {requestTimeout: 3s}}
    - {targetRef: {kind: Mesh}, http: {requestTimeout: 4s}}
`)
	subsets := policy(t, `
kind: MeshTrafficPermission
metadata: {name: subsets}
spec:
  targetRef: {kind: Mesh}
  from:
    - {targetRef: {kind: MeshSubset, tags: {kuma.io/zone: us-east, env: prod}}, action: ALLOW}
    - {targetRef: {kind: ServiceSubset, name: web, tags: {version: v1}}, action: ALLOW}
    - {targetRef: {kind: Mesh}, action: DENY}
`)
	tests := []struct {
		name     string
		kind     string
		policies []Policy
		source   Selector
		want     Result
	}{
		{
			name: "first element that sets a field wins for backend v2", kind: KindMeshTimeout, policies: []Policy{madr},
			source: Selector{Service: "backend", Tags: map[string]string{"version": "v2"}},
			want: Result{
				Conf:    map[string]interface{}{"connectTimeout": "1s", "http": map[string]interface{}{"requestTimeout": "3s"}},
				Origins: map[string]string{"connectTimeout": "inbound", "http.requestTimeout": "inbound"},
			},
		},
		{
			name: "service subset does not match other tags", kind: KindMeshTimeout, policies: []Policy{madr},
			source: Selector{Service: "backend", Tags: map[string]string{"version": "v1"}},
			want: Result{
				Conf:    map[string]interface{}{"connectTimeout": "2s", "http": map[string]interface{}{"requestTimeout": "3s"}},
				Origins: map[string]string{"connectTimeout": "inbound", "http.requestTimeout": "inbound"},
			},
		},
		{
			name: "mesh subset matches a source with all its tags", kind: KindMeshTrafficPermission, policies: []Policy{subsets},
			source: Selector{Service: "payments", Tags: map[string]string{"kuma.io/zone": "us-east", "env": "prod", "version": "v3"}},
			want:   Result{Conf: map[string]interface{}{"action": "ALLOW"}, Origins: map[string]string{"action": "subsets"}},
		},
		{
			name: "mesh subset does not match a source missing a tag", kind: KindMeshTrafficPermission, policies: []Policy{subsets},
			source: Selector{Service: "payments", Tags: map[string]string{"kuma.io/zone": "us-east"}},
			want:   Result{Conf: map[string]interface{}{"action": "DENY"}, Origins: map[string]string{"action": "subsets"}},
		},
		{
			name: "service subset matches by service and tags", kind: KindMeshTrafficPermission, policies: []Policy{subsets},
			source: Selector{Service: "web", Tags: map[string]string{"version": "v1"}},
			want:   Result{Conf: map[string]interface{}{"action": "ALLOW"}, Origins: map[string]string{"action": "subsets"}},
		},
		{
			name: "service subset does not match another service with the tags", kind: KindMeshTrafficPermission, policies: []Policy{subsets},
			source: Selector{Service: "web2", Tags: map[string]string{"version": "v1"}},
			want:   Result{Conf: map[string]interface{}{"action": "DENY"}, Origins: map[string]string{"action": "subsets"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Merge(tt.kind, tt.policies, backend, From, tt.source)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Merge (-want +got):\n%s", diff)
			}
		})
	}
}

// The merge is generic over the configuration: objects merge deeply, lists are atomic, a field
// that is an object in a higher element is not replaced by a scalar of a lower one.
func TestMergeValues(t *testing.T) {
	dp := proxy("p", map[string]string{ServiceTag: "web"}, "backend")
	el := func(conf map[string]interface{}) Element {
		return Element{TargetRef: TargetRef{Kind: Mesh}, Conf: conf}
	}
	policies := []Policy{
		{Kind: "K", Name: "b", TargetRef: TargetRef{Kind: Mesh}, To: []Element{
			el(map[string]interface{}{"list": []interface{}{"x"}, "obj": map[string]interface{}{"a": map[string]interface{}{"deep": "1"}}, "empty": map[string]interface{}{}}),
		}},
		{Kind: "K", Name: "a", TargetRef: TargetRef{Kind: Mesh}, To: []Element{
			el(map[string]interface{}{"list": []interface{}{"y", "z"}, "obj": map[string]interface{}{"a": map[string]interface{}{"deep": "2", "other": "3"}, "b": int64(4)}, "empty": "now-set"}),
		}},
	}
	want := Result{
		Conf: map[string]interface{}{
			"list":  []interface{}{"x"},
			"obj":   map[string]interface{}{"a": map[string]interface{}{"deep": "1", "other": "3"}, "b": int64(4)},
			"empty": "now-set",
		},
		Origins: map[string]string{"list": "b", "obj.a.deep": "b", "obj.a.other": "a", "obj.b": "a", "empty": "a"},
	}
	got := Merge("K", policies, dp, To, Selector{Service: "backend"})
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Merge (-want +got):\n%s", diff)
	}
	got.Conf["list"].([]interface{})[0] = "changed"
	if policies[0].To[0].Conf["list"].([]interface{})[0] != "x" {
		t.Errorf("Merge result aliases its input")
	}
}

func TestResultJSON(t *testing.T) {
	tests := []struct {
		name string
		in   Result
		want string
	}{
		{name: "empty", in: Result{Conf: map[string]interface{}{}, Origins: map[string]string{}}, want: `{"conf":{},"origins":{}}`},
		{
			name: "fields",
			in:   Result{Conf: map[string]interface{}{"http": map[string]interface{}{"requestTimeout": "5s"}}, Origins: map[string]string{"http.requestTimeout": "base"}},
			want: `{"conf":{"http":{"requestTimeout":"5s"}},"origins":{"http.requestTimeout":"base"}}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := json.Marshal(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, string(b)); diff != "" {
				t.Errorf("json (-want +got):\n%s", diff)
			}
		})
	}
}
