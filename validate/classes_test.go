package validate

import (
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/precedent-dev/precedent/cel"
	"github.com/precedent-dev/precedent/internal/effective"
	"github.com/precedent-dev/precedent/internal/topology"
	"github.com/precedent-dev/precedent/test/gen"
)

// TestOtherControllers: a policy whose targets reach only Gateways of a GatewayClass whose
// controller its kind does not apply to is warned with PRC-W170; a kind that applies to any
// controller, or to the class's, or a Gateway whose class is unknown, is not.
func TestOtherControllers(t *testing.T) {
	const other = "example.com/other"
	warned := "PRC-W170 the policy reaches only Gateways of GatewayClass example (controller " + other + "), and RateLimitPolicy " +
		"applies to Gateways of gateway.envoyproxy.io/gatewayclass-controller: it has no effect"
	tests := []struct {
		name        string
		class       string // the controller of GatewayClass example; "" leaves the class out
		controllers []string
		want        []string
	}{
		{name: "kind applies to any controller", class: other},
		{name: "star means any controller", class: other, controllers: []string{"*"}},
		{name: "kind applies to the class's controller", class: other, controllers: []string{other}},
		{name: "kind applies to another controller", class: other, controllers: []string{"gateway.envoyproxy.io/gatewayclass-controller"}, want: []string{warned}},
		{name: "class unknown: not warned", controllers: []string{"gateway.envoyproxy.io/gatewayclass-controller"}},
	}
	ev, err := cel.New(0)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := gen.Generate(gen.Size{Gateways: 1, Routes: 1, Policies: 0})
			if tt.class != "" {
				w.Input.GatewayClasses = []gwv1.GatewayClass{{ObjectMeta: metav1.ObjectMeta{Name: "example"}, Spec: gwv1.GatewayClassSpec{ControllerName: gwv1.GatewayController(tt.class)}}}
			}
			k := w.Kind
			k.ControllerNames = tt.controllers
			p := gen.RoutePolicy(k, 0, 0)
			p.Unset = nil
			snap := effective.NewSnapshot(k, topology.Build(w.Input), nil, ev)
			var got []string
			for _, l := range Project(snap, p.Ref, p) {
				if strings.HasPrefix(l, "PRC-W170") {
					got = append(got, l)
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("warnings %q, want %q", got, tt.want)
			}
		})
	}
}
