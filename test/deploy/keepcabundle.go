package deploy

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// keepCABundleOverlays are config/builtin-certs and config/default with the component
// config/keep-cabundle, as an admin on Kubernetes 1.36+ writes them.
var keepCABundleOverlays = map[bool]string{
	true:  filepath.Join("testdata", "builtin-with-keep-cabundle"),
	false: filepath.Join("testdata", "default-with-keep-cabundle"),
}

// KeepCABundle applies what config/keep-cabundle adds to the install base (the caBundle-keeping
// MutatingAdmissionPolicy and its binding), rendered from the overlay of base's certificate mode
// (builtin) as `kubectl apply -k` does, and returns what removes it.
func KeepCABundle(ctx context.Context, c client.Client, base *Rendered, builtin bool) (func() error, error) {
	with, err := RenderKustomize(keepCABundleOverlays[builtin])
	if err != nil {
		return nil, err
	}
	added := &Rendered{Source: with.Source}
	for _, o := range with.Objects {
		if base.Find(o.GetKind(), o.GetName()) == nil {
			added.Objects = append(added.Objects, o)
		}
	}
	if len(added.Objects) == 0 {
		return nil, fmt.Errorf("%s adds nothing to %s", with.Source, base.Source)
	}
	remove := func() error {
		var errs []error
		for _, o := range added.Objects {
			u := &unstructured.Unstructured{}
			u.SetGroupVersionKind(o.GroupVersionKind())
			u.SetName(o.GetName())
			if err := c.Delete(ctx, u); err != nil && !apierrors.IsNotFound(err) {
				errs = append(errs, err)
			}
		}
		return errors.Join(errs...)
	}
	_, err = added.Apply(ctx, c)
	return remove, err
}
