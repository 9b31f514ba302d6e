package validate_test

import (
	"os"
	"path/filepath"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/precedent-dev/precedent/cel"
	"github.com/precedent-dev/precedent/internal/effective"
	"github.com/precedent-dev/precedent/internal/inventory"
	"github.com/precedent-dev/precedent/internal/manifest"
	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/settings"
	"github.com/precedent-dev/precedent/internal/topology"
	"github.com/precedent-dev/precedent/validate"
)

// FuzzEngine feeds arbitrary manifests through decode, view, topology, fold, checks and projection:
// whatever the input, nothing panics. Seeds are the RFC and GEP-713 samples.
func FuzzEngine(f *testing.F) {
	for _, glob := range []string{"../config/samples/rfc/*/*.yaml", "../config/samples/gep713/*.yaml", "testdata/*.yaml"} {
		files, _ := filepath.Glob(glob)
		for _, file := range files {
			b, err := os.ReadFile(file)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(b)
		}
	}
	reg := policy.NewRegistry(policy.Builtin()...)
	ev, err := cel.New(0)
	if err != nil {
		f.Fatal(err)
	}
	s := settings.Defaults()
	f.Fuzz(func(t *testing.T, data []byte) {
		objs, err := manifest.Decode("fuzz", data)
		if err != nil {
			return
		}
		us := make([]*unstructured.Unstructured, len(objs))
		for i := range objs {
			us[i] = objs[i].Unstructured
		}
		inv := inventory.Build(reg, us, nil)
		graph := topology.Build(inv.Topology)
		for _, k := range reg.Kinds() {
			snap := effective.NewSnapshot(k, graph, inv.Views(k), ev)
			snap.Items(snap.Reached(nil))
			for _, it := range inv.Items(k) {
				validate.Review(snap.Without(it.Policy.Ref), it.Object, s, ev)
				validate.ReviewDelete(snap, it.Policy.Ref, s)
			}
		}
	})
}
