package webhook_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/go-logr/logr"
	"github.com/google/go-cmp/cmp"
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/precedent-dev/precedent/internal/liveconfig"
	"github.com/precedent-dev/precedent/internal/manifest"
	"github.com/precedent-dev/precedent/internal/settings"
	"github.com/precedent-dev/precedent/internal/state/memory"
	"github.com/precedent-dev/precedent/profiles"
	"github.com/precedent-dev/precedent/webhook"
)

// kgatewayValidator is a Validator over config/samples/kgateway, with the PrecedentConfig of the
// config/kgateway component in force; it returns the sample's objects too.
func kgatewayValidator(t *testing.T) (*webhook.Validator, map[string]*unstructured.Unstructured) {
	t.Helper()
	cfg, err := manifest.Read(filepath.Join("..", "config", "kgateway", "precedentconfig.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	s, errs := settings.Decode(cfg[0].Unstructured)
	if len(errs) > 0 {
		t.Fatal(errs.ToAggregate())
	}
	return samplesValidator(t, "kgateway", s)
}

// samplesValidator is a Validator over the sample set config/samples/<set> with settings s in force;
// it returns the set's objects too, by "Kind ns/name".
func samplesValidator(t *testing.T, set string, s settings.Settings) (*webhook.Validator, map[string]*unstructured.Unstructured) {
	t.Helper()
	objs, err := manifest.Read(filepath.Join("..", "config", "samples", set))
	if err != nil {
		t.Fatal(err)
	}
	var us []*unstructured.Unstructured
	byName := map[string]*unstructured.Unstructured{}
	for _, o := range objs {
		us = append(us, o.Unstructured)
		byName[o.GetKind()+" "+o.GetNamespace()+"/"+o.GetName()] = o.Unstructured
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	src, err := memory.New(ctx, us, memory.Options{Kinds: s.Registry().Kinds(), Own: profiles.Own()})
	if err != nil {
		t.Fatal(err)
	}
	if err := profiles.Prepare(src.State, s); err != nil {
		t.Fatal(err)
	}
	return &webhook.Validator{Settings: liveconfig.NewLive(s, logr.Discard()), State: src.State, Log: logr.Discard()}, byName
}

// admissionOf is the admission request the API server sends for op of obj (old: the stored object
// an update replaces, or the object a delete removes), as kubectl apply writes it: with its
// last-applied-configuration annotation.
func admissionOf(t *testing.T, op admissionv1.Operation, obj, old *unstructured.Unstructured) admission.Request {
	t.Helper()
	raw := func(u *unstructured.Unstructured) []byte {
		if u == nil {
			return nil
		}
		u = u.DeepCopy()
		last, err := json.Marshal(u.Object)
		if err != nil {
			t.Fatal(err)
		}
		a := u.GetAnnotations()
		if a == nil {
			a = map[string]string{}
		}
		a["kubectl.kubernetes.io/last-applied-configuration"] = string(last)
		u.SetAnnotations(a)
		b, err := json.Marshal(u.Object)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	subject := obj
	if subject == nil {
		subject = old
	}
	gvk := subject.GroupVersionKind()
	return admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
		UID:       "review",
		Kind:      metav1.GroupVersionKind{Group: gvk.Group, Version: gvk.Version, Kind: gvk.Kind},
		Resource:  metav1.GroupVersionResource{Group: gvk.Group, Version: gvk.Version, Resource: webhook.Plural(gvk.Kind)},
		Name:      subject.GetName(),
		Namespace: subject.GetNamespace(),
		Operation: op,
		Object:    runtime.RawExtension{Raw: raw(obj)},
		OldObject: runtime.RawExtension{Raw: raw(old)},
	}}
}

// withMode is u with its kgateway.dev/inherited-policy-priority annotation set to mode ("": none)
// and a label added (so that the update changes something).
func withMode(u *unstructured.Unstructured, mode string) *unstructured.Unstructured {
	x := u.DeepCopy()
	a := x.GetAnnotations()
	delete(a, "kgateway.dev/inherited-policy-priority")
	if mode != "" {
		if a == nil {
			a = map[string]string{}
		}
		a["kgateway.dev/inherited-policy-priority"] = mode
	}
	x.SetAnnotations(a)
	x.SetLabels(map[string]string{"team": "platform"})
	return x
}

// TestReviewReadsTheWrittenAnnotations: the webhook's review of an HTTPRoute update reads the
// annotation the write carries and the one of the object it replaces, through the handler's own
// decoding (which drops the last-applied copy): an update that keeps the parent route's
// ShallowMergePreferParent says nothing, one that changes it says what its children lose or gain.
func TestReviewReadsTheWrittenAnnotations(t *testing.T) {
	v, objs := kgatewayValidator(t)
	root := objs["HTTPRoute infra/root"]
	if root == nil {
		t.Fatal("config/samples/kgateway has no HTTPRoute infra/root")
	}
	const (
		preferParent = "ShallowMergePreferParent"
		preferChild  = "ShallowMergePreferChild"
		deepChild    = "DeepMergePreferChild"
	)
	takesAway := []string{"PRC-W232 this annotation change takes `rateLimit` away from 1 child route"}
	cases := []struct {
		name     string
		op       admissionv1.Operation
		obj, old *unstructured.Unstructured
		want     []string
	}{
		{"update keeps the annotation", admissionv1.Update, withMode(root, preferParent), root, nil},
		{"update to the mode a missing annotation reads as", admissionv1.Update, withMode(root, preferChild), root, takesAway},
		{"update removes the annotation", admissionv1.Update, withMode(root, ""), root, takesAway},
		{"update to a non-default mode that also yields to children", admissionv1.Update, withMode(root, deepChild), root, takesAway},
		{"update back from a non-default mode", admissionv1.Update, withMode(root, preferParent), withMode(root, deepChild),
			[]string{"PRC-W233 this annotation change overrides `rateLimit` of 1 child route with the parent's"}},
		{"update between two child-preferring modes", admissionv1.Update, withMode(root, preferChild), withMode(root, deepChild), nil},
		{"delete says nothing", admissionv1.Delete, nil, root, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			resp := v.Handle(context.Background(), admissionOf(t, c.op, c.obj, c.old))
			if !resp.Allowed {
				t.Fatalf("denied: %+v", resp.Result)
			}
			if d := cmp.Diff(c.want, resp.Warnings); d != "" {
				t.Errorf("warnings (-want +got):\n%s", d)
			}
		})
	}
}

// TestDeleteSaysWhatTakesEffect: the delete of a Gateway policy whose defaults are in effect on a
// route is answered, through the handler, with a warning (sent whether or not notes are asked for)
// naming the rules the route is left without.
func TestDeleteSaysWhatTakesEffect(t *testing.T) {
	v, objs := samplesValidator(t, "rfc/b1", settings.Defaults())
	gw := objs["AuthPolicy b1/gw-policy"]
	if gw == nil {
		t.Fatal("config/samples/rfc/b1 has no AuthPolicy b1/gw-policy")
	}
	resp := v.Handle(context.Background(), admissionOf(t, admissionv1.Delete, nil, gw))
	if !resp.Allowed {
		t.Fatalf("denied: %+v", resp.Result)
	}
	want := []string{"PRC-W026 removing this policy leaves `authentication.a` and `authorization.b` with no rule in effect on 1 route"}
	if d := cmp.Diff(want, resp.Warnings); d != "" {
		t.Errorf("warnings (-want +got):\n%s", d)
	}
}
