package engine

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestValidateAcceptsMADRExamples(t *testing.T) {
	policies, _ := load(t, "testdata/madr") // load fails the test on any error
	if len(policies) != 5 {
		t.Fatalf("got %d policies, want 5", len(policies))
	}
}

func TestValidate(t *testing.T) {
	const mt = "apiVersion: policy.precedent.dev/v1alpha1\nkind: MeshTimeout\nmetadata: {name: p}\n"
	const mtp = "apiVersion: policy.precedent.dev/v1alpha1\nkind: MeshTrafficPermission\nmetadata: {name: p}\n"
	tests := []struct {
		name string
		doc  string
		want []string
	}{
		{
			name: "valid timeout with to and from",
			doc: mt + `spec:
  targetRef: {kind: ServiceSubset, name: web, tags: {version: v1}}
  to: [{targetRef: {kind: HTTPRoute, name: r}, http: {requestTimeout: 1.5s, streamIdleTimeout: 1h30m}}]
  from: [{targetRef: {kind: MeshSubset, tags: {kuma.io/zone: us-east}}, connectTimeout: 0s}]`,
		},
		{
			name: "not a mesh kind",
			doc:  "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: p}\n",
			want: []string{`kind: Unsupported value: "ConfigMap": supported values: "MeshTimeout", "MeshTrafficPermission"`},
		},
		{
			name: "spec missing",
			doc:  mt,
			want: []string{`spec: Required value: set spec.targetRef and spec.to or spec.from`},
		},
		{
			name: "spec not an object",
			doc:  mt + "spec: [1]",
			want: []string{`spec: Invalid value: "array": must be an object`},
		},
		{
			name: "targetRef missing",
			doc:  mt + "spec: {to: [{targetRef: {kind: Mesh}, connectTimeout: 1s}]}",
			want: []string{`spec.targetRef: Required value: set targetRef.kind`},
		},
		{
			name: "targetRef not an object",
			doc:  mt + "spec: {targetRef: Mesh, to: [{targetRef: {kind: Mesh}, connectTimeout: 1s}]}",
			want: []string{`spec.targetRef: Invalid value: "string": must be an object`},
		},
		{
			name: "targetRef kind missing",
			doc:  mt + "spec: {targetRef: {name: web}, to: [{targetRef: {kind: Mesh}, connectTimeout: 1s}]}",
			want: []string{`spec.targetRef.kind: Required value`},
		},
		{
			name: "targetRef kind not a string",
			doc:  mt + "spec: {targetRef: {kind: 3}, to: [{targetRef: {kind: Mesh}, connectTimeout: 1s}]}",
			want: []string{`spec.targetRef.kind: Invalid value: "integer": must be a string`},
		},
		{
			name: "top-level kind unsupported",
			doc:  mt + "spec: {targetRef: {kind: Gateway, name: gw}, to: [{targetRef: {kind: Mesh}, connectTimeout: 1s}]}",
			want: []string{`spec.targetRef.kind: Unsupported value: "Gateway": supported values: "Mesh", "MeshSubset", "Service", "ServiceSubset", "Proxy", "MeshGatewayRoute", "HTTPRoute"`},
		},
		{
			name: "to kind unsupported",
			doc:  mt + "spec: {targetRef: {kind: Mesh}, to: [{targetRef: {kind: Mesh}, connectTimeout: 1s}, {targetRef: {kind: Proxy, name: web-1}, connectTimeout: 1s}]}",
			want: []string{`spec.to[1].targetRef.kind: Unsupported value: "Proxy": supported values: "Mesh", "Service", "HTTPRoute"`},
		},
		{
			name: "from kind unsupported",
			doc:  mt + "spec: {targetRef: {kind: Mesh}, from: [{targetRef: {kind: HTTPRoute, name: r}, connectTimeout: 1s}]}",
			want: []string{`spec.from[0].targetRef.kind: Unsupported value: "HTTPRoute": supported values: "Mesh", "MeshSubset", "Service", "ServiceSubset"`},
		},
		{
			name: "name required for Service",
			doc:  mt + "spec: {targetRef: {kind: Service}, to: [{targetRef: {kind: Mesh}, connectTimeout: 1s}]}",
			want: []string{`spec.targetRef.name: Required value: required when kind is Service`},
		},
		{
			name: "name required for HTTPRoute in to",
			doc:  mt + "spec: {targetRef: {kind: Mesh}, to: [{targetRef: {kind: HTTPRoute}, connectTimeout: 1s}]}",
			want: []string{`spec.to[0].targetRef.name: Required value: required when kind is HTTPRoute`},
		},
		{
			name: "name empty for ServiceSubset",
			doc:  mt + "spec: {targetRef: {kind: ServiceSubset, name: '', tags: {version: v1}}, to: [{targetRef: {kind: Mesh}, connectTimeout: 1s}]}",
			want: []string{`spec.targetRef.name: Invalid value: "": must not be empty when kind is ServiceSubset`},
		},
		{
			name: "name not a string",
			doc:  mt + "spec: {targetRef: {kind: Proxy, name: [a]}, to: [{targetRef: {kind: Mesh}, connectTimeout: 1s}]}",
			want: []string{
				`spec.targetRef.name: Invalid value: "array": must be a string`,
				`spec.targetRef.name: Invalid value: "": must not be empty when kind is Proxy`,
			},
		},
		{
			name: "name forbidden for Mesh",
			doc:  mt + "spec: {targetRef: {kind: Mesh, name: default}, to: [{targetRef: {kind: Mesh}, connectTimeout: 1s}]}",
			want: []string{`spec.targetRef.name: Forbidden: must not be set when kind is Mesh`},
		},
		{
			name: "name forbidden for MeshSubset in from",
			doc:  mt + "spec: {targetRef: {kind: Mesh}, from: [{targetRef: {kind: MeshSubset, name: x, tags: {a: b}}, connectTimeout: 1s}]}",
			want: []string{`spec.from[0].targetRef.name: Forbidden: must not be set when kind is MeshSubset`},
		},
		{
			name: "tags forbidden for Service",
			doc:  mt + "spec: {targetRef: {kind: Service, name: web, tags: {version: v1}}, to: [{targetRef: {kind: Mesh}, connectTimeout: 1s}]}",
			want: []string{`spec.targetRef.tags: Forbidden: allowed only when kind is MeshSubset or ServiceSubset`},
		},
		{
			name: "tags forbidden for Mesh in to",
			doc:  mt + "spec: {targetRef: {kind: Mesh}, to: [{targetRef: {kind: Mesh, tags: {}}, connectTimeout: 1s}]}",
			want: []string{`spec.to[0].targetRef.tags: Forbidden: allowed only when kind is MeshSubset or ServiceSubset`},
		},
		{
			name: "tags not a map",
			doc:  mt + "spec: {targetRef: {kind: MeshSubset, tags: [a]}, to: [{targetRef: {kind: Mesh}, connectTimeout: 1s}]}",
			want: []string{`spec.targetRef.tags: Invalid value: "array": must be a map of tag names to values`},
		},
		{
			name: "tag value not a string",
			doc:  mt + "spec: {targetRef: {kind: MeshSubset, tags: {version: 2}}, to: [{targetRef: {kind: Mesh}, connectTimeout: 1s}]}",
			want: []string{`spec.targetRef.tags[version]: Invalid value: "integer": must be a string`},
		},
		{
			name: "unknown targetRef field",
			doc:  mt + "spec: {targetRef: {kind: Mesh, namespace: x}, to: [{targetRef: {kind: Mesh}, connectTimeout: 1s}]}",
			want: []string{`spec.targetRef.namespace: Forbidden: unknown field: supported fields are kind, name, tags`},
		},
		{
			name: "neither to nor from",
			doc:  mt + "spec: {targetRef: {kind: Mesh}}",
			want: []string{`spec: Required value: at least one of spec.to or spec.from must have an element`},
		},
		{
			name: "empty to",
			doc:  mt + "spec: {targetRef: {kind: Mesh}, to: []}",
			want: []string{`spec: Required value: at least one of spec.to or spec.from must have an element`},
		},
		{
			name: "to not a list",
			doc:  mt + "spec: {targetRef: {kind: Mesh}, to: {targetRef: {kind: Mesh}}}",
			want: []string{`spec.to: Invalid value: "object": must be a list`},
		},
		{
			name: "element not an object",
			doc:  mt + "spec: {targetRef: {kind: Mesh}, to: [Mesh]}",
			want: []string{`spec.to[0]: Invalid value: "string": must be an object with a targetRef`},
		},
		{
			name: "element without targetRef",
			doc:  mt + "spec: {targetRef: {kind: Mesh}, to: [{connectTimeout: 1s}]}",
			want: []string{`spec.to[0].targetRef: Required value: set targetRef.kind`},
		},
		{
			name: "unknown spec field",
			doc:  mt + "spec: {targetRef: {kind: Mesh}, to: [{targetRef: {kind: Mesh}, connectTimeout: 1s}], conf: {}}",
			want: []string{`spec.conf: Forbidden: unknown field: supported fields are targetRef, to, from`},
		},
		{
			name: "unknown element field",
			doc:  mt + "spec: {targetRef: {kind: Mesh}, to: [{targetRef: {kind: Mesh}, default: {connectTimeout: 1s}}]}",
			want: []string{`spec.to[0].default: Forbidden: unknown field: supported fields are targetRef, connectTimeout, http`},
		},
		{
			name: "unknown http field",
			doc:  mt + "spec: {targetRef: {kind: Mesh}, to: [{targetRef: {kind: Mesh}, http: {maxStreamDuration: 1s}}]}",
			want: []string{`spec.to[0].http.maxStreamDuration: Forbidden: unknown field: supported fields are idleTimeout, requestTimeout, streamIdleTimeout`},
		},
		{
			name: "http not an object",
			doc:  mt + "spec: {targetRef: {kind: Mesh}, to: [{targetRef: {kind: Mesh}, http: 5s}]}",
			want: []string{`spec.to[0].http: Invalid value: "string": must be an object`},
		},
		{
			name: "duration without unit",
			doc:  mt + "spec: {targetRef: {kind: Mesh}, to: [{targetRef: {kind: Mesh}, connectTimeout: '10'}]}",
			want: []string{`spec.to[0].connectTimeout: Invalid value: "10": must be a duration such as "5s", "1h30m" or "0.5s"`},
		},
		{
			name: "negative duration",
			doc:  mt + "spec: {targetRef: {kind: Mesh}, from: [{targetRef: {kind: Mesh}, http: {idleTimeout: -1s}}]}",
			want: []string{`spec.from[0].http.idleTimeout: Invalid value: "-1s": must be a duration such as "5s", "1h30m" or "0.5s"`},
		},
		{
			name: "duration out of range",
			doc:  mt + "spec: {targetRef: {kind: Mesh}, to: [{targetRef: {kind: Mesh}, connectTimeout: 9999999999h}]}",
			want: []string{`spec.to[0].connectTimeout: Invalid value: "9999999999h": must be a duration below 2562047h`},
		},
		{
			name: "duration not a string",
			doc:  mt + "spec: {targetRef: {kind: Mesh}, to: [{targetRef: {kind: Mesh}, http: {requestTimeout: 5}}]}",
			want: []string{`spec.to[0].http.requestTimeout: Invalid value: "integer": must be a duration string such as "5s" or "1h30m"`},
		},
		{
			name: "traffic permission with to",
			doc:  mtp + "spec: {targetRef: {kind: Mesh}, to: [{targetRef: {kind: Mesh}, action: ALLOW}], from: [{targetRef: {kind: Mesh}, action: DENY}]}",
			want: []string{`spec.to: Forbidden: MeshTrafficPermission configures inbound traffic only: use spec.from`},
		},
		{
			name: "traffic permission without from",
			doc:  mtp + "spec: {targetRef: {kind: Mesh}}",
			want: []string{`spec: Required value: spec.from must have an element`},
		},
		{
			name: "action not supported",
			doc:  mtp + "spec: {targetRef: {kind: Mesh}, from: [{targetRef: {kind: Mesh}, action: allow}]}",
			want: []string{`spec.from[0].action: Unsupported value: "allow": supported values: "ALLOW", "DENY"`},
		},
		{
			name: "action missing",
			doc:  mtp + "spec: {targetRef: {kind: Mesh}, from: [{targetRef: {kind: Service, name: web}}]}",
			want: []string{`spec.from[0].action: Required value`},
		},
		{
			name: "action not a string",
			doc:  mtp + "spec: {targetRef: {kind: Mesh}, from: [{targetRef: {kind: Mesh}, action: true}]}",
			want: []string{`spec.from[0].action: Invalid value: "boolean": must be a string`},
		},
		{
			name: "timeout field on a traffic permission",
			doc:  mtp + "spec: {targetRef: {kind: Mesh}, from: [{targetRef: {kind: Mesh}, action: DENY, connectTimeout: 1s}]}",
			want: []string{`spec.from[0].connectTimeout: Forbidden: unknown field: supported fields are targetRef, action`},
		},
		{
			name: "several errors each with its path",
			doc: mt + `spec:
  targetRef: {kind: Mesh}
  to:
    - {targetRef: {kind: Service}, connectTimeout: 1s}
    - {targetRef: {kind: ServiceSubset, name: web}, connectTimeout: soon}`,
			want: []string{
				`spec.to[0].targetRef.name: Required value: required when kind is Service`,
				`spec.to[1].targetRef.kind: Unsupported value: "ServiceSubset": supported values: "Mesh", "Service", "HTTPRoute"`,
				`spec.to[1].connectTimeout: Invalid value: "soon": must be a duration such as "5s", "1h30m" or "0.5s"`,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, e := range Validate(obj(t, tt.doc)) {
				got = append(got, e.Error())
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Validate (-want +got):\n%s", diff)
			}
		})
	}
}
