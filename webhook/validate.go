package webhook

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"time"

	"github.com/go-logr/logr"
	admissionv1 "k8s.io/api/admission/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/precedent-dev/precedent/internal/liveconfig"
	"github.com/precedent-dev/precedent/internal/profile"
	"github.com/precedent-dev/precedent/internal/settings"
	"github.com/precedent-dev/precedent/internal/state"
	"github.com/precedent-dev/precedent/internal/warning"
	"github.com/precedent-dev/precedent/profiles"
)

// Validator is the validating handler of every managed kind and of PrecedentConfig.
type Validator struct {
	Settings *liveconfig.Live
	State    *state.State
	Log      logr.Logger
}

var _ admission.Handler = (*Validator)(nil)

// Handle decodes the object once, then dispatches on its kind.
func (v *Validator) Handle(ctx context.Context, req admission.Request) admission.Response {
	start := time.Now()
	resp, kind := v.handle(req)
	decision := decisionAllowed
	switch {
	case resp.Result != nil && resp.Result.Code >= 500:
		decision = decisionError
	case !resp.Allowed:
		decision = decisionDenied
	}
	elapsed := time.Since(start)
	admissionDuration.WithLabelValues(kind, string(req.Operation), decision).Observe(elapsed.Seconds())
	if n := len(resp.Warnings); n > 0 {
		admissionWarnings.WithLabelValues(kind).Add(float64(n))
	}
	if log := v.Log.V(1); log.Enabled() { // the arguments are built only when they are written
		log.Info("reviewed", "kind", kind, "policy", klog.KRef(req.Namespace, req.Name), "operation", req.Operation,
			"dryRun", req.DryRun != nil && *req.DryRun, "decision", decision, "warnings", len(resp.Warnings), "duration", elapsed)
	}
	return resp
}

func (v *Validator) handle(req admission.Request) (admission.Response, string) {
	gk := schema.GroupKind{Group: req.Kind.Group, Kind: req.Kind.Kind}
	if !v.State.Synced() {
		return admission.Errored(http.StatusServiceUnavailable, fmt.Errorf("the policy cache is not synced yet: retry")), gk.Kind
	}
	op := profile.Operation(req.Operation)
	raw := req.Object.Raw
	if op == profile.Delete {
		raw = req.OldObject.Raw
	}
	keep := profiles.Annotations()
	u := &unstructured.Unstructured{}
	if err := decodeObject(raw, u, keep); err != nil {
		return admission.Errored(http.StatusBadRequest, fmt.Errorf("decoding %s: %w", gk.Kind, err)), gk.Kind
	}
	s, reg := v.Settings.CurrentRegistry()
	if gk == settings.GVK.GroupKind() {
		return v.config(req, u), gk.Kind
	}
	if p := profiles.For(gk, reg); p != nil {
		var old *unstructured.Unstructured
		if op == profile.Update && len(req.OldObject.Raw) > 0 {
			old = &unstructured.Unstructured{}
			if err := decodeObject(req.OldObject.Raw, old, keep); err != nil {
				return admission.Errored(http.StatusBadRequest, fmt.Errorf("decoding the old %s: %w", gk.Kind, err)), gk.Kind
			}
		}
		d := p.Review(profile.Request{GroupKind: gk, Operation: op, Object: u, Old: old, Settings: s, Registry: reg, Source: v.State})
		if !s.Notes { // notes say what the write does: sent only when the PrecedentConfig asks
			d.Warnings, _ = warning.Notes(d.Warnings)
		}
		return decide(gk, u.GetName(), d), gk.Kind
	}
	return admission.Allowed(""), gk.Kind
}

// decide turns a profile's decision into the admission response.
func decide(gk schema.GroupKind, name string, d profile.Decision) admission.Response {
	switch {
	case d.Unavailable != nil:
		return admission.Errored(http.StatusServiceUnavailable, d.Unavailable)
	case d.Internal != nil:
		return admission.Errored(http.StatusInternalServerError, d.Internal)
	}
	return respond(gk, name, d.Errs, d.Warnings, d.CheckIDs...)
}

// config validates a PrecedentConfig write with the same decoding the live loader uses.
func (v *Validator) config(req admission.Request, u *unstructured.Unstructured) admission.Response {
	if req.Operation == admissionv1.Delete {
		if u.GetName() != settings.Name {
			return admission.Allowed("")
		}
		return admission.Allowed("").WithWarnings(codeConfigDeleted.Line("deleting PrecedentConfig cluster puts the default settings in force"))
	}
	_, errs := settings.Decode(u)
	return respond(settings.GVK.GroupKind(), u.GetName(), errs, nil, profile.Same(checkConfig, len(errs))...)
}

// respond turns field errors into the API server's Invalid status, one cause per field, and adds the
// warnings either way. ids, when given, name the check of each error (validate.Outcome.CheckIDs).
func respond(gk schema.GroupKind, name string, errs field.ErrorList, warnings []string, ids ...string) admission.Response {
	if len(errs) == 0 {
		return admission.Allowed("").WithWarnings(warnings...)
	}
	for i, e := range errs {
		check := checkName(e)
		if i < len(ids) && ids[i] != "" {
			check = ids[i]
		}
		admissionRejections.WithLabelValues(check).Inc()
	}
	st := apierrors.NewInvalid(gk, name, warning.Coded(errs, ids)).Status()
	resp := admission.Denied(st.Message)
	resp.Result = &st
	return resp.WithWarnings(warnings...)
}

var indexes = regexp.MustCompile(`\[[^\]]*\]`)

// checkName labels a rejection no check ID names by its error type and field path without indexes
// or keys, e.g. "FieldValueForbidden:spec.unset", a small fixed set.
func checkName(e *field.Error) string {
	return string(e.Type) + ":" + strings.TrimSuffix(indexes.ReplaceAllString(e.Field, ""), ".")
}
