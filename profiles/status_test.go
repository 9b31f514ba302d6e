package profiles

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestStatusWriters: the engine-backed profiles have the reconciler's status writer (kuadrant's
// kinds default to none: Kuadrant's operator owns their status); mesh and envoy-gateway have none;
// access is not configurable (its kinds are not the settings', and get no status).
func TestStatusWriters(t *testing.T) {
	want := map[string]string{
		"defaults-overrides":   "writer, default full",
		"gep713":               "writer, default full",
		"kuadrant":             "writer, default none",
		"mesh":                 "no writer",
		"envoy-gateway":        "no writer",
		"nginx-gateway-fabric": "no writer",
		"kgateway":             "no writer",
	}
	got := map[string]string{}
	for name, m := range Models() {
		got[string(name)] = "no writer"
		if m.Status != nil {
			got[string(name)] = "writer, default " + m.Status.Default
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("status writers (-want +got):\n%s", diff)
	}
}
