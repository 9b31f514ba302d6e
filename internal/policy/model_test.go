package policy

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// TestCheckKindInstalled: a kind line is checked against the models installed from the profiles'
// table; a program that installed none is told so rather than told the profile is unsupported, and
// a profile without a status writer refuses status full.
func TestCheckKindInstalled(t *testing.T) {
	defer installed.Store(installed.Load())
	timeout := Kind{GVK: schema.GroupVersionKind{Group: kumaGroup, Version: "v1alpha1", Kind: "MeshTimeout"}, Profile: profileMesh}
	full := timeout
	full.Status = StatusFull
	mesh := meshModel
	tests := []struct {
		name    string
		install map[ProfileName]Model // nil: nothing installed
		kind    Kind
		want    []string
	}{
		{name: "nothing installed", kind: timeout,
			want: []string{"spec.kinds[0].profile: Internal error: no policy models are installed: the program must call profiles.Install before it reads settings"}},
		{name: "profile not installed", install: map[ProfileName]Model{}, kind: timeout,
			want: []string{`spec.kinds[0].profile: Unsupported value: "mesh"`}},
		{name: "installed", install: map[ProfileName]Model{profileMesh: mesh}, kind: timeout},
		{name: "status full without a status writer", install: map[ProfileName]Model{profileMesh: mesh}, kind: full,
			want: []string{`spec.kinds[0].status: Unsupported value: "full": supported values: "none"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			installed.Store(nil)
			if tt.install != nil {
				Install(tt.install)
			}
			var got []string
			for _, e := range CheckKind(tt.kind, field.NewPath("spec", "kinds").Index(0)) {
				got = append(got, e.Error())
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}
