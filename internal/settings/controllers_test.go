package settings_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/precedent-dev/precedent/internal/settings"
)

// TestKindControllers: a kind line's controllerNames, else its profile's default (Envoy Gateway's
// controller for envoy-gateway, Envoy Gateway's and Istio's for kuadrant, any for Precedent's own
// models), say which GatewayClass controllers its policies apply to; "*" means any; an empty or
// repeated name is refused.
func TestKindControllers(t *testing.T) {
	const eg, istio = "gateway.envoyproxy.io/gatewayclass-controller", "istio.io/gateway-controller"
	line := func(group, kind, profile string, controllers ...interface{}) interface{} {
		l := map[string]interface{}{"gvk": map[string]interface{}{"group": group, "version": "v1", "kind": kind}, "profile": profile}
		if profile == "defaults-overrides" {
			l["rulesField"] = "rules"
		}
		if controllers != nil {
			l["controllerNames"] = controllers
		}
		return l
	}
	tests := []struct {
		name     string
		line     interface{}
		want     []string // nil: any
		wantErrs []string
	}{
		{name: "envoy-gateway defaults to Envoy Gateway's controller", line: line("gateway.envoyproxy.io", "SecurityPolicy", "envoy-gateway"), want: []string{eg}},
		{name: "kuadrant defaults to its gateway providers", line: line("kuadrant.io", "RateLimitPolicy", "kuadrant"), want: []string{eg, istio}},
		{name: "defaults-overrides applies to any", line: line("example.com", "LimitPolicy", "defaults-overrides")},
		{name: "a line names its own", line: line("kuadrant.io", "AuthPolicy", "kuadrant", "openshift.io/gateway-controller/v1"), want: []string{"openshift.io/gateway-controller/v1"}},
		{name: "star means any", line: line("gateway.envoyproxy.io", "SecurityPolicy", "envoy-gateway", "*")},
		{name: "empty and repeated names refused", line: line("example.com", "LimitPolicy", "defaults-overrides", "a", "", "a"),
			wantErrs: []string{
				`spec.kinds[0].controllerNames[1]: Invalid value: "": must be a GatewayClass controllerName, unique, or "*" for any`,
				`spec.kinds[0].controllerNames[2]: Invalid value: "a": must be a GatewayClass controllerName, unique, or "*" for any`,
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := &unstructured.Unstructured{Object: map[string]interface{}{"spec": map[string]interface{}{"kinds": []interface{}{tt.line}}}}
			u.SetName(settings.Name)
			s, errs := settings.Decode(u)
			var gotErrs []string
			for _, e := range errs {
				gotErrs = append(gotErrs, e.Error())
			}
			if diff := cmp.Diff(tt.wantErrs, gotErrs); diff != "" {
				t.Fatalf("errors (-want +got):\n%s", diff)
			}
			if len(errs) > 0 {
				return
			}
			if diff := cmp.Diff(tt.want, s.Kinds[0].Controllers()); diff != "" {
				t.Errorf("controllers (-want +got):\n%s", diff)
			}
		})
	}
}
