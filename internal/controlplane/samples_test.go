package controlplane

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/precedent-dev/precedent/internal/manifest"
)

// TestSampleSetsDisjoint: no two sets of config/samples (what `precedent dev` applies, one folder
// at a time) define the same object or use the same namespace. Else, in the `make run` cluster, one
// set's object is kept and the other's silently not created, and a namespace shows two sets' objects
// where each profile's tour, run offline over its own folder, shows one: the answers would differ.
func TestSampleSetsDisjoint(t *testing.T) {
	root := filepath.Join("..", "..", "config", "samples")
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	objects := map[string][]string{}    // "<group>/<Kind> <ns>/<name>" → the sets that define it
	namespaces := map[string][]string{} // namespace → the sets that use it
	sets := 0
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		sets++
		objs, err := manifest.Read(filepath.Join(root, e.Name()))
		if err != nil {
			t.Fatalf("reading the samples of %s: %v", e.Name(), err)
		}
		if len(objs) == 0 {
			t.Errorf("config/samples/%s holds no objects", e.Name())
		}
		set := e.Name()
		add := func(m map[string][]string, key string) {
			if l := m[key]; len(l) == 0 || l[len(l)-1] != set {
				m[key] = append(l, set)
			}
		}
		for _, o := range objs {
			gvk := o.GroupVersionKind()
			add(objects, fmt.Sprintf("%s/%s %s/%s", gvk.Group, gvk.Kind, o.GetNamespace(), o.GetName()))
			if ns := o.GetNamespace(); ns != "" {
				add(namespaces, ns)
			}
			if gvk.Group == "" && gvk.Kind == "Namespace" {
				add(namespaces, o.GetName())
			}
		}
	}
	if sets < 2 {
		t.Fatalf("config/samples holds %d sets: nothing to compare", sets)
	}
	for what, m := range map[string]map[string][]string{"object": objects, "namespace": namespaces} {
		var shared []string
		for key, in := range m {
			if len(in) > 1 {
				shared = append(shared, fmt.Sprintf("%s %s: sets %s", what, key, strings.Join(in, ", ")))
			}
		}
		sort.Strings(shared)
		for _, s := range shared {
			t.Errorf("%s (give each set its own)", s)
		}
	}
}
