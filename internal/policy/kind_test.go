package policy

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestRegistryResolve(t *testing.T) {
	kuadrantRLP := Kind{GVK: schema.GroupVersionKind{Group: "kuadrant.io", Version: "v1", Kind: "RateLimitPolicy"}, Profile: ProfileKuadrant}
	withKuadrant := NewRegistry(append(Builtin(), kuadrantRLP)...)
	builtin := NewRegistry(Builtin()...)
	for _, tc := range []struct {
		name    string
		reg     *Registry
		in      string
		want    schema.GroupVersionKind
		wantErr string
	}{
		{name: "kind alone when one group has it", reg: builtin, in: "RateLimitPolicy", want: Builtin()[1].GVK},
		{name: "kind is case-insensitive", reg: builtin, in: "authpolicy", want: Builtin()[0].GVK},
		{name: "kind.group picks the group", reg: withKuadrant, in: "RateLimitPolicy.kuadrant.io", want: kuadrantRLP.GVK},
		{name: "kind.group is case-insensitive", reg: withKuadrant, in: "ratelimitpolicy.Kuadrant.IO", want: kuadrantRLP.GVK},
		{name: "kind.group of the shipped kind", reg: withKuadrant, in: "RateLimitPolicy.policy.precedent.dev", want: Builtin()[1].GVK},
		{name: "kind alone that two groups have is ambiguous", reg: withKuadrant, in: "RateLimitPolicy",
			wantErr: "RateLimitPolicy is ambiguous: RateLimitPolicy.kuadrant.io, RateLimitPolicy.policy.precedent.dev"},
		{name: "kind of only one group stays unambiguous", reg: withKuadrant, in: "AuthPolicy", want: Builtin()[0].GVK},
		{name: "unmanaged group is an error naming the managed kinds", reg: builtin, in: "RateLimitPolicy.kuadrant.io",
			wantErr: `"RateLimitPolicy.kuadrant.io" is not a managed policy kind; the managed kinds are AuthPolicy.policy.precedent.dev, RateLimitPolicy.policy.precedent.dev, TrafficPolicy.policy.precedent.dev`},
		{name: "unknown kind is an error", reg: builtin, in: "Nope", wantErr: `"Nope" is not a managed policy kind; the managed kinds are AuthPolicy.policy.precedent.dev, RateLimitPolicy.policy.precedent.dev, TrafficPolicy.policy.precedent.dev`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k, err := tc.reg.Resolve(tc.in)
			gotErr := ""
			if err != nil {
				gotErr = err.Error()
			}
			if diff := cmp.Diff(tc.wantErr, gotErr); diff != "" {
				t.Fatalf("error (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.want, k.GVK); err == nil && diff != "" {
				t.Errorf("kind (-want +got):\n%s", diff)
			}
		})
	}
}

// profileMesh and meshModel stand for the mesh profile's model (profiles/mesh), which this package
// does not know: a model without a status writer, with controller versions.
const (
	profileMesh ProfileName = "mesh"
	kumaGroup               = "kuma.io"
)

var meshModel = Model{Kinds: []string{"MeshTimeout", "MeshTrafficPermission"}, Versions: []string{"2.14", "3.0"}}

func TestStatusMode(t *testing.T) {
	defer installed.Store(installed.Load())
	Install(map[ProfileName]Model{profileMesh: meshModel})
	gvk := func(group, kind string) schema.GroupVersionKind {
		return schema.GroupVersionKind{Group: group, Version: "v1alpha1", Kind: kind}
	}
	tests := []struct {
		name string
		kind Kind
		want string
	}{
		{name: "Kuma's own mesh kind defaults to none", kind: Kind{GVK: gvk(kumaGroup, "MeshTimeout"), Profile: profileMesh}, want: StatusNone},
		{name: "our mesh kind is none: the mesh profile has no status writer", kind: Kind{GVK: gvk(Group, "MeshTimeout"), Profile: profileMesh}, want: StatusNone},
		{name: "Kuma's kind with status full set stays none (the settings refuse it)", kind: Kind{GVK: gvk(kumaGroup, "MeshTimeout"), Profile: profileMesh, Status: StatusFull}, want: StatusNone},
		{name: "kuadrant kind with status full set", kind: Kind{GVK: gvk("kuadrant.io", "AuthPolicy"), Profile: ProfileKuadrant, Status: StatusFull}, want: StatusFull},
		{name: "defaults-overrides defaults to full", kind: Kind{GVK: gvk(Group, "AuthPolicy"), Profile: ProfileDefaultsOverrides}, want: StatusFull},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.kind.StatusMode(); got != tt.want {
				t.Errorf("StatusMode() = %q, want %q", got, tt.want)
			}
		})
	}
}
