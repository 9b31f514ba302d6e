package manifest

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"
)

// originAnnotation is where kustomize records the file an object of its output came from.
const originAnnotation = "config.kubernetes.io/origin"

// kustomize builds the kustomization of dir in-process, as `kubectl kustomize dir` does (the same
// library, its default options: files outside the kustomization's root are refused), and adds its
// output to the input. Each object is located at the file it came from (kustomize's origin
// tracking), at the document of that kind and name; a build that fails is a problem of the
// input naming the kustomization.
func (in *Input) kustomize(dir string) {
	kfile := kustomizationIn(dir)
	k := krusty.MakeKustomizer(krusty.MakeDefaultOptions())
	m, err := k.Run(originFS{filesys.MakeFsOnDisk()}, dir)
	if err != nil {
		in.Problems = append(in.Problems, &ReadError{File: kfile, Index: -1, Err: err})
		return
	}
	sources := map[string][]Object{} // the objects of each source file, decoded once
	for i, r := range m.Resources() {
		obj, err := r.Map()
		if err != nil {
			in.Problems = append(in.Problems, &ReadError{File: kfile, Index: i, Err: err})
			continue
		}
		u := &unstructured.Unstructured{Object: obj}
		file, line := kfile, 0
		if origin, err := r.GetOrigin(); err == nil && origin != nil && origin.Repo == "" && origin.Path != "" {
			file = filepath.Join(dir, filepath.FromSlash(origin.Path))
			if _, ok := sources[file]; !ok {
				if data, err := os.ReadFile(file); err == nil {
					sources[file], _ = decode(file, data)
				}
			}
			line = lineOf(sources[file], u)
		}
		dropOrigin(u)
		if line == 0 {
			file = kfile
		}
		in.Objects = append(in.Objects, Object{Unstructured: u, File: file, Index: i, Line: line})
	}
}

// lineOf is the line of the document of src that u was built from: the one of u's kind and name,
// else of u's kind whose name u's name holds (a namePrefix or nameSuffix), else 0.
func lineOf(src []Object, u *unstructured.Unstructured) int {
	for _, o := range src {
		if o.GetKind() == u.GetKind() && o.GetName() == u.GetName() {
			return o.Line
		}
	}
	for _, o := range src {
		if o.GetKind() == u.GetKind() && o.GetName() != "" && strings.Contains(u.GetName(), o.GetName()) {
			return o.Line
		}
	}
	return 0
}

// dropOrigin removes the origin annotation kustomize added (and the annotations map it leaves empty).
func dropOrigin(u *unstructured.Unstructured) {
	a := u.GetAnnotations()
	if _, ok := a[originAnnotation]; !ok {
		return
	}
	delete(a, originAnnotation)
	if len(a) == 0 {
		unstructured.RemoveNestedField(u.Object, "metadata", "annotations")
		return
	}
	u.SetAnnotations(a)
}

// originFS is the disk, except that every kustomization read asks for origin annotations (its
// buildMetadata gets originAnnotations), so that each object of the output says its file.
type originFS struct{ filesys.FileSystem }

func (f originFS) ReadFile(path string) ([]byte, error) {
	data, err := f.FileSystem.ReadFile(path)
	if err != nil || !isKustomization(filepath.Base(path)) {
		return data, err
	}
	var k map[string]interface{}
	if yaml.Unmarshal(data, &k) != nil || k == nil {
		return data, nil // kustomize reports what is wrong with it
	}
	var meta []interface{}
	if m, ok := k["buildMetadata"].([]interface{}); ok {
		meta = m
	}
	if slices.Contains(meta, interface{}(types.OriginAnnotations)) {
		return data, nil
	}
	k["buildMetadata"] = append(meta, types.OriginAnnotations)
	out, err := yaml.Marshal(k)
	if err != nil {
		return data, nil
	}
	return out, nil
}
