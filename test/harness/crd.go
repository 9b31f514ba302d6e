package harness

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"
)

// InstallCRDCopy installs the shipped CRD config/crd/<file> under another API group, as a kind a
// PrecedentConfig can add to the managed kinds, with edits applied to it, waits until it is served,
// and removes it when the test ends. It returns the copy's apiVersion.
func InstallCRDCopy(t testing.TB, c client.Client, file, group string, edits ...func(crd *unstructured.Unstructured)) string {
	t.Helper()
	ctx := context.Background()
	raw, err := os.ReadFile(filepath.Join(root, "config", "crd", file))
	if err != nil {
		t.Fatal(err)
	}
	crd := &unstructured.Unstructured{}
	if err := yaml.Unmarshal(raw, &crd.Object); err != nil {
		t.Fatalf("reading %s: %v", file, err)
	}
	plural, _, _ := unstructured.NestedString(crd.Object, "spec", "names", "plural")
	kind, _, _ := unstructured.NestedString(crd.Object, "spec", "names", "kind")
	versions, _, _ := unstructured.NestedSlice(crd.Object, "spec", "versions")
	if len(versions) == 0 {
		t.Fatalf("%s has no versions", file)
	}
	version, _, _ := unstructured.NestedString(versions[0].(map[string]interface{}), "name")
	crd.SetName(plural + "." + group)
	if err := unstructured.SetNestedField(crd.Object, group, "spec", "group"); err != nil {
		t.Fatal(err)
	}
	for _, edit := range edits {
		edit(crd)
	}
	if err := c.Create(ctx, crd); err != nil {
		t.Fatalf("installing %s: %v", crd.GetName(), err)
	}
	t.Cleanup(func() { _ = c.Delete(context.Background(), crd) })
	apiVersion := group + "/" + version
	awaitServed(t, c, crd.GetName(), apiVersion, kind)
	return apiVersion
}

// InstallSchemaless installs a namespaced CRD of kind in group, version v1, whose spec has no schema
// of its own (any fields, nothing defaulted): a configured kind whose checks and defaulting are all
// Precedent's. It waits until the kind is served, removes it when the test ends, and returns its
// apiVersion.
func InstallSchemaless(t testing.TB, c client.Client, group, kind string) string {
	t.Helper()
	plural := strings.ToLower(kind) + "s"
	if strings.HasSuffix(plural, "ys") {
		plural = strings.TrimSuffix(plural, "ys") + "ies"
	}
	crd := Object(fmt.Sprintf(`
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: %[1]s.%[2]s}
spec:
  group: %[2]s
  names: {kind: %[3]s, listKind: %[3]sList, plural: %[1]s, singular: %[4]s}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {type: object, x-kubernetes-preserve-unknown-fields: true}`, plural, group, kind, strings.ToLower(kind)))
	Create(t, c, crd)
	t.Cleanup(func() { _ = c.Delete(context.Background(), crd) })
	apiVersion := group + "/v1"
	awaitServed(t, c, crd.GetName(), apiVersion, kind)
	return apiVersion
}

// awaitServed waits until the API server serves kind in apiVersion (its CRD name given for the
// message): a list of it answers.
func awaitServed(t testing.TB, c client.Client, name, apiVersion, kind string) {
	t.Helper()
	l := &unstructured.UnstructuredList{}
	l.SetAPIVersion(apiVersion)
	l.SetKind(kind + "List")
	EventuallyWithin(t, time.Minute, "the CRD "+name+" is served", func() (bool, string) {
		err := c.List(context.Background(), l, client.Limit(1))
		return err == nil, ErrString(err)
	})
}

// LimitsKind is the PrecedentConfig `kinds` entry that manages the RateLimitPolicy CRD copied to
// group by InstallCRDCopy.
func LimitsKind(group string) map[string]interface{} {
	return map[string]interface{}{
		"gvk":     map[string]interface{}{"group": group, "version": "v1alpha1", "kind": "RateLimitPolicy"},
		"profile": "defaults-overrides", "rulesField": "limits", "conditionField": "when",
	}
}

// GatewayLimits is a RateLimitPolicy gw-limits of apiVersion on the Gateway gw, whose overrides
// (with strategy) set the rule global.
func GatewayLimits(apiVersion, strategy string) string {
	return `
apiVersion: ` + apiVersion + `
kind: RateLimitPolicy
metadata: {name: gw-limits}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: gw}
  overrides: {strategy: ` + strategy + `, limits: {global: {rates: [{limit: 100, window: 1m}]}}}`
}

// InstallCRDFiles installs the CRDs of the YAML files under dir (relative to the repository root),
// waits until each is established and removes them when the test ends.
func InstallCRDFiles(t testing.TB, c client.Client, dir string) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(root, dir, "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no CRDs in %s (%v)", dir, err)
	}
	InstallCRDPaths(t, c, files...)
}

// InstallCRDPaths installs the CRDs of the YAML files at the given paths (another project's, read
// from the module cache), waits until each is established and removes them when the test ends.
func InstallCRDPaths(t testing.TB, c client.Client, files ...string) {
	t.Helper()
	ctx := context.Background()
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		crd := &unstructured.Unstructured{}
		if err := yaml.Unmarshal(raw, &crd.Object); err != nil {
			t.Fatalf("reading %s: %v", f, err)
		}
		if crd.GetKind() != "CustomResourceDefinition" {
			continue
		}
		if err := c.Create(ctx, crd); err != nil {
			t.Fatalf("installing %s: %v", crd.GetName(), err)
		}
		t.Cleanup(func() { _ = c.Delete(context.Background(), crd) })
		group, _, _ := unstructured.NestedString(crd.Object, "spec", "group")
		kind, _, _ := unstructured.NestedString(crd.Object, "spec", "names", "kind")
		versions, _, _ := unstructured.NestedSlice(crd.Object, "spec", "versions")
		version, _, _ := unstructured.NestedString(versions[0].(map[string]interface{}), "name")
		l := &unstructured.UnstructuredList{}
		l.SetAPIVersion(group + "/" + version)
		l.SetKind(kind + "List")
		EventuallyWithin(t, time.Minute, "the CRD "+crd.GetName()+" is served", func() (bool, string) {
			err := c.List(ctx, l, client.Limit(1))
			return err == nil, ErrString(err)
		})
	}
}

// WithoutStatusAncestors removes status.ancestors from every version's schema of a CRD: the API
// server then prunes it from what is written, as it does for a kind whose owner keeps none (Kuadrant's).
func WithoutStatusAncestors(crd *unstructured.Unstructured) {
	versions, _, _ := unstructured.NestedSlice(crd.Object, "spec", "versions")
	for _, v := range versions {
		unstructured.RemoveNestedField(v.(map[string]interface{}), "schema", "openAPIV3Schema", "properties", "status", "properties", "ancestors")
	}
	_ = unstructured.SetNestedSlice(crd.Object, versions, "spec", "versions")
}
