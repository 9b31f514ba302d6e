package kuma_test

import (
	"testing"

	meshprofile "github.com/precedent-dev/precedent/profiles/mesh"
)

// TestKumaVersionSetting: a kind line's version goes through the PrecedentConfig CRD (not pruned)
// into the live settings; a line without one predicts the newest Kuma.
func TestKumaVersionSetting(t *testing.T) {
	c, _ := h.NewClient()
	t.Cleanup(func() { h.SetConfig(t, c, map[string]interface{}{}) })
	h.SetConfig(t, c, map[string]interface{}{"kinds": []interface{}{
		map[string]interface{}{"gvk": map[string]interface{}{"group": "kuma.io", "version": "v1alpha1", "kind": "MeshTimeout"}, "profile": "mesh"},
		map[string]interface{}{"gvk": map[string]interface{}{"group": "kuma.io", "version": "v1alpha1", "kind": "MeshTrafficPermission"}, "profile": "mesh", "version": "2.14"},
	}})
	got := map[string]string{}
	for _, k := range h.Live.Current().Kinds {
		if k.Profile == meshprofile.Name {
			got[k.GVK.Kind] = k.VersionInForce()
		}
	}
	want := map[string]string{"MeshTimeout": "3.0", "MeshTrafficPermission": "2.14"}
	for kind, v := range want {
		if got[kind] != v {
			t.Errorf("%s: version in force %q, want %q (all: %v)", kind, got[kind], v, got)
		}
	}
}
