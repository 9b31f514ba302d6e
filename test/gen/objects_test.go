package gen

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	"github.com/precedent-dev/precedent/internal/policy"
)

// TestObjects checks that the unstructured world reads back as the typed world: every policy
// object views as the generated policy, and the counts and creation order hold.
func TestObjects(t *testing.T) {
	w := Generate(Size{Gateways: 10, Routes: 100, Policies: 50})
	objs, err := w.Objects()
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	var views []*policy.Policy
	for _, o := range objs {
		count[o.GetKind()]++
		if o.GetKind() != w.Kind.GVK.Kind {
			continue
		}
		p, errs := policy.View(w.Kind, o)
		if len(errs) > 0 {
			t.Fatalf("%s/%s: %v", o.GetNamespace(), o.GetName(), errs)
		}
		views = append(views, p)
	}
	want := map[string]int{"Namespace": 51, "Gateway": 10, "HTTPRoute": 100, "RateLimitPolicy": 50}
	if d := cmp.Diff(want, count); d != "" {
		t.Errorf("object counts (-want +got):\n%s", d)
	}
	ignorePaths := cmpopts.IgnoreTypes(&field.Path{})
	// Blocks made by View carry their sorted rule ids, and policies their identity hash, unexported;
	// the rules and fields themselves are compared.
	if d := cmp.Diff(w.Policies, views, ignorePaths, cmpopts.EquateEmpty(), cmpopts.IgnoreUnexported(policy.Block{}, policy.Policy{})); d != "" {
		t.Errorf("policies read back (-generated +viewed):\n%s", d)
	}
	b, err := YAML(objs[:3])
	if err != nil {
		t.Fatal(err)
	}
	var first map[string]interface{}
	if err := yaml.Unmarshal(b[len("---\n"):], &first); err != nil {
		t.Fatalf("reading the YAML back: %v", err)
	}
	if first["kind"] != "Namespace" {
		t.Errorf("first document: %v", first)
	}
}
