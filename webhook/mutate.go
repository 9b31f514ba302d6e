package webhook

import (
	"context"
	"fmt"
	"net/http"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/precedent-dev/precedent/internal/liveconfig"
	"github.com/precedent-dev/precedent/profiles"
)

// Defaulter is the mutating handler: defaulting a schema cannot express, as JSON patches. Its
// webhook is registered with matchConditions, so only objects it would change reach it.
type Defaulter struct {
	Settings *liveconfig.Live
	Log      logr.Logger
}

var _ admission.Handler = (*Defaulter)(nil)

// Handle returns the defaulting of the profile that owns the kind, and allows anything else unchanged.
func (d *Defaulter) Handle(_ context.Context, req admission.Request) admission.Response {
	gk := schema.GroupKind{Group: req.Kind.Group, Kind: req.Kind.Kind}
	reg := d.Settings.Current().Registry()
	p := profiles.For(gk, reg)
	if p == nil || len(req.Object.Raw) == 0 {
		return admission.Allowed("")
	}
	u := &unstructured.Unstructured{}
	if err := decodeObject(req.Object.Raw, u, profiles.Annotations()); err != nil {
		return admission.Errored(http.StatusBadRequest, fmt.Errorf("decoding %s: %w", gk.Kind, err))
	}
	if u.GetNamespace() == "" {
		u.SetNamespace(req.Namespace) // the API server fills it in after mutation on create
	}
	ops := p.Default(gk, u, reg)
	d.Log.V(1).Info("defaulted", "kind", gk.Kind, "policy", klog.KRef(req.Namespace, req.Name), "patches", len(ops))
	if len(ops) == 0 {
		return admission.Allowed("")
	}
	return admission.Patched("", ops...)
}
