package controlplane

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/precedent-dev/precedent/internal/manifest"
)

// Applied is the outcome of applying one folder of samples.
type Applied struct {
	Folder   string
	Created  int
	Rejected []string // "<Kind> <ns>/<name>: <reason>"
	// Skipped says why the folder was not applied ("" if it was).
	Skipped string
}

// ApplySamples creates the objects of each sub-folder of root (and of root's own files), creating
// their namespaces, skipping the folders in skip and those that use a kind the API server does not
// serve (naming every such kind). An object that already exists is left alone and reported as
// rejected, naming the folder that created it when one did: two sets defining one object would
// otherwise leave the cluster with the first one's, silently.
func ApplySamples(ctx context.Context, c client.Client, root string, skip ...string) ([]Applied, error) {
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil, fmt.Errorf("reading samples: %w", err)
	}
	skipped := map[string]bool{}
	for _, s := range skip {
		skipped[s] = true
	}
	var folders []string
	for _, e := range entries {
		if e.IsDir() && !skipped[e.Name()] {
			folders = append(folders, filepath.Join(root, e.Name()))
		}
	}
	sort.Strings(folders)
	var out []Applied
	created := map[string]string{} // "<group>/<Kind> <ns>/<name>" → the folder that created it
	for _, f := range folders {
		a, err := applyFolder(ctx, c, f, created)
		if err != nil {
			return out, err
		}
		out = append(out, a)
	}
	return out, nil
}

func applyFolder(ctx context.Context, c client.Client, dir string, created map[string]string) (Applied, error) {
	a := Applied{Folder: dir}
	objs, err := manifest.Read(dir)
	if err != nil {
		return a, err
	}
	var missing []string
	for _, o := range objs {
		gvk := o.GroupVersionKind()
		if _, err := c.RESTMapper().RESTMapping(gvk.GroupKind(), gvk.Version); err != nil {
			if m := fmt.Sprintf("%s (%s)", gvk.Kind, gvk.GroupVersion()); !slices.Contains(missing, m) {
				missing = append(missing, m)
			}
		}
	}
	if len(missing) > 0 {
		a.Skipped = strings.Join(missing, ", ") + " not installed"
		return a, nil
	}
	// The set's own Namespaces first (as written, labels and all), then the other objects in the
	// order of the files: the order of creation is the order of age.
	var spaces, rest []manifest.Object
	for _, o := range objs {
		if gvk := o.GroupVersionKind(); gvk.Group == "" && gvk.Kind == "Namespace" {
			spaces = append(spaces, o)
		} else {
			rest = append(rest, o)
		}
	}
	namespaces := map[string]bool{}
	for _, o := range append(spaces, rest...) {
		u := o.Unstructured.DeepCopy()
		u.SetCreationTimestamp(metav1.Time{})
		if ns := u.GetNamespace(); ns != "" && !namespaces[ns] {
			namespaces[ns] = true
			err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
			if err == nil {
				created["/Namespace /"+ns] = dir
			} else if !apierrors.IsAlreadyExists(err) {
				return a, fmt.Errorf("creating namespace %s: %w", ns, err)
			}
		}
		err := createRetrying(ctx, c, u)
		key := fmt.Sprintf("%s/%s %s/%s", u.GroupVersionKind().Group, u.GetKind(), u.GetNamespace(), u.GetName())
		switch {
		case err == nil:
			a.Created++
			created[key] = dir
		case apierrors.IsAlreadyExists(err) && created[key] != "":
			a.Rejected = append(a.Rejected, fmt.Sprintf("%s %s/%s: already created by the samples of %s", u.GetKind(), u.GetNamespace(), u.GetName(), created[key]))
		case apierrors.IsAlreadyExists(err):
			a.Rejected = append(a.Rejected, fmt.Sprintf("%s %s/%s: already exists", u.GetKind(), u.GetNamespace(), u.GetName()))
		case apierrors.IsInvalid(err) || apierrors.IsForbidden(err) || apierrors.IsBadRequest(err):
			a.Rejected = append(a.Rejected, fmt.Sprintf("%s %s/%s: %v", u.GetKind(), u.GetNamespace(), u.GetName(), err))
		default:
			return a, fmt.Errorf("creating %s %s/%s from %s: %w", u.GetKind(), u.GetNamespace(), u.GetName(), o.File, err)
		}
	}
	return a, nil
}

// notSynced is how long a create is retried while Precedent's webhook answers that a cache is not
// synced yet (a kind just added to the settings has its informers started then).
const notSynced = 30 * time.Second

// createRetrying creates u, retrying while the webhook says a cache is not synced yet ("retry").
func createRetrying(ctx context.Context, c client.Client, u *unstructured.Unstructured) error {
	var err error
	deadline := time.Now().Add(notSynced)
	for {
		err = c.Create(ctx, u.DeepCopy())
		if err == nil || !strings.Contains(err.Error(), "not synced yet: retry") || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}
