package chart

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/precedent-dev/precedent/internal/controlplane"
	"github.com/precedent-dev/precedent/profiles"
	"github.com/precedent-dev/precedent/test/harness"
)

// c is an admin client of the package's control plane: a bare etcd + kube-apiserver, with no CRD
// installed before the manifests' own; env is that control plane.
var (
	c   client.Client
	env *controlplane.Env
)

func TestMain(m *testing.M) {
	profiles.Install() // the models the components' settings and the kinds' status modes read
	var err error
	env, err = controlplane.Start(controlplane.Options{AssetsDir: filepath.Join(root, "bin", "control-plane")})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if c, err = client.New(env.Config, client.Options{}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		_ = env.Stop()
		os.Exit(1)
	}
	code := m.Run()
	if err := env.Stop(); err != nil {
		fmt.Fprintln(os.Stderr, "stopping the control plane:", err)
	}
	os.Exit(code)
}

// TestDryRun: every object the chart (both certificate modes, and with every option on) and
// kustomize (both overlays, and the ServiceMonitor) render is accepted by the API server. CRDs and
// Namespaces are applied for real first (the objects of a CRD need it served), then everything else
// with a server-side dry-run apply. Objects whose CRD ships elsewhere (cert-manager, Prometheus
// Operator) are checked against the minimal same-shape CRDs of testdata/absent-crds.yaml.
func TestDryRun(t *testing.T) {
	everything := map[string]any{
		"replicas":          3,
		"certificates":      map[string]any{"mode": "certManager", "certManager": map[string]any{"issuerRef": map[string]any{"kind": "ClusterIssuer", "name": "corp-ca"}}},
		"metrics":           map[string]any{"serviceMonitor": map[string]any{"enabled": true, "labels": map[string]any{"release": "prometheus"}}},
		"config":            map[string]any{"unsetEnabled": false, "warningLimit": 20, "access": map[string]any{"combine": "allAllow"}},
		"extraKinds":        []any{map[string]any{"resource": "ratelimitpolicies", "gvk": map[string]any{"group": "kuadrant.io", "version": "v1", "kind": "RateLimitPolicy"}, "profile": "kuadrant"}},
		"rbac":              map[string]any{"extraRules": []any{map[string]any{"apiGroups": []any{"example.com"}, "resources": []any{"backends"}, "verbs": []any{"get", "list", "watch"}}}},
		"podAnnotations":    map[string]any{"example.com/team": "platform"},
		"imagePullSecrets":  []any{map[string]any{"name": "registry"}},
		"logVerbosity":      1,
		"failurePolicy":     "Ignore",
		"priorityClassName": "",
	}
	chart := func(vals map[string]any) func(*testing.T) []*unstructured.Unstructured {
		return func(t *testing.T) []*unstructured.Unstructured { return renderChart(t, vals, false) }
	}
	kustomize := func(dir string) func(*testing.T) []*unstructured.Unstructured {
		return func(t *testing.T) []*unstructured.Unstructured { return renderKustomize(t, dir) }
	}
	for _, tc := range []struct {
		name string
		objs func(t *testing.T) []*unstructured.Unstructured
	}{
		{"chart cert-manager", chart(modeValues("certManager"))},
		{"chart built-in certificates", chart(modeValues("builtin"))},
		{"chart every option", chart(everything)},
		{"kustomize default", kustomize("default")},
		{"kustomize builtin-certs", kustomize("builtin-certs")},
		{"kustomize prometheus", kustomize("prometheus")},
		{"kustomize default with the kuadrant component", func(t *testing.T) []*unstructured.Unstructured {
			return renderKustomizeAt(t, filepath.Join("testdata", "with-kuadrant"))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs := tc.objs(t)
			dryRun(t, objs)
			t.Logf("%d objects accepted: %v", len(objs), kinds(objs))
		})
	}
}

// dryRun applies the same-shape CRDs of what ships elsewhere (testdata/absent-crds.yaml), and the
// CRDs and Namespaces of objs, for real (the objects of a CRD need it served), in
// the release namespace, then server-side dry-runs the rest.
func dryRun(t *testing.T, objs []*unstructured.Unstructured) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "absent-crds.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	absent, err := decode(raw)
	if err != nil {
		t.Fatal(err)
	}
	apply(t, absent, false)
	ensureNamespace(t, namespace)
	var first, rest []*unstructured.Unstructured
	for _, o := range objs {
		if o.GetKind() == "CustomResourceDefinition" || o.GetKind() == "Namespace" {
			first = append(first, o)
		} else {
			rest = append(rest, o)
		}
	}
	apply(t, first, false)
	apply(t, rest, true)
}

// ensureNamespace creates the release namespace, as `helm install --create-namespace` does.
func ensureNamespace(t *testing.T, name string) {
	t.Helper()
	ns := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": name}}}
	apply(t, []*unstructured.Unstructured{ns}, false)
}

// apply server-side applies objs in order (with dryRun=All when dryRun; unknown fields are errors), retrying an object whose
// kind is not served yet (a CRD just applied) until a deadline; any other error fails the test.
func apply(t *testing.T, objs []*unstructured.Unstructured, dryRun bool) {
	t.Helper()
	ctx := context.Background()
	opts := []client.PatchOption{client.FieldOwner("precedent-chart-test"), client.ForceOwnership, client.FieldValidation("Strict")}
	if dryRun {
		opts = append(opts, client.DryRunAll)
	}
	for _, o := range objs {
		o := o.DeepCopy()
		o.SetManagedFields(nil)
		what := fmt.Sprintf("%s %s", o.GetKind(), client.ObjectKeyFromObject(o))
		harness.EventuallyWithin(t, time.Minute, what+" is served", func() (bool, string) {
			err := c.Patch(ctx, o, client.Apply, opts...)
			if meta.IsNoMatchError(err) {
				return false, err.Error()
			}
			if err != nil {
				t.Fatalf("%s: rejected by the API server: %v", what, err)
			}
			return true, ""
		})
		if o.GetKind() == "CustomResourceDefinition" {
			established(t, o.GetName())
		}
	}
}

// established waits until the CRD name is Established.
func established(t *testing.T, name string) {
	t.Helper()
	harness.EventuallyWithin(t, time.Minute, "CRD "+name+" is established", func() (bool, string) {
		crd := &unstructured.Unstructured{}
		crd.SetAPIVersion("apiextensions.k8s.io/v1")
		crd.SetKind("CustomResourceDefinition")
		if err := c.Get(context.Background(), client.ObjectKey{Name: name}, crd); err != nil {
			return false, err.Error()
		}
		conds, _, _ := unstructured.NestedSlice(crd.Object, "status", "conditions")
		for _, cd := range conds {
			m, _ := cd.(map[string]any)
			if m["type"] == "Established" && m["status"] == "True" {
				return true, ""
			}
		}
		return false, fmt.Sprint(conds)
	})
}
