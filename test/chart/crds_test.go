package chart

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"
)

// TestChartCRDsAreConfigCRDs: the chart's crds/ holds exactly the CRDs config/crd/kustomization.yaml
// lists, byte for byte (`make chart-crds` copies them).
func TestChartCRDsAreConfigCRDs(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(root, "config", "crd", "kustomization.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var k struct {
		Resources []string `json:"resources"`
	}
	if err := yaml.Unmarshal(raw, &k); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(filepath.Join(root, "charts", "precedent", "crds"))
	if err != nil {
		t.Fatal(err)
	}
	var inChart []string
	for _, e := range entries {
		inChart = append(inChart, e.Name())
	}
	want := slices.Sorted(slices.Values(k.Resources))
	if diff := cmp.Diff(want, inChart); diff != "" {
		t.Fatalf("charts/precedent/crds holds other files than config/crd/kustomization.yaml lists (run make chart-crds) (-config +chart):\n%s", diff)
	}
	for _, f := range want {
		a, err := os.ReadFile(filepath.Join(root, "config", "crd", f))
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(root, "charts", "precedent", "crds", f))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a, b) {
			t.Errorf("charts/precedent/crds/%s differs from config/crd/%s (run make chart-crds)", f, f)
		}
	}
}
