package chart

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// root is the repository root, seen from test/chart.
var root = filepath.Join("..", "..")

// namespace is where both ways install Precedent (the chart's release namespace).
const namespace = Namespace

// renderChart renders charts/precedent (Render) into objects.
func renderChart(t testing.TB, vals map[string]any, upgrade bool) []*unstructured.Unstructured {
	t.Helper()
	out, err := Render(root, vals, upgrade)
	if err != nil {
		t.Fatal(err)
	}
	objs, err := decode(out)
	if err != nil {
		t.Fatalf("reading the rendered chart: %v\n%s", err, out)
	}
	return objs
}

// renderKustomize builds config/<dir> as `kubectl kustomize` does.
func renderKustomize(t testing.TB, dir string) []*unstructured.Unstructured {
	t.Helper()
	return renderKustomizeAt(t, filepath.Join(root, "config", dir))
}

// renderKustomizeAt builds the kustomization in dir (an absolute path or one relative to the test).
func renderKustomizeAt(t testing.TB, dir string) []*unstructured.Unstructured {
	t.Helper()
	k := krusty.MakeKustomizer(krusty.MakeDefaultOptions())
	m, err := k.Run(filesys.MakeFsOnDisk(), dir)
	if err != nil {
		t.Fatalf("building config/%s: %v", dir, err)
	}
	out, err := m.AsYaml()
	if err != nil {
		t.Fatal(err)
	}
	objs, err := decode(out)
	if err != nil {
		t.Fatalf("reading config/%s: %v", dir, err)
	}
	return objs
}

// decode splits a multi-document YAML stream into objects, skipping empty documents.
func decode(stream []byte) ([]*unstructured.Unstructured, error) {
	d := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(stream), 4096)
	var out []*unstructured.Unstructured
	for {
		u := &unstructured.Unstructured{}
		if err := d.Decode(&u.Object); err != nil {
			if errors.Is(err, io.EOF) {
				return out, nil
			}
			return nil, err
		}
		if len(u.Object) == 0 {
			continue
		}
		if u.GetKind() == "" || u.GetAPIVersion() == "" {
			return nil, fmt.Errorf("a document without kind or apiVersion: %v", u.Object)
		}
		out = append(out, u)
	}
}

// byKind returns the objects of kind, by name.
func byKind(objs []*unstructured.Unstructured, kind string) map[string]*unstructured.Unstructured {
	out := map[string]*unstructured.Unstructured{}
	for _, o := range objs {
		if o.GetKind() == kind {
			out[o.GetName()] = o
		}
	}
	return out
}

// kinds lists kind/name of objs, for failure messages.
func kinds(objs []*unstructured.Unstructured) []string {
	var out []string
	for _, o := range objs {
		out = append(out, o.GetKind()+"/"+o.GetName())
	}
	return out
}
