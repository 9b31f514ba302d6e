package profiles

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/settings"
	meshprofile "github.com/precedent-dev/precedent/profiles/mesh"
)

// TestEveryKindHasOneProfile: each managed kind (the shipped ones, each model's configured kinds)
// and each kind a profile manages by itself is reviewed by exactly one registered profile, the one
// its configuration names.
func TestEveryKindHasOneProfile(t *testing.T) {
	kinds := append(policy.Builtin(),
		policy.Kind{GVK: schema.GroupVersionKind{Group: "kuadrant.io", Version: "v1", Kind: "RateLimitPolicy"}, Profile: policy.ProfileKuadrant},
		policy.Kind{GVK: schema.GroupVersionKind{Group: "kuma.io", Version: "v1alpha1", Kind: "MeshTimeout"}, Profile: meshprofile.Name},
		policy.Kind{GVK: schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "LimitPolicy"}, Profile: policy.ProfileDefaultsOverrides, RulesField: "limits"},
	)
	reg := policy.NewRegistry(kinds...)
	for _, k := range kinds {
		var claims []string
		for _, p := range All() {
			if p.Claims(k.GVK.GroupKind(), reg) {
				claims = append(claims, name(p))
			}
		}
		if len(claims) != 1 || claims[0] != string(k.Profile) {
			t.Errorf("%s (profile %s) is claimed by %v, want exactly [%s]", k.GVK.GroupKind(), k.Profile, claims, k.Profile)
		}
	}
	for _, gk := range Own() {
		n := 0
		for _, p := range All() {
			if p.Claims(gk, reg) {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%s is claimed by %d profiles, want 1", gk, n)
		}
	}
}

// TestEveryModelHasAProfile: every profile a PrecedentConfig may name (policy's models) is a
// registered profile, so a configured kind never goes unreviewed.
func TestEveryModelHasAProfile(t *testing.T) {
	named := map[string]bool{}
	for _, p := range All() {
		named[string(p.Name())] = true
	}
	for _, m := range policy.Profiles() {
		if !named[m] {
			t.Errorf("profile %q can be configured but is not registered in profiles", m)
		}
	}
	if errs := settings.Defaults().Validate(field.NewPath("spec")); len(errs) > 0 {
		t.Errorf("the default settings do not validate: %v", errs)
	}
}

// TestConfigSchemaNamesEveryModel: the PrecedentConfig CRD accepts exactly the profiles that can be
// configured (its enum is what the API server checks before the webhook sees a PrecedentConfig).
func TestConfigSchemaNamesEveryModel(t *testing.T) {
	for _, file := range []string{"../config/crd/precedentconfig.yaml", "../charts/precedent/crds/precedentconfig.yaml"} {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		m := regexp.MustCompile(`(?m)^\s+enum: \[(defaults-overrides[^\]]*)\]`).FindSubmatch(b)
		if m == nil {
			t.Fatalf("%s: no enum of profiles found", file)
		}
		got := strings.Split(strings.ReplaceAll(string(m[1]), " ", ""), ",")
		if diff := cmp.Diff(policy.Profiles(), got); diff != "" {
			t.Errorf("%s: spec.kinds[].profile enum (-registered +schema):\n%s", file, diff)
		}
	}
}
