package engine

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/precedent-dev/precedent/internal/topology"
)

// TestPortOverlap: a ClientTrafficPolicy on one of several plain-HTTP listeners sharing a port is
// Invalid in Envoy Gateway (clienttrafficpolicy.go validatePortOverlapForClientTrafficPolicy); on
// a listener alone on its port, on an HTTPS listener or on the whole Gateway it is not.
func TestPortOverlap(t *testing.T) {
	g := topology.Build(topology.Input{Gateways: []gwv1.Gateway{{ObjectMeta: metav1.ObjectMeta{Namespace: gwNS, Name: "eg"},
		Spec: gwv1.GatewaySpec{GatewayClassName: "eg", Listeners: []gwv1.Listener{
			{Name: "a", Port: 80, Protocol: gwv1.HTTPProtocolType, Hostname: ptr.To(gwv1.Hostname("a.example.com"))},
			{Name: "b", Port: 80, Protocol: gwv1.HTTPProtocolType, Hostname: ptr.To(gwv1.Hostname("b.example.com"))},
			{Name: "c", Port: 8080, Protocol: gwv1.HTTPProtocolType},
			{Name: "s1", Port: 443, Protocol: gwv1.HTTPSProtocolType, Hostname: ptr.To(gwv1.Hostname("a.example.com"))},
			{Name: "s2", Port: 443, Protocol: gwv1.HTTPSProtocolType, Hostname: ptr.To(gwv1.Hostname("b.example.com"))},
		}}}}})
	for _, c := range []struct {
		name string
		ref  obj
		want []string
	}{
		{"a listener sharing its port with another plain-HTTP listener", sref("Gateway", "eg", "a"),
			[]string{`spec.targetRefs[0].sectionName: Invalid value: "a": listener envoy-gateway-system/eg/a shares port 80 with the plain-HTTP listeners envoy-gateway-system/eg/b: Envoy Gateway marks the policy Invalid; target the Gateway or give the listener its own port`}},
		{"a listener alone on its port", sref("Gateway", "eg", "c"), nil},
		{"HTTPS listeners sharing a port", sref("Gateway", "eg", "s1"), nil},
		{"the whole Gateway", ref("Gateway", "eg"), nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			var got []string
			for _, e := range PortOverlap(pol(t, ClientTrafficPolicy, gwNS, "p", 0, obj{"targetRefs": refs(c.ref)}), g) {
				got = append(got, e.Error())
			}
			if d := cmp.Diff(c.want, got); d != "" {
				t.Errorf("errors (-want +got):\n%s", d)
			}
		})
	}
}
