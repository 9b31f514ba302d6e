package webhook_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/go-logr/logr"
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/precedent-dev/precedent/internal/manifest"
	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/settings"
	access "github.com/precedent-dev/precedent/profiles/access/engine"
	mesh "github.com/precedent-dev/precedent/profiles/mesh/engine"
	"github.com/precedent-dev/precedent/test/gen"
	"github.com/precedent-dev/precedent/webhook"
)

// servedKinds are the kinds the webhooks are registered for: the managed defaults/overrides and
// GEP-713 kinds, AccessPolicy and XAccessPolicy, the mesh kinds and PrecedentConfig.
func servedKinds() []schema.GroupVersionKind {
	var out []schema.GroupVersionKind
	for _, k := range settings.Defaults().Registry().Kinds() {
		out = append(out, k.GVK)
	}
	return append(out,
		access.AccessPolicyKind.WithVersion("v1alpha1"),
		access.XAccessPolicyKind.WithVersion("v1alpha1"),
		schema.GroupVersionKind{Group: policy.Group, Version: "v1alpha1", Kind: mesh.KindMeshTimeout},
		schema.GroupVersionKind{Group: policy.Group, Version: "v1alpha1", Kind: mesh.KindMeshTrafficPermission},
		settings.GVK,
	)
}

var operations = []admissionv1.Operation{admissionv1.Create, admissionv1.Update, admissionv1.Delete}

// FuzzHandle sends arbitrary objects, as any served kind and operation, to the validating and the
// mutating handler over a small cluster. Whatever the object, the answer is a decision (allowed, or
// denied with its reasons) or a 400 for an object that does not decode: never a panic, never a
// server error. The seeds are every sample manifest, each as its own kind.
func FuzzHandle(f *testing.F) {
	kinds := servedKinds()
	index := map[schema.GroupKind]int{}
	for i, k := range kinds {
		index[k.GroupKind()] = i
	}
	files, err := filepath.Glob("../config/samples/*/*.yaml")
	if err != nil {
		f.Fatal(err)
	}
	more, _ := filepath.Glob("../config/samples/*/*/*.yaml")
	for _, file := range append(files, more...) {
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		objs, err := manifest.Decode(file, b)
		if err != nil {
			f.Fatalf("%s: %v", file, err)
		}
		for _, o := range objs {
			i, ok := index[o.Unstructured.GroupVersionKind().GroupKind()]
			if !ok {
				continue
			}
			raw, err := o.Unstructured.MarshalJSON()
			if err != nil {
				f.Fatal(err)
			}
			for op := range operations {
				f.Add(uint8(i), uint8(op), raw)
			}
		}
	}
	v, _ := newValidator(f, gen.Generate(gen.Size{Gateways: 3, Routes: 12, Policies: 10}))
	d := &webhook.Defaulter{Settings: v.Settings, Log: logr.Discard()}
	handlers := []struct {
		name string
		h    admission.Handler
	}{{"validating", v}, {"mutating", d}}
	f.Fuzz(func(t *testing.T, kind, op uint8, raw []byte) {
		gvk := kinds[int(kind)%len(kinds)]
		req := admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
			UID:       "fuzz",
			Kind:      metav1.GroupVersionKind{Group: gvk.Group, Version: gvk.Version, Kind: gvk.Kind},
			Resource:  metav1.GroupVersionResource{Group: gvk.Group, Version: gvk.Version, Resource: webhook.Plural(gvk.Kind)},
			Name:      "fuzz",
			Namespace: "app-0",
			Operation: operations[int(op)%len(operations)],
		}}
		switch req.Operation {
		case admissionv1.Create:
			req.Object = runtime.RawExtension{Raw: raw}
		case admissionv1.Update:
			req.Object, req.OldObject = runtime.RawExtension{Raw: raw}, runtime.RawExtension{Raw: raw}
		case admissionv1.Delete:
			req.OldObject = runtime.RawExtension{Raw: raw}
		}
		for _, h := range handlers {
			resp := h.h.Handle(context.Background(), req)
			if resp.Result != nil && resp.Result.Code >= 500 {
				t.Fatalf("%s handler, %s %s: server error %d: %s\nobject: %s", h.name, req.Operation, gvk.Kind, resp.Result.Code, resp.Result.Message, describe(raw))
			}
		}
	})
}

func describe(raw []byte) string {
	if len(raw) > 2000 {
		return fmt.Sprintf("%s… (%d bytes)", raw[:2000], len(raw))
	}
	return string(raw)
}
