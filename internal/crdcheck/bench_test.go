package crdcheck

import (
	"context"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/precedent-dev/precedent/internal/manifest"
	"github.com/precedent-dev/precedent/test/gen"
)

// BenchmarkCheckAll checks the policies of the generated world (a tenth of make bench-offline's
// 1x: 500 RateLimitPolicies, with the routes and Gateways they target, which no built-in CRD
// checks), decoded from YAML as the CLI decodes them, against the built-in CRDs.
func BenchmarkCheckAll(b *testing.B) {
	objs, err := gen.Generate(gen.Size{Gateways: 100, Routes: 1000, Policies: 500}).Objects()
	if err != nil {
		b.Fatal(err)
	}
	var doc []byte
	for _, u := range objs {
		raw, err := yaml.Marshal(u.Object)
		if err != nil {
			b.Fatal(err)
		}
		doc = append(append(doc, "---\n"...), raw...)
	}
	crds, err := Builtin()
	if err != nil {
		b.Fatal(err)
	}
	c, err := New(crds)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		decoded, err := manifest.Decode("world.yaml", doc)
		if err != nil {
			b.Fatal(err)
		}
		us := make([]*unstructured.Unstructured, len(decoded))
		for i, o := range decoded {
			us[i] = o.Unstructured
		}
		b.StartTimer()
		for _, errs := range c.CheckAll(context.Background(), us) {
			if len(errs) > 0 {
				b.Fatal(errs)
			}
		}
	}
}
