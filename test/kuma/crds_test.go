package kuma_test

import (
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"
)

// TestCRDShapes: the same-shape test CRDs say what each Kuma release accepts in spec: 2.14
// (test/crds/kuma, installed by TestMain) has both from and rules, master (test/crds/kuma-master,
// Kuma 3.0) has rules and no from, so that the API server prunes a from written to it.
func TestCRDShapes(t *testing.T) {
	tests := []struct {
		file string
		want []string
	}{
		{"kuma/meshtimeouts.yaml", []string{"from", "rules", "targetRef", "to"}},
		{"kuma/meshtrafficpermissions.yaml", []string{"from", "rules", "targetRef"}},
		{"kuma-master/meshtimeouts.yaml", []string{"rules", "targetRef", "to"}},
		{"kuma-master/meshtrafficpermissions.yaml", []string{"rules", "targetRef"}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("..", "crds", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			var crd struct {
				Spec struct {
					Versions []struct {
						Schema struct {
							OpenAPIV3Schema struct {
								Properties struct {
									Spec struct {
										Properties map[string]interface{} `json:"properties"`
									} `json:"spec"`
								} `json:"properties"`
							} `json:"openAPIV3Schema"`
						} `json:"schema"`
					} `json:"versions"`
				} `json:"spec"`
			}
			if err := yaml.Unmarshal(data, &crd); err != nil {
				t.Fatal(err)
			}
			if len(crd.Spec.Versions) != 1 {
				t.Fatalf("%d versions, want 1", len(crd.Spec.Versions))
			}
			var got []string
			for k := range crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties.Spec.Properties {
				got = append(got, k)
			}
			sort.Strings(got)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("spec fields (-want +got):\n%s", diff)
			}
		})
	}
}
