package vap

import (
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"

	"github.com/precedent-dev/precedent/internal/policy"
)

var update = flag.Bool("update", false, "rewrite the CRDs' generated rules (make generate)")

// TestCRDs: the x-kubernetes-validations of each shipped CRD's spec are what the table of checks
// derives (make generate rewrites them); the checks left out are listed.
func TestCRDs(t *testing.T) {
	for _, k := range policy.Builtin() {
		file := "../../config/crd/" + strings.ToLower(k.GVK.Kind) + ".yaml"
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

// TestAdmissible: the rules the API server would refuse in a CRD (not compiling against its schema,
// over the estimated cost limit) are left out and listed; the others are kept.
func TestAdmissible(t *testing.T) {
	src, err := os.ReadFile("../../config/crd/ratelimitpolicy.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var crd apiextensionsv1.CustomResourceDefinition
	if err := yaml.Unmarshal(src, &crd); err != nil {
		t.Fatal(err)
	}
	rule := func(id, expr string) CRDRule {
		return CRDRule{ID: id, Rule: apiextensionsv1.ValidationRule{Rule: expr, Message: id}}
	}
	kept, left, err := admissible(&crd, []CRDRule{
		rule("fine", "has(self.limits) || has(self.defaults)"),
		rule("no-such-field", "has(self.nothing)"),
		rule("too-costly", "!has(self.unset) || self.unset.all(a, self.unset.all(b, self.unset.all(c, self.unset.all(d, a + b + c + d != ''))))"),
	})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range kept {
		got = append(got, "kept "+r.ID)
	}
	for _, l := range left {
		got = append(got, "left "+l.ID)
		t.Logf("%s: %s", l.ID, l.Why)
	}
	if diff := cmp.Diff([]string{"kept fine", "left no-such-field", "left too-costly"}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
