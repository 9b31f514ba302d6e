package webhook

import (
	"flag"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the generated files (make generate)")

const manifestsFile = "../config/webhook/manifests.yaml"

func TestManifests(t *testing.T) {
	got, err := Manifests()
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile(manifestsFile, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(manifestsFile)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s is stale (run go test ./webhook -run TestManifests -update) (-file +generated):\n%s", manifestsFile, diff)
	}
}

const chartResourcesFile = "../charts/precedent/templates/_profiles.tpl"

// TestChartResources: the chart's list of the resources the webhooks see is what the profiles
// register (make generate rewrites it).
func TestChartResources(t *testing.T) {
	got := string(ChartResources())
	if *update {
		if err := os.WriteFile(chartResourcesFile, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(chartResourcesFile)
	if err != nil {
		t.Fatalf("%v (run make generate)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s is stale (run make generate) (-file +generated):\n%s", chartResourcesFile, diff)
	}
}

func TestPlural(t *testing.T) {
	for kind, want := range map[string]string{
		"AuthPolicy": "authpolicies", "MeshTimeout": "meshtimeouts", "Gateway": "gateways", "Mesh": "meshes",
	} {
		if got := Plural(kind); got != want {
			t.Errorf("Plural(%s) = %s, want %s", kind, got, want)
		}
	}
}
