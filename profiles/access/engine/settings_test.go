package engine

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

func TestSettingsCheck(t *testing.T) {
	path := field.NewPath("spec", "access")
	for _, c := range []struct {
		name string
		s    Settings
		want field.ErrorList
	}{
		{"defaults pass", DefaultSettings(), nil},
		{"unknown combine mode", Settings{BackendKind: DefaultBackendKind, Combine: "oneAllow"},
			field.ErrorList{field.NotSupported(path.Child("combine"), "oneAllow", []string{AnyAllow, AllAllow})}},
		{"no combine mode and no Backend kind", Settings{},
			field.ErrorList{field.NotSupported(path.Child("combine"), "", []string{AnyAllow, AllAllow}),
				field.Required(path.Child("backendKind"), "the Backend kind AccessPolicies may target")}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if d := cmp.Diff(c.want, c.s.Check(path)); d != "" {
				t.Errorf("errors (-want +got):\n%s", d)
			}
		})
	}
}
