package webhook

import (
	"flag"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite config/webhook/manifests.yaml")

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

func TestPlural(t *testing.T) {
	for kind, want := range map[string]string{
		"AuthPolicy": "authpolicies", "MeshTimeout": "meshtimeouts", "Gateway": "gateways", "Mesh": "meshes",
	} {
		if got := Plural(kind); got != want {
			t.Errorf("Plural(%s) = %s, want %s", kind, got, want)
		}
	}
}
