package engine

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestShadowedMADRExamples(t *testing.T) {
	policies, dps := load(t, "testdata/madr")
	if got := Shadowed(policies, dps); len(got) != 0 {
		t.Errorf("Shadowed on the MADR examples = %v, want none", got)
	}
}

func TestShadowed(t *testing.T) {
	web := proxy("web-1", map[string]string{ServiceTag: "web", "version": "v1"}, "backend", "payments")
	webOnly := []Dataplane{web}
	withBackend := []Dataplane{web, proxy("backend-1", map[string]string{ServiceTag: "backend"}, "payments")}
	mt := func(name, top, to string) Policy {
		return policy(t, "kind: MeshTimeout\nmetadata: {name: "+name+"}\nspec:\n  targetRef: "+top+"\n  to:\n"+to)
	}
	mtp := func(name, top, from string) Policy {
		return policy(t, "kind: MeshTrafficPermission\nmetadata: {name: "+name+"}\nspec:\n  targetRef: "+top+"\n  from:\n"+from)
	}
	many := []Policy{mt("0-low", "{kind: Mesh}", "  - {targetRef: {kind: Mesh}, connectTimeout: 1s, http: {requestTimeout: 1s, idleTimeout: 1s, streamIdleTimeout: 1s}}\n")}
	for i, f := range []string{"connectTimeout: 2s", "http: {requestTimeout: 2s}", "http: {idleTimeout: 2s}", "http: {streamIdleTimeout: 2s}"} {
		many = append(many, mt(fmt.Sprintf("%d-high", i+1), "{kind: Mesh}", "  - {targetRef: {kind: Mesh}, "+f+"}\n"))
	}
	tests := []struct {
		name       string
		policies   []Policy
		dataplanes []Dataplane
		want       []string
	}{
		{
			name: "element shadowed by an earlier element of its own array",
			policies: []Policy{mt("p", "{kind: Mesh}", ""+
				"  - {targetRef: {kind: Mesh}, connectTimeout: 1s, http: {requestTimeout: 1s}}\n"+
				"  - {targetRef: {kind: Service, name: backend}, connectTimeout: 2s}\n")},
			dataplanes: webOnly,
			want:       []string{"PRC-W014 MeshTimeout p: spec.to[1] never takes effect on any Dataplane: every field it sets is decided by spec.to[0] of p"},
		},
		{
			name: "element shadowed by a more specific policy on every proxy it reaches",
			policies: []Policy{
				mt("web-timeouts", "{kind: Service, name: web}", "  - {targetRef: {kind: Mesh}, connectTimeout: 5s}\n"),
				mt("base", "{kind: Mesh}", ""+
					"  - {targetRef: {kind: Service, name: backend}, connectTimeout: 20s}\n"+
					"  - {targetRef: {kind: Mesh}, http: {requestTimeout: 5s}}\n"),
			},
			dataplanes: webOnly,
			want:       []string{"PRC-W014 MeshTimeout base: spec.to[0] never takes effect on any Dataplane: every field it sets is decided by spec.to[0] of web-timeouts"},
		},
		{
			name: "element effective on another proxy is not shadowed",
			policies: []Policy{
				mt("web-timeouts", "{kind: Service, name: web}", "  - {targetRef: {kind: Mesh}, connectTimeout: 5s}\n"),
				mt("base", "{kind: Mesh}", ""+
					"  - {targetRef: {kind: Service, name: payments}, connectTimeout: 20s}\n"+
					"  - {targetRef: {kind: Mesh}, http: {requestTimeout: 5s}}\n"),
			},
			dataplanes: withBackend,
		},
		{
			name: "element whose fields are set by different elements",
			policies: []Policy{mt("p", "{kind: Mesh}", ""+
				"  - {targetRef: {kind: Service, name: backend}, connectTimeout: 1s}\n"+
				"  - {targetRef: {kind: Mesh}, http: {requestTimeout: 1s}}\n"+
				"  - {targetRef: {kind: Service, name: backend}, connectTimeout: 2s, http: {requestTimeout: 2s}}\n"+
				"  - {targetRef: {kind: Service, name: payments}, connectTimeout: 3s}\n")},
			dataplanes: webOnly,
			want:       []string{"PRC-W014 MeshTimeout p: spec.to[2] never takes effect on any Dataplane: every field it sets is decided by spec.to[0] of p, spec.to[1] of p"},
		},
		{
			name: "element with one field still effective is not shadowed",
			policies: []Policy{mt("p", "{kind: Mesh}", ""+
				"  - {targetRef: {kind: Mesh}, connectTimeout: 1s}\n"+
				"  - {targetRef: {kind: Service, name: backend}, connectTimeout: 2s, http: {idleTimeout: 2s}}\n")},
			dataplanes: webOnly,
		},
		{
			name: "whole policy shadowed by a later name at the same level",
			policies: []Policy{
				mt("00-low", "{kind: Mesh}", "  - {targetRef: {kind: Mesh}, connectTimeout: 1s}\n  - {targetRef: {kind: Service, name: backend}, http: {requestTimeout: 1s}}\n"),
				mt("01-high", "{kind: Mesh}", "  - {targetRef: {kind: Mesh}, connectTimeout: 2s, http: {requestTimeout: 2s}}\n"),
			},
			dataplanes: withBackend,
			want:       []string{"PRC-W014 MeshTimeout 00-low never takes effect on any Dataplane: every field it sets is decided by 01-high"},
		},
		{
			name:       "whole policy shadowed names at most three policies",
			policies:   many,
			dataplanes: webOnly,
			want:       []string{"PRC-W014 MeshTimeout 0-low never takes effect on any Dataplane: every field it sets is decided by 4-high, 3-high, 2-high and 1 more"},
		},
		{
			name: "traffic permission element after a mesh-wide element",
			policies: []Policy{mtp("backend-permissions", "{kind: Service, name: backend}", ""+
				"  - {targetRef: {kind: Mesh}, action: ALLOW}\n"+
				"  - {targetRef: {kind: ServiceSubset, name: web, tags: {version: v1}}, action: DENY}\n")},
			dataplanes: withBackend,
			want:       []string{"PRC-W014 MeshTrafficPermission backend-permissions: spec.from[1] never takes effect on any Dataplane: every field it sets is decided by spec.from[0] of backend-permissions"},
		},
		{
			name: "traffic permission for a source no Dataplane has is not reported",
			policies: []Policy{mtp("p", "{kind: Mesh}", ""+
				"  - {targetRef: {kind: Service, name: web}, action: DENY}\n"+
				"  - {targetRef: {kind: ServiceSubset, name: web, tags: {version: v2}}, action: ALLOW}\n")},
			dataplanes: withBackend,
		},
		{
			name: "traffic permission subset shadowed by its service",
			policies: []Policy{mtp("p", "{kind: Mesh}", ""+
				"  - {targetRef: {kind: Service, name: web}, action: DENY}\n"+
				"  - {targetRef: {kind: ServiceSubset, name: web, tags: {version: v2}}, action: ALLOW}\n")},
			dataplanes: append(withBackend, proxy("web-2", map[string]string{ServiceTag: "web", "version": "v2"})),
			want:       []string{"PRC-W014 MeshTrafficPermission p: spec.from[1] never takes effect on any Dataplane: every field it sets is decided by spec.from[0] of p"},
		},
		{
			name: "traffic permission mesh subset shadowed on every source it selects",
			policies: []Policy{mtp("p", "{kind: Mesh}", ""+
				"  - {targetRef: {kind: ServiceSubset, name: web, tags: {version: v1}}, action: DENY}\n"+
				"  - {targetRef: {kind: Service, name: backend}, action: DENY}\n"+
				"  - {targetRef: {kind: MeshSubset, tags: {version: v1}}, action: ALLOW}\n"+
				"  - {targetRef: {kind: Mesh}, action: ALLOW}\n")},
			dataplanes: append(withBackend, proxy("payments-1", map[string]string{ServiceTag: "payments"})),
			want:       []string{"PRC-W014 MeshTrafficPermission p: spec.from[2] never takes effect on any Dataplane: every field it sets is decided by spec.from[0] of p"},
		},
		{
			name: "element that selects nothing is not reported",
			policies: []Policy{mt("p", "{kind: Mesh}", ""+
				"  - {targetRef: {kind: Mesh}, connectTimeout: 1s}\n"+
				"  - {targetRef: {kind: Service, name: nowhere}, connectTimeout: 2s}\n"+
				"  - {targetRef: {kind: HTTPRoute, name: r}, connectTimeout: 2s}\n")},
			dataplanes: webOnly,
		},
		{
			name: "policy for a proxy that does not exist is not reported",
			policies: []Policy{
				mt("a", "{kind: Mesh}", "  - {targetRef: {kind: Mesh}, connectTimeout: 2s}\n"),
				mt("b", "{kind: Proxy, name: gone}", "  - {targetRef: {kind: Mesh}, connectTimeout: 1s}\n"),
			},
			dataplanes: webOnly,
		},
		{
			name: "kinds do not shadow each other",
			policies: []Policy{
				mt("a", "{kind: Mesh}", "  - {targetRef: {kind: Mesh}, connectTimeout: 2s}\n"),
				mtp("b", "{kind: Mesh}", "  - {targetRef: {kind: Mesh}, action: ALLOW}\n"),
			},
			dataplanes: withBackend,
		},
		{
			name: "no Dataplanes no warnings",
			policies: []Policy{mt("p", "{kind: Mesh}", ""+
				"  - {targetRef: {kind: Mesh}, connectTimeout: 1s}\n"+
				"  - {targetRef: {kind: Mesh}, connectTimeout: 2s}\n")},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, w := range Shadowed(tt.policies, tt.dataplanes) {
				got = append(got, w.String())
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Shadowed (-want +got):\n%s", diff)
			}
		})
	}
}

func TestShadowedWarningRefs(t *testing.T) {
	p := policy(t, "kind: MeshTimeout\nmetadata: {name: p, namespace: mesh-1}\nspec:\n  targetRef: {kind: Mesh}\n  to:\n"+
		"  - {targetRef: {kind: Mesh}, connectTimeout: 1s}\n  - {targetRef: {kind: Mesh}, connectTimeout: 2s}\n")
	got := Shadowed([]Policy{p}, []Dataplane{proxy("web-1", map[string]string{ServiceTag: "web"}, "backend")})
	want := []Warning{{
		Ref: Ref{Kind: KindMeshTimeout, Namespace: "mesh-1", Name: "p", Path: "spec.to[1]"},
		By:  []Ref{{Kind: KindMeshTimeout, Namespace: "mesh-1", Name: "p", Path: "spec.to[0]"}},
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Shadowed (-want +got):\n%s", diff)
	}
}

func TestWriteWarnings(t *testing.T) {
	dps := []Dataplane{proxy("web-1", map[string]string{ServiceTag: "web"}, "backend", "payments")}
	mt := func(name, to string) Policy {
		return policy(t, "kind: MeshTimeout\nmetadata: {name: "+name+"}\nspec:\n  targetRef: {kind: Mesh}\n  to:\n"+to)
	}
	low := mt("00-low", "  - {targetRef: {kind: Mesh}, connectTimeout: 1s}\n")
	high := mt("01-high", "  - {targetRef: {kind: Mesh}, connectTimeout: 2s}\n")
	highOther := mt("01-high", "  - {targetRef: {kind: Mesh}, http: {requestTimeout: 2s}}\n")
	selfShadowed := mt("self", "  - {targetRef: {kind: Mesh}, http: {idleTimeout: 1s}}\n  - {targetRef: {kind: Mesh}, http: {idleTimeout: 2s}}\n")
	crowded := "  - {targetRef: {kind: Mesh}, connectTimeout: 1s}\n"
	for i := 0; i < MaxWarnings+2; i++ {
		crowded += "  - {targetRef: {kind: Service, name: backend}, connectTimeout: 2s}\n"
	}
	tests := []struct {
		name     string
		written  Policy
		existing []Policy
		uncapped bool
		want     []string
	}{
		{
			name: "written policy shadows an existing one", written: high, existing: []Policy{low},
			want: []string{"PRC-W014 MeshTimeout 00-low never takes effect on any Dataplane: every field it sets is decided by 01-high"},
		},
		{
			name: "written policy is shadowed", written: low, existing: []Policy{high},
			want: []string{"PRC-W014 MeshTimeout 00-low never takes effect on any Dataplane: every field it sets is decided by 01-high"},
		},
		{
			name: "update that stops shadowing says nothing", written: highOther, existing: []Policy{low, high},
		},
		{
			name: "shadowing that predates the write is not repeated", written: high, existing: []Policy{low, high},
		},
		{
			name: "unrelated shadowing is not reported", written: highOther, existing: []Policy{selfShadowed},
		},
		{
			name: "own shadowed element is reported", written: selfShadowed, existing: []Policy{highOther},
			want: []string{"PRC-W014 MeshTimeout self: spec.to[1] never takes effect on any Dataplane: every field it sets is decided by spec.to[0] of self"},
		},
		{
			name: "warnings are capped", written: mt("crowded", crowded),
			want: func() []string {
				var w []string
				for i := 1; i <= MaxWarnings; i++ {
					w = append(w, fmt.Sprintf("PRC-W014 MeshTimeout crowded: spec.to[%d] never takes effect on any Dataplane: every field it sets is decided by spec.to[0] of crowded", i))
				}
				return append(w, "PRC-W017 2 more mesh policy warnings not shown")
			}(),
		},
		{
			name: "uncapped, every warning is returned", written: mt("crowded", crowded), uncapped: true,
			want: func() []string {
				var w []string
				for i := 1; i <= MaxWarnings+2; i++ {
					w = append(w, fmt.Sprintf("PRC-W014 MeshTimeout crowded: spec.to[%d] never takes effect on any Dataplane: every field it sets is decided by spec.to[0] of crowded", i))
				}
				return w
			}(),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := WriteWarnings(tt.written, tt.existing, dps, !tt.uncapped)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("WriteWarnings (-want +got):\n%s", diff)
			}
		})
	}
}
