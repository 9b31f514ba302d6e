package state

import (
	"testing"

	"github.com/go-logr/logr"
	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/yaml"

	"github.com/precedent-dev/precedent/mesh"
)

func TestMeshGrouping(t *testing.T) {
	s := New(logr.Discard())
	s.policies[MeshTimeoutKind] = map[types.NamespacedName]*unstructured.Unstructured{}
	for _, doc := range []string{
		"{apiVersion: policy.precedent.dev/v1alpha1, kind: MeshTimeout, metadata: {name: b, namespace: x}, spec: {targetRef: {kind: Mesh}, to: [{targetRef: {kind: Mesh}, connectTimeout: 1s}]}}",
		"{apiVersion: policy.precedent.dev/v1alpha1, kind: MeshTimeout, metadata: {name: a, namespace: x, labels: {kuma.io/mesh: default}}, spec: {targetRef: {kind: Mesh}, to: [{targetRef: {kind: Mesh}, connectTimeout: 1s}]}}",
		"{apiVersion: policy.precedent.dev/v1alpha1, kind: MeshTimeout, metadata: {name: c, namespace: x, labels: {kuma.io/mesh: other}}, spec: {targetRef: {kind: Mesh}, to: [{targetRef: {kind: Mesh}, connectTimeout: 1s}]}}",
	} {
		u := &unstructured.Unstructured{}
		if err := yaml.Unmarshal([]byte(doc), &u.Object); err != nil {
			t.Fatal(err)
		}
		s.policies[MeshTimeoutKind][key(u)] = u
	}
	s.policyGen[MeshTimeoutKind]++
	s.dataplanes[types.NamespacedName{Namespace: "x", Name: "web"}] = storedDataplane{mesh: "default", dp: mesh.Dataplane{Namespace: "x", Name: "web"}}
	s.dataplanes[types.NamespacedName{Namespace: "x", Name: "db"}] = storedDataplane{mesh: "other", dp: mesh.Dataplane{Namespace: "x", Name: "db"}}
	s.dpGen++

	names := func(ps []mesh.Policy) []string {
		var out []string
		for _, p := range ps {
			out = append(out, p.ID())
		}
		return out
	}
	if diff := cmp.Diff([]string{"x/a", "x/b"}, names(s.MeshPolicies(MeshTimeoutKind, "default"))); diff != "" {
		t.Errorf("policies of mesh default (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"x/c"}, names(s.MeshPolicies(MeshTimeoutKind, "other"))); diff != "" {
		t.Errorf("policies of mesh other (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]mesh.Dataplane{{Namespace: "x", Name: "db"}}, s.Dataplanes("other"), cmp.AllowUnexported(mesh.Dataplane{})); diff != "" {
		t.Errorf("Dataplanes of mesh other (-want +got):\n%s", diff)
	}
}
