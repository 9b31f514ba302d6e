package chart

import (
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TestComponentsCompose: config/default with the kuadrant and envoy-gateway components together
// renders (with the Go kustomize and with `kubectl kustomize`, as the README says) one
// PrecedentConfig holding both components' kind lines and nothing else, both components' webhook
// entries and RBAC, and the API server accepts all of it (server-side dry-run after the CRDs).
func TestComponentsCompose(t *testing.T) {
	dir := filepath.Join("testdata", "with-both")
	objs := renderKustomizeAt(t, dir)
	if kubectl, err := exec.LookPath("kubectl"); err == nil {
		out, err := exec.Command(kubectl, "kustomize", dir).CombinedOutput()
		if err != nil {
			t.Fatalf("kubectl kustomize %s: %v\n%s", dir, err, out)
		}
		byCLI, err := decode(out)
		if err != nil {
			t.Fatal(err)
		}
		if len(byCLI) != len(objs) {
			t.Errorf("kubectl kustomize renders %d objects, the Go kustomize %d", len(byCLI), len(objs))
		}
	}

	base := renderKustomize(t, "default")
	if got, want := len(objs), len(base)+4; got != want {
		t.Errorf("%d objects with both components, want %d (config/default's + two ClusterRoles and their bindings): %v", got, want, kinds(objs))
	}
	pc := byKind(objs, "PrecedentConfig")["cluster"]
	if pc == nil {
		t.Fatal("no PrecedentConfig cluster")
	}
	spec, _, _ := unstructured.NestedMap(pc.Object, "spec")
	var groups []string
	for _, k := range spec["kinds"].([]any) {
		g, _, _ := unstructured.NestedString(k.(map[string]any), "gvk", "group")
		p, _, _ := unstructured.NestedString(k.(map[string]any), "profile")
		groups = append(groups, g+" "+p)
	}
	want := []string{
		"kuadrant.io kuadrant", "kuadrant.io kuadrant", "kuadrant.io kuadrant",
		"gateway.envoyproxy.io envoy-gateway", "gateway.envoyproxy.io envoy-gateway", "gateway.envoyproxy.io envoy-gateway", "gateway.envoyproxy.io envoy-gateway",
	}
	if !slices.Equal(groups, want) {
		t.Errorf("PrecedentConfig kinds %v, want %v", groups, want)
	}
	if len(spec) != 1 {
		t.Errorf("PrecedentConfig spec %v: the components must set nothing but kinds", spec)
	}
	for _, name := range []string{"precedent-kuadrant", "precedent-envoy-gateway"} {
		if byKind(objs, "ClusterRole")[name] == nil || byKind(objs, "ClusterRoleBinding")[name] == nil {
			t.Errorf("no ClusterRole and binding %s", name)
		}
	}

	dryRun(t, objs)
}
