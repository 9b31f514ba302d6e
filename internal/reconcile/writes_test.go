package reconcile

import (
	"testing"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/precedent-dev/precedent/internal/liveconfig"
	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/settings"
)

// TestWrites: the reconciler writes the status of a managed kind only when its profile has a status
// writer and its status mode is full, whatever a kind line says (the settings refuse status full
// where there is no writer; the reconciler does not rely on it).
func TestWrites(t *testing.T) {
	kind := func(group, kind string, p policy.ProfileName, status string) policy.Kind {
		return policy.Kind{GVK: schema.GroupVersionKind{Group: group, Version: "v1", Kind: kind}, Profile: p, Status: status, RulesField: "rules"}
	}
	tests := []struct {
		name string
		kind policy.Kind
		want bool
	}{
		{name: "defaults-overrides by default", kind: kind("example.com", "LimitPolicy", policy.ProfileDefaultsOverrides, ""), want: true},
		{name: "defaults-overrides with status none", kind: kind("example.com", "LimitPolicy", policy.ProfileDefaultsOverrides, policy.StatusNone)},
		{name: "kuadrant by default", kind: kind("kuadrant.io", "RateLimitPolicy", policy.ProfileKuadrant, "")},
		{name: "kuadrant with status full", kind: kind("kuadrant.io", "RateLimitPolicy", policy.ProfileKuadrant, policy.StatusFull), want: true},
		{name: "Kuma's MeshTimeout even with status full", kind: kind("kuma.io", "MeshTimeout", policy.ProfileName("mesh"), policy.StatusFull)},
		{name: "a mesh kind of another group", kind: kind("example.com", "MeshTimeout", policy.ProfileName("mesh"), "")},
		{name: "Envoy Gateway's SecurityPolicy even with status full", kind: kind("gateway.envoyproxy.io", "SecurityPolicy", "envoy-gateway", policy.StatusFull)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := settings.Defaults()
			s.Kinds = []policy.Kind{tt.kind}
			r := &Reconciler{Kind: tt.kind, Settings: liveconfig.NewLive(s, logr.Discard())}
			if got := r.writes(); got != tt.want {
				t.Errorf("writes() = %t, want %t", got, tt.want)
			}
		})
	}
}
