package topology

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

func TestServedPaths(t *testing.T) {
	const eg, other = "gateway.envoyproxy.io/gatewayclass-controller", "example.com/other"
	gwA, gwB, gwC := gateway("infra", "a", listener("http", 80, gwv1.HTTPProtocolType, nil)),
		gateway("infra", "b", listener("http", 80, gwv1.HTTPProtocolType, nil)),
		gateway("infra", "c", listener("http", 80, gwv1.HTTPProtocolType, nil))
	gwA.Spec.GatewayClassName, gwB.Spec.GatewayClassName, gwC.Spec.GatewayClassName = "class-a", "class-b", "unknown"
	r := route("infra", "both", parent("", "a", "", 0))
	r.Spec.ParentRefs = append(r.Spec.ParentRefs, parent("", "b", "", 0), parent("", "c", "", 0))
	in := Input{Gateways: []gwv1.Gateway{gwA, gwB, gwC}, HTTPRoutes: []gwv1.HTTPRoute{r},
		GatewayClasses: []gwv1.GatewayClass{
			{ObjectMeta: metav1.ObjectMeta{Name: "class-a"}, Spec: gwv1.GatewayClassSpec{ControllerName: eg}},
			{ObjectMeta: metav1.ObjectMeta{Name: "class-b"}, Spec: gwv1.GatewayClassSpec{ControllerName: other}},
		}}
	route := Target{Kind: "HTTPRoute", Namespace: "infra", Name: "both"}
	tests := []struct {
		name        string
		graph       *Graph
		controllers []string
		want        []string // the served paths' Gateways
		wantClasses []Class  // the classes of the paths left out
	}{
		{name: "no controllers means any", graph: Build(in), want: []string{"infra/a", "infra/b", "infra/c"}},
		{name: "other controller's Gateway left out, unknown class kept", graph: Build(in), controllers: []string{eg},
			want: []string{"infra/a", "infra/c"}, wantClasses: []Class{{"class-b", other}}},
		{name: "several controllers", graph: Build(in), controllers: []string{other, eg}, want: []string{"infra/a", "infra/b", "infra/c"}},
		{name: "class set by update", graph: Build(Input{Gateways: in.Gateways, HTTPRoutes: in.HTTPRoutes}).SetGatewayClass("class-b", other),
			controllers: []string{eg}, want: []string{"infra/a", "infra/c"}, wantClasses: []Class{{"class-b", other}}},
		{name: "class controller changed by update", graph: Build(in).SetGatewayClass("class-a", other), controllers: []string{eg},
			want: []string{"infra/c"}, wantClasses: []Class{{"class-a", other}, {"class-b", other}}},
		{name: "class deleted: unknown, kept", graph: Build(in).DeleteGatewayClass("class-b"), controllers: []string{eg},
			want: []string{"infra/a", "infra/b", "infra/c"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			all := tt.graph.PathsFor(route)
			served := tt.graph.ServedPaths(all, tt.controllers)
			var got []string
			for _, i := range served {
				got = append(got, tt.graph.Paths[i].Gateway.String())
			}
			var out []int
			for _, i := range all {
				if !tt.graph.Serves(tt.graph.Paths[i].Class, tt.controllers) {
					out = append(out, i)
				}
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("served paths (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tt.wantClasses, tt.graph.ClassesOf(out)); d != "" {
				t.Errorf("classes left out (-want +got):\n%s", d)
			}
		})
	}
}

func TestOtherControllers(t *testing.T) {
	got := OtherControllers("SecurityPolicy", []Class{{"class-b", "example.com/other"}}, []string{"gateway.envoyproxy.io/gatewayclass-controller"})
	want := "PRC-W170 the policy reaches only Gateways of GatewayClass class-b (controller example.com/other), and SecurityPolicy applies to " +
		"Gateways of gateway.envoyproxy.io/gatewayclass-controller: it has no effect"
	if got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
}
