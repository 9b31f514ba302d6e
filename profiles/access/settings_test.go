package access_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/precedent-dev/precedent/internal/settings"
	"github.com/precedent-dev/precedent/profiles"
	accessprofile "github.com/precedent-dev/precedent/profiles/access"
	access "github.com/precedent-dev/precedent/profiles/access/engine"
)

// TestSettingsSection: spec.access of a PrecedentConfig is the access profile's section of the
// settings, read over its defaults and checked at its own path, once the profiles are installed.
func TestSettingsSection(t *testing.T) {
	profiles.Install()
	custom := access.DefaultSettings()
	custom.BackendGroup, custom.BackendKind, custom.Combine = "example.com", "Tool", access.AllAllow
	tests := []struct {
		name string
		spec map[string]interface{}
		want access.Settings
		errs []string
	}{
		{name: "absent: the defaults", spec: map[string]interface{}{}, want: access.DefaultSettings()},
		{name: "given fields over the defaults", spec: map[string]interface{}{"access": map[string]interface{}{
			"backendGroup": "example.com", "backendKind": "Tool", "combine": access.AllAllow}}, want: custom},
		{name: "checked at spec.access", spec: map[string]interface{}{"access": map[string]interface{}{"combine": "Sometimes"}},
			want: func() access.Settings { s := access.DefaultSettings(); s.Combine = "Sometimes"; return s }(),
			errs: []string{`spec.access.combine: Unsupported value: "Sometimes": supported values: "anyAllow", "allAllow"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := &unstructured.Unstructured{Object: map[string]interface{}{
				"apiVersion": "policy.precedent.dev/v1alpha1", "kind": "PrecedentConfig",
				"metadata": map[string]interface{}{"name": settings.Name}, "spec": tt.spec}}
			s, errs := settings.Decode(u)
			var got []string
			for _, e := range errs {
				got = append(got, e.Error())
			}
			if d := cmp.Diff(tt.errs, got); d != "" {
				t.Errorf("errors (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tt.want, accessprofile.SettingsOf(s)); d != "" {
				t.Errorf("settings (-want +got):\n%s", d)
			}
		})
	}
}
