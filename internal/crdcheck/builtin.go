package crdcheck

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"sort"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/precedent-dev/precedent/internal/manifest"
)

// builtinFS holds Precedent's own CRDs, a copy of the ones config/crd/kustomization.yaml lists
// (`make generate` refreshes it; TestBuiltinCRDsAreCurrent fails while it is stale). go:embed cannot
// reach config/ from here, hence the copy.
//
//go:embed crds/*.yaml
var builtinFS embed.FS

// Builtin returns Precedent's own CustomResourceDefinitions, as shipped, in file name order. The
// offline commands check Precedent's kinds against them when the input brings no CRD of its own for
// the kind (a CRD in the input or given with --crd wins: the user may run a newer one).
func Builtin() ([]*unstructured.Unstructured, error) {
	names, err := fs.Glob(builtinFS, "crds/*.yaml")
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	var out []*unstructured.Unstructured
	for _, name := range names {
		data, err := builtinFS.ReadFile(name)
		if err != nil {
			return nil, err
		}
		objs, err := manifest.Decode("(built in) "+path.Base(name), data)
		if err != nil {
			return nil, err
		}
		for _, o := range objs {
			if !IsCRD(o.Unstructured) {
				return nil, fmt.Errorf("(built in) %s: document %d is a %s, not a CustomResourceDefinition", path.Base(name), o.Index, o.GetKind())
			}
			out = append(out, o.Unstructured)
		}
	}
	return out, nil
}
