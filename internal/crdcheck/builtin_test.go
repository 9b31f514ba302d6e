package crdcheck

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "refresh the embedded copy of config/crd (crds/)")

// shipped lists the CRDs config/crd/kustomization.yaml names: Precedent's own.
func shipped(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "config", "crd", "kustomization.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, m := range regexp.MustCompile(`(?m)^- (\S+\.yaml)$`).FindAllSubmatch(data, -1) {
		names = append(names, string(m[1]))
	}
	if len(names) == 0 {
		t.Fatal("config/crd/kustomization.yaml lists no CRD")
	}
	return names
}

// TestBuiltinCRDsAreCurrent checks that crds/ is config/crd's CRDs byte for byte; -update
// (make generate) copies them.
func TestBuiltinCRDsAreCurrent(t *testing.T) {
	names := shipped(t)
	if *update {
		old, _ := filepath.Glob(filepath.Join("crds", "*.yaml"))
		for _, f := range old {
			if err := os.Remove(f); err != nil {
				t.Fatal(err)
			}
		}
		for _, n := range names {
			data, err := os.ReadFile(filepath.Join("..", "..", "config", "crd", n))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join("crds", n), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	embedded, _ := filepath.Glob(filepath.Join("crds", "*.yaml"))
	if len(embedded) != len(names) {
		t.Errorf("crds/ holds %d files, config/crd/kustomization.yaml lists %d: run make generate", len(embedded), len(names))
	}
	for _, n := range names {
		want, err := os.ReadFile(filepath.Join("..", "..", "config", "crd", n))
		if err != nil {
			t.Fatal(err)
		}
		got, err := builtinFS.ReadFile("crds/" + n)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("crds/%s is not config/crd/%s: run make generate", n, n)
		}
	}
	crds, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := New(crds); err != nil {
		t.Fatal(err)
	}
}

// TestBuiltinRejects checks the built-in CRDs reject what the API server rejects, in its words.
func TestBuiltinRejects(t *testing.T) {
	crds, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	c, err := New(crds)
	if err != nil {
		t.Fatal(err)
	}
	checkCases(t, c, []checkCase{
		{
			name: "a typo in a block name is an unknown field",
			doc: `
apiVersion: policy.precedent.dev/v1alpha1
kind: AuthPolicy
metadata: {name: p, namespace: shop}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: cart}
  overides: {rules: {authorization: {b: {opa: {rego: allow}}}}}`,
			want: []string{
				`spec.overides: Forbidden: unknown field "spec.overides"`,
			},
		},
		{
			name: "an unknown field is an error",
			doc: `
apiVersion: policy.precedent.dev/v1alpha1
kind: AuthPolicy
metadata: {name: p, namespace: shop}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: cart}
  rules: {authorization: {b: {opa: {rego: allow}}}}
  bogusField: 1`,
			want: []string{`spec.bogusField: Forbidden: unknown field "spec.bogusField"`},
		},
		{
			name: "10000 unset entries are too many and the rules not run name no nil field",
			doc: `
apiVersion: policy.precedent.dev/v1alpha1
kind: AuthPolicy
metadata: {name: p, namespace: shop}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: cart}
  rules: {authorization: {b: {opa: {rego: allow}}}}
  unset: [` + unsetItems(10000) + `]`,
			want: []string{
				`spec.unset: Too many: 10000: must have at most 64 items`,
				`(root): Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation`,
			},
		},
	})
}

func unsetItems(n int) string {
	items := make([]string, n)
	for i := range items {
		items[i] = fmt.Sprintf("authorization.r%d", i)
	}
	return strings.Join(items, ", ")
}

// TestBuiltinCRDsBuild: the validators of every built-in CRD build (WithBuiltin builds them when
// first used, and could not report an error at the start of a run).
func TestBuiltinCRDsBuild(t *testing.T) {
	crds, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := New(crds); err != nil {
		t.Fatal(err)
	}
}
