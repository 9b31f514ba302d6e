package harness

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"
)

// Probe is a RateLimitPolicy with a duplicate unset: the schema cannot see duplicates, so only the
// validating webhook rejects it.
const Probe = `
apiVersion: policy.precedent.dev/v1alpha1
kind: RateLimitPolicy
metadata: {name: probe, namespace: default}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: probe}
  unset: [a, a]`

// Denied reports whether a server-side dry-run create of doc is denied by a webhook, with the error
// the API server returned.
func Denied(ctx context.Context, c client.Client, doc string) (bool, string) {
	err := c.Create(ctx, Object(doc), client.DryRunAll)
	return apierrors.IsInvalid(err) && strings.Contains(err.Error(), "denied the request"), fmt.Sprint(err)
}

// Namespace creates a namespace for one test and deletes it when the test ends.
func Namespace(t testing.TB, c client.Client) string {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "t-"}}
	if err := c.Create(context.Background(), ns); err != nil {
		t.Fatalf("creating a namespace: %v", err)
	}
	t.Cleanup(func() { _ = c.Delete(context.Background(), ns) })
	return ns.Name
}

// Object reads one YAML document; it panics on a malformed one (a broken fixture).
func Object(doc string) *unstructured.Unstructured {
	u, err := read(doc)
	if err != nil {
		panic(err)
	}
	return u
}

// ObjectIn reads one YAML document with {{ns}} replaced by ns.
func ObjectIn(ns, doc string) *unstructured.Unstructured {
	return Object(strings.ReplaceAll(doc, "{{ns}}", ns))
}

func read(doc string) (*unstructured.Unstructured, error) {
	u := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(doc), &u.Object); err != nil {
		return nil, fmt.Errorf("test fixture: %w", err)
	}
	return u, nil
}

// Create creates objs, failing the test on the first error.
func Create(t testing.TB, c client.Client, objs ...*unstructured.Unstructured) {
	t.Helper()
	for _, o := range objs {
		if err := c.Create(context.Background(), o); err != nil {
			t.Fatalf("creating %s %s/%s: %v", o.GetKind(), o.GetNamespace(), o.GetName(), err)
		}
	}
}

// Apply creates the YAML documents of docs (each may hold several, separated by ---) in namespace
// ns, with {{ns}} replaced by ns, failing the test on error, and returns the created objects.
func Apply(t testing.TB, c client.Client, ns string, docs ...string) []*unstructured.Unstructured {
	t.Helper()
	var out []*unstructured.Unstructured
	for _, d := range docs {
		for _, doc := range strings.Split(d, "\n---\n") {
			if strings.TrimSpace(doc) == "" {
				continue
			}
			u, err := read(strings.ReplaceAll(doc, "{{ns}}", ns))
			if err != nil {
				t.Fatal(err)
			}
			u.SetNamespace(ns)
			Create(t, c, u)
			out = append(out, u)
		}
	}
	return out
}

// ApplySamples writes the sample files into namespace ns, their namespace `from` replaced by ns, and
// the same documents into a folder of files it returns, so a test can ask the CLI both ways. The
// objects are deleted when the test ends: envtest runs no namespace controller, so a deleted
// namespace keeps them, and later tests of the package would read them.
func ApplySamples(t testing.TB, c client.Client, ns, from string, files ...string) string {
	t.Helper()
	if len(files) == 0 {
		t.Fatal("no sample files")
	}
	dir := t.TempDir()
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		doc := strings.ReplaceAll(string(b), "namespace: "+from, "namespace: "+ns)
		for _, u := range Apply(t, c, ns, doc) {
			t.Cleanup(func() { _ = c.Delete(context.Background(), u) })
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(f)), []byte(doc), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}
