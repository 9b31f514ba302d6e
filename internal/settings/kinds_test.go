package settings_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/settings"
)

// TestKindStatus: a kind line may ask status full only of a profile with a status writer (the
// engine's: defaults-overrides, gep713, kuadrant); the others' kinds (mesh, envoy-gateway) are
// another controller's to report, and their status mode is none.
func TestKindStatus(t *testing.T) {
	line := func(group, version, kind, profile, status string) interface{} {
		l := map[string]interface{}{"gvk": map[string]interface{}{"group": group, "version": version, "kind": kind}, "profile": profile}
		if profile == string(policy.ProfileDefaultsOverrides) {
			l["rulesField"] = "rules"
		}
		if status != "" {
			l["status"] = status
		}
		return l
	}
	kumaTimeout := func(status string) interface{} {
		return line("kuma.io", "v1alpha1", "MeshTimeout", "mesh", status)
	}
	securityPolicy := func(status string) interface{} {
		return line("gateway.envoyproxy.io", "v1alpha1", "SecurityPolicy", "envoy-gateway", status)
	}
	tests := []struct {
		name  string
		lines []interface{}
		// modes are the status modes of the configured kinds, when the settings are valid
		modes    []string
		wantErrs []string
	}{
		{
			name:     "Kuma's MeshTimeout with status full refused",
			lines:    []interface{}{kumaTimeout("full")},
			wantErrs: []string{`spec.kinds[0].status: Unsupported value: "full": supported values: "none"`},
		},
		{
			name:     "Envoy Gateway's SecurityPolicy with status full refused, naming its line",
			lines:    []interface{}{kumaTimeout(""), line("example.com", "v1", "LimitPolicy", "defaults-overrides", ""), securityPolicy("full")},
			wantErrs: []string{`spec.kinds[2].status: Unsupported value: "full": supported values: "none"`},
		},
		{
			name:     "a mesh kind of another group with status full refused",
			lines:    []interface{}{line("example.com", "v1", "MeshTimeout", "mesh", "full")},
			wantErrs: []string{`spec.kinds[0].status: Unsupported value: "full": supported values: "none"`},
		},
		{
			name:  "mesh and envoy-gateway kinds default to none",
			lines: []interface{}{kumaTimeout(""), line("example.com", "v1", "MeshTimeout", "mesh", ""), securityPolicy("")},
			modes: []string{policy.StatusNone, policy.StatusNone, policy.StatusNone},
		},
		{
			name:  "status none accepted where there is no writer",
			lines: []interface{}{kumaTimeout("none"), securityPolicy("none")},
			modes: []string{policy.StatusNone, policy.StatusNone},
		},
		{
			name: "the engine's profiles take full or none; kuadrant defaults to none",
			lines: []interface{}{
				line("example.com", "v1", "LimitPolicy", "defaults-overrides", ""),
				line("example.com", "v1", "TimeoutPolicy", "gep713", "none"),
				line("kuadrant.io", "v1", "RateLimitPolicy", "kuadrant", ""),
				line("kuadrant.io", "v1", "AuthPolicy", "kuadrant", "full"),
			},
			modes: []string{policy.StatusFull, policy.StatusNone, policy.StatusNone, policy.StatusFull},
		},
		{
			name:     "a mode that does not exist",
			lines:    []interface{}{line("example.com", "v1", "LimitPolicy", "defaults-overrides", "some")},
			wantErrs: []string{`spec.kinds[0].status: Unsupported value: "some": supported values: "full", "none"`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, ok := decodeKinds(t, tt.lines, tt.wantErrs)
			if !ok {
				return
			}
			var modes []string
			for _, k := range s.Kinds {
				modes = append(modes, k.StatusMode())
			}
			if diff := cmp.Diff(tt.modes, modes); diff != "" {
				t.Errorf("status modes (-want +got):\n%s", diff)
			}
		})
	}
}

// TestKindVersion: a kind line may name the controller version its profile predicts, one of those
// the profile knows (an unknown one is a field error naming them); left out, the newest is in force.
func TestKindVersion(t *testing.T) {
	line := func(group, kind, profile, version string) interface{} {
		l := map[string]interface{}{"gvk": map[string]interface{}{"group": group, "version": "v1alpha1", "kind": kind}, "profile": profile}
		if profile == string(policy.ProfileDefaultsOverrides) {
			l["rulesField"] = "rules"
		}
		if version != "" {
			l["version"] = version
		}
		return l
	}
	tests := []struct {
		name     string
		line     interface{}
		want     string // the version in force, when valid
		wantErrs []string
	}{
		{name: "Kuma 2.14 named", line: line("kuma.io", "MeshTrafficPermission", "mesh", "2.14"), want: "2.14"},
		{name: "Kuma left out: the newest", line: line("kuma.io", "MeshTimeout", "mesh", ""), want: "3.0"},
		{name: "Envoy Gateway 1.9 named", line: line("gateway.envoyproxy.io", "SecurityPolicy", "envoy-gateway", "1.9"), want: "1.9"},
		{
			name:     "an unknown Kuma version names the known ones",
			line:     line("kuma.io", "MeshTimeout", "mesh", "2.9"),
			wantErrs: []string{`spec.kinds[0].version: Unsupported value: "2.9": supported values: "2.14", "3.0"`},
		},
		{name: "Precedent's own model has no versions", line: line("example.com", "LimitPolicy", "defaults-overrides", ""), want: ""},
		{
			name:     "a version of a model without versions",
			line:     line("example.com", "LimitPolicy", "defaults-overrides", "1.0"),
			wantErrs: []string{`spec.kinds[0].version: Unsupported value: "1.0"`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, ok := decodeKinds(t, []interface{}{tt.line}, tt.wantErrs)
			if ok && s.Kinds[0].VersionInForce() != tt.want {
				t.Errorf("version in force = %q, want %q", s.Kinds[0].VersionInForce(), tt.want)
			}
		})
	}
}

// decodeKinds decodes a PrecedentConfig of the kind lines, fails unless its errors are wantErrs, and
// reports whether it is valid.
func decodeKinds(t *testing.T, lines []interface{}, wantErrs []string) (settings.Settings, bool) {
	t.Helper()
	u := &unstructured.Unstructured{Object: map[string]interface{}{"spec": map[string]interface{}{"kinds": lines}}}
	u.SetName(settings.Name)
	s, errs := settings.Decode(u)
	var gotErrs []string
	for _, e := range errs {
		gotErrs = append(gotErrs, e.Error())
	}
	if diff := cmp.Diff(wantErrs, gotErrs); diff != "" {
		t.Fatalf("errors (-want +got):\n%s", diff)
	}
	return s, len(errs) == 0
}
