package chart

import (
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// keepKinds are the kinds of the caBundle-keeping policy (config/keep-cabundle).
var keepKinds = []string{"MutatingAdmissionPolicy", "MutatingAdmissionPolicyBinding"}

// keepObjects returns the objects of keepKinds in objs, by kind/name, without the chart's labels.
func keepObjects(objs []*unstructured.Unstructured) map[string]map[string]any {
	out := map[string]map[string]any{}
	for _, o := range objs {
		if slices.Contains(keepKinds, o.GetKind()) {
			o = o.DeepCopy()
			o.SetLabels(nil)
			out[o.GetKind()+"/"+o.GetName()] = o.Object
		}
	}
	return out
}

// TestKeepCABundle: per certificate mode, config/keep-cabundle adds the policy and its binding and
// nothing else to the kustomize install; the chart renders the same two objects where the API server
// serves MutatingAdmissionPolicy (1.37) and keepCABundle.enabled is left on (or absent, as in an
// older release's values), none on 1.30 or with it off; the policy matches exactly the webhook configurations each install renders; and the API
// server accepts the policy and binding.
func TestKeepCABundle(t *testing.T) {
	overlays := map[string]string{"default": "with-keep-cabundle", "builtin-certs": "builtin-with-keep-cabundle"}
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			base := renderKustomize(t, m.dir)
			with := renderKustomizeAt(t, filepath.Join("testdata", overlays[m.dir]))
			kust := keepObjects(with)
			if got := slices.Sorted(maps.Keys(kust)); !slices.Equal(got, []string{"MutatingAdmissionPolicy/precedent-keep-cabundle", "MutatingAdmissionPolicyBinding/precedent-keep-cabundle"}) {
				t.Fatalf("config/keep-cabundle adds %v, want the policy and its binding", got)
			}
			if len(with) != len(base)+2 || len(keepObjects(base)) != 0 {
				t.Errorf("config/%s renders %d objects, with config/keep-cabundle %d: want 2 more, the policy and binding (%v)", m.dir, len(base), len(with), kinds(with))
			}
			assertMatchesConfigurations(t, "kustomize", kust, with)

			for _, tc := range []struct {
				name   string
				server Server
				vals   map[string]any
				want   map[string]map[string]any
			}{
				{"1.37", Kube137, modeValues(m.mode), kust},
				{"1.30", Kube130, modeValues(m.mode), map[string]map[string]any{}},
				{"1.37 values without keepCABundle (helm upgrade --reuse-values from an older release)", Kube137, map[string]any{"certificates": map[string]any{"mode": m.mode}, "keepCABundle": nil}, kust},
				{"1.37 keepCABundle.enabled=false", Kube137, map[string]any{"certificates": map[string]any{"mode": m.mode}, "keepCABundle": map[string]any{"enabled": false}}, map[string]map[string]any{}},
			} {
				t.Run("chart "+tc.name, func(t *testing.T) {
					out, err := RenderFor(tc.server, filepath.Join(root, "charts", "precedent"), tc.vals, false)
					if err != nil {
						t.Fatal(err)
					}
					objs, err := decode(out)
					if err != nil {
						t.Fatal(err)
					}
					got := keepObjects(objs)
					if diff := cmp.Diff(tc.want, got); diff != "" {
						t.Errorf("the chart's caBundle-keeping objects (-config/keep-cabundle or none +chart):\n%s", diff)
					}
					if len(got) > 0 {
						assertMatchesConfigurations(t, "chart", got, objs)
					}
				})
			}
			var added []*unstructured.Unstructured
			for _, o := range with {
				if slices.Contains(keepKinds, o.GetKind()) {
					added = append(added, o)
				}
			}
			dryRun(t, added) // the rest is TestDryRun's
		})
	}
}

// TestKeepCABundleUnderNamePrefix: an overlay's namePrefix and nameSuffix rename the policy's
// resourceNames with the webhook configurations and the binding's policyName with the policy, so a
// renamed installation keeps its caBundle as an unrenamed one does.
func TestKeepCABundleUnderNamePrefix(t *testing.T) {
	objs := renderKustomizeAt(t, filepath.Join("testdata", "prefixed-with-keep-cabundle"))
	keep := keepObjects(objs)
	const policy = "prod-precedent-keep-cabundle-blue"
	if got := slices.Sorted(maps.Keys(keep)); !slices.Equal(got, []string{"MutatingAdmissionPolicy/" + policy, "MutatingAdmissionPolicyBinding/" + policy}) {
		t.Fatalf("the renamed install has %v, want the renamed policy and binding", got)
	}
	var b admissionregistrationv1.MutatingAdmissionPolicyBinding
	convert(t, &unstructured.Unstructured{Object: keep["MutatingAdmissionPolicyBinding/"+policy]}, &b)
	if b.Spec.PolicyName != policy {
		t.Errorf("the binding's policyName is %q, want the renamed policy %q", b.Spec.PolicyName, policy)
	}
	if n := len(byKind(objs, "ValidatingWebhookConfiguration")); n != 1 || byKind(objs, "ValidatingWebhookConfiguration")["prod-precedent-blue"] == nil {
		t.Fatalf("want one ValidatingWebhookConfiguration prod-precedent-blue, got %v", kinds(objs))
	}
	assertMatchesConfigurations(t, "kustomize with namePrefix", keep, objs)
}

// assertMatchesConfigurations: the policy in keep matches updates of exactly the webhook
// configurations of objs.
func assertMatchesConfigurations(t *testing.T, install string, keep map[string]map[string]any, objs []*unstructured.Unstructured) {
	t.Helper()
	var p admissionregistrationv1.MutatingAdmissionPolicy
	for key, o := range keep {
		if strings.HasPrefix(key, "MutatingAdmissionPolicy/") {
			convert(t, &unstructured.Unstructured{Object: o}, &p)
		}
	}
	var got []string
	for _, r := range p.Spec.MatchConstraints.ResourceRules {
		for _, res := range r.Resources {
			for _, n := range r.ResourceNames {
				got = append(got, res+"/"+n)
			}
		}
	}
	var want []string
	for kind, res := range map[string]string{"MutatingWebhookConfiguration": "mutatingwebhookconfigurations", "ValidatingWebhookConfiguration": "validatingwebhookconfigurations"} {
		for n := range byKind(objs, kind) {
			want = append(want, res+"/"+n)
		}
	}
	slices.Sort(got)
	slices.Sort(want)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%s: the policy matches (-the webhook configurations rendered +resources/resourceNames of the policy):\n%s", install, diff)
	}
}
