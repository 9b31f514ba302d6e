package checks_test

import (
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/precedent-dev/precedent/internal/checks"
	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/settings"
)

var kebab = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// TestTable checks the identities: unique kebab-case IDs, each with profiles, a path, a message
// and a Go function, found by ByID.
func TestTable(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range checks.All() {
		if !kebab.MatchString(c.ID) {
			t.Errorf("check ID %q is not kebab-case", c.ID)
		}
		if seen[c.ID] {
			t.Errorf("check ID %q appears twice", c.ID)
		}
		seen[c.ID] = true
		if len(c.Profiles) == 0 || c.Path == "" || c.Message == "" || c.Go == nil {
			t.Errorf("check %s lacks profiles, path, message or Go function", c.ID)
		}
		if got, ok := checks.ByID(c.ID); !ok || got.ID != c.ID {
			t.Errorf("ByID(%q) = %q, %t", c.ID, got.ID, ok)
		}
	}
	if _, ok := checks.ByID("no-such-check"); ok {
		t.Error("ByID finds an unknown ID")
	}
}

// TestFor lists the checks of each profile: the mesh profile's live in package mesh.
func TestFor(t *testing.T) {
	ids := func(p policy.ProfileName) []string {
		var out []string
		for _, c := range checks.For(policy.Kind{Profile: p}) {
			out = append(out, c.ID)
		}
		return out
	}
	targets := []string{"target-required", "target-no-namespace", "target-name-required", "target-group-supported",
		"target-kind-supported", "target-same-kind", "target-unique"}
	tests := []struct {
		profile policy.ProfileName
		want    []string
	}{
		{policy.ProfileDefaultsOverrides, append(append([]string(nil), targets...), "do-bare-with-blocks", "do-not-empty", "do-strategy",
			"do-when-compiles", "unset-switched-off", "unset-id-format", "unset-duplicate", "unset-declared")},
		{policy.ProfileGEP713, append(append([]string(nil), targets...), "gep713-default-or-override")},
		{policy.ProfileKuadrant, append(append([]string(nil), targets...), "kuadrant-bare-with-blocks", "kuadrant-defaults-with-overrides",
			"kuadrant-strategy", "kuadrant-rules-required", "kuadrant-not-empty")},
		{policy.ProfileName("mesh"), nil},
	}
	for _, tt := range tests {
		t.Run(string(tt.profile), func(t *testing.T) {
			if diff := cmp.Diff(tt.want, ids(tt.profile)); diff != "" {
				t.Errorf("For (-want +got):\n%s", diff)
			}
		})
	}
}

// TestEvaluateOrder: the findings of consecutive checks of one scope read element by element.
func TestEvaluateOrder(t *testing.T) {
	var spec map[string]interface{}
	if err := yaml.Unmarshal([]byte(`
targetRefs:
- {group: gateway.networking.k8s.io, kind: HTTPRoute, name: a, namespace: x}
- {group: gateway.networking.k8s.io, kind: Gateway, name: "", namespace: y}
defaults: {strategy: replace, rules: {authorization: {a: {}}}}
overrides: {strategy: nope}
unset: [b, authorization.a, authorization.c, authorization.c]`), &spec); err != nil {
		t.Fatal(err)
	}
	k := policy.Builtin()[0]
	p, errs := policy.View(k, &unstructured.Unstructured{Object: map[string]interface{}{"spec": spec}})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	var got []string
	for _, f := range checks.Evaluate(checks.Input{Policy: p, Settings: settings.Defaults()}) {
		got = append(got, f.ID+" "+f.Err.Field)
	}
	want := []string{
		"target-no-namespace spec.targetRefs[0].namespace",
		"target-no-namespace spec.targetRefs[1].namespace",
		"target-name-required spec.targetRefs[1].name",
		"target-same-kind spec.targetRefs[1].kind",
		"do-strategy spec.defaults.strategy",
		"do-strategy spec.overrides.strategy",
		"unset-id-format spec.unset[0]",
		"unset-declared spec.unset[1]",
		"unset-duplicate spec.unset[3]",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Evaluate (-want +got):\n%s", diff)
	}
}
