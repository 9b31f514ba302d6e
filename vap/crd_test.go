package vap

import (
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/precedent-dev/precedent/policy"
)

var update = flag.Bool("update", false, "rewrite the CRDs' generated rules (make generate)")

// TestCRDs: the x-kubernetes-validations of each shipped CRD's spec are what the table of checks
// derives (make generate rewrites them); the checks left out are listed.
func TestCRDs(t *testing.T) {
	for _, k := range policy.Builtin() {
		file := "../config/crd/" + strings.ToLower(k.GVK.Kind) + ".yaml"
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		got, left, err := RewriteCRD(src, k)
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		for _, l := range left {
			t.Logf("%s: %s left out: %s", k.GVK.Kind, l.ID, l.Why)
		}
		if *update {
			if err := os.WriteFile(file, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if diff := cmp.Diff(string(src), string(got)); diff != "" {
			t.Errorf("%s is stale (run make generate) (-file +generated):\n%s", file, diff)
		}
	}
}
