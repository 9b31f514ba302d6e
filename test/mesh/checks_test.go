package mesh_test

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/precedent-dev/precedent/test/harness"
)

// TestRejections writes each invalid mesh policy with a dry-run and for real: the API server must
// return Invalid with these causes, whether the CRD schema or the webhook caught it, and persist
// nothing.
func TestRejections(t *testing.T) {
	c, _ := h.NewClient()
	ns := harness.Namespace(t, c)
	timeout := func(spec string) string {
		return "apiVersion: policy.precedent.dev/v1alpha1\nkind: MeshTimeout\nmetadata: {name: p, namespace: \"{{ns}}\"}\nspec:\n" + spec
	}
	permission := func(spec string) string {
		return "apiVersion: policy.precedent.dev/v1alpha1\nkind: MeshTrafficPermission\nmetadata: {name: p, namespace: \"{{ns}}\"}\nspec:\n" + spec
	}
	tests := []struct {
		name string
		obj  string
		want harness.Rejection
	}{
		{
			name: "kind not allowed in to (CRD schema)",
			obj:  timeout("  targetRef: {kind: Mesh}\n  to:\n  - {targetRef: {kind: Mesh}, connectTimeout: 1s}\n  - {targetRef: {kind: MeshSubset, tags: {version: v1}}, connectTimeout: 1s}\n"),
			want: harness.Rejection{Causes: []harness.Cause{{Type: metav1.CauseTypeFieldValueNotSupported, Field: "spec.to[1].targetRef.kind"}, harness.SchemaStopped}, Message: `Unsupported value: "MeshSubset"`},
		},
		{
			name: "name on a Mesh target (CRD schema)",
			obj:  timeout("  targetRef: {kind: Mesh, name: default}\n  to: [{targetRef: {kind: Mesh}, connectTimeout: 1s}]\n"),
			want: harness.Rejection{Causes: []harness.Cause{{Type: metav1.CauseTypeForbidden, Field: "spec.targetRef.name"}}, Message: "name must not be set when kind is Mesh or MeshSubset"},
		},
		{
			name: "no name on a Service target (CRD schema)",
			obj:  timeout("  targetRef: {kind: Mesh}\n  to: [{targetRef: {kind: Service}, connectTimeout: 1s}]\n"),
			want: harness.Rejection{Causes: []harness.Cause{{Type: metav1.CauseTypeFieldValueRequired, Field: "spec.to[0].targetRef.name"}}, Message: "name is required when kind is not Mesh or MeshSubset"},
		},
		{
			name: "tags on a Service target (CRD schema)",
			obj:  timeout("  targetRef: {kind: Service, name: web, tags: {version: v1}}\n  to: [{targetRef: {kind: Mesh}, connectTimeout: 1s}]\n"),
			want: harness.Rejection{Causes: []harness.Cause{{Type: metav1.CauseTypeForbidden, Field: "spec.targetRef.tags"}}, Message: "tags are allowed only when kind is MeshSubset or ServiceSubset"},
		},
		{
			name: "malformed duration (CRD schema)",
			obj:  timeout("  targetRef: {kind: Mesh}\n  to: [{targetRef: {kind: Mesh}, connectTimeout: 10 seconds}]\n"),
			want: harness.Rejection{Causes: []harness.Cause{{Type: metav1.CauseTypeFieldValueInvalid, Field: "spec.to[0].connectTimeout"}}, Message: "should match"},
		},
		{
			name: "neither to nor from (CRD schema)",
			obj:  timeout("  targetRef: {kind: Mesh}\n"),
			want: harness.Rejection{Causes: []harness.Cause{{Type: metav1.CauseTypeFieldValueInvalid, Field: "spec"}}, Message: "at least one of spec.to or spec.from must have an element"},
		},
		{
			name: "MeshTrafficPermission with to (CRD schema)",
			obj:  permission("  targetRef: {kind: Mesh}\n  to: [{targetRef: {kind: Mesh}}]\n  from: [{targetRef: {kind: Mesh}, action: ALLOW}]\n"),
			want: harness.Rejection{Causes: []harness.Cause{{Type: metav1.CauseTypeForbidden, Field: "spec.to"}}, Message: "MeshTrafficPermission configures inbound traffic only: use spec.from"},
		},
		{
			name: "action neither ALLOW nor DENY (CRD schema)",
			obj:  permission("  targetRef: {kind: Mesh}\n  from: [{targetRef: {kind: Mesh}, action: PERMIT}]\n"),
			want: harness.Rejection{Causes: []harness.Cause{{Type: metav1.CauseTypeFieldValueNotSupported, Field: "spec.from[0].action"}, harness.SchemaStopped}, Message: `Unsupported value: "PERMIT"`},
		},
		{
			name: "from element without action (CRD schema)",
			obj:  permission("  targetRef: {kind: Mesh}\n  from: [{targetRef: {kind: Service, name: web}}]\n"),
			want: harness.Rejection{Causes: []harness.Cause{{Type: metav1.CauseTypeFieldValueRequired, Field: "spec.from[0].action"}, harness.SchemaStopped}, Message: "Required value"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			harness.AssertRejected(t, c, harness.ObjectIn(ns, tt.obj), tt.want)
		})
	}
}
