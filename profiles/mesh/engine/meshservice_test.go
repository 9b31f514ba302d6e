package engine

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestParseMeshService: what the engine reads of Kuma's MeshService (its ports, named or not, and
// its mesh label), and malformed ports as errors naming the field.
func TestParseMeshService(t *testing.T) {
	head := "apiVersion: kuma.io/v1alpha1\nkind: MeshService\nmetadata: {name: backend, namespace: shop, labels: {kuma.io/mesh: other, team: payments}}\n"
	tests := []struct {
		name    string
		spec    string
		want    ServiceObject
		wantErr string
	}{
		{
			name: "a named and an unnamed port", spec: "spec: {ports: [{name: http, port: 8080}, {port: 9090}]}",
			want: ServiceObject{Namespace: "shop", Name: "backend", Mesh: "other", Labels: map[string]string{MeshLabel: "other", "team": "payments"},
				Ports: []ServicePort{{Name: "http", Port: 8080}, {Port: 9090}}},
		},
		{
			name: "no ports", spec: "spec: {}",
			want: ServiceObject{Namespace: "shop", Name: "backend", Mesh: "other", Labels: map[string]string{MeshLabel: "other", "team": "payments"}},
		},
		{name: "a port out of range", spec: "spec: {ports: [{port: 70000}]}", wantErr: "spec.ports[0].port: must be a port number"},
		{name: "a port that is not a number", spec: "spec: {ports: [{port: http}]}", wantErr: "spec.ports[0].port: must be a port number"},
		{name: "ports that are not a list", spec: "spec: {ports: {port: 80}}", wantErr: "spec.ports: must be a list"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseMeshService(obj(t, head+tt.spec))
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParseMeshService (-want +got):\n%s", diff)
			}
			for _, p := range got.Ports {
				if want := map[int32]string{8080: "http", 9090: "9090"}[p.Port]; p.SectionName() != want {
					t.Errorf("port %d: SectionName %q, want %q", p.Port, p.SectionName(), want)
				}
			}
		})
	}
}
