package engine

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestGeoIPDetection: authorization on clientIPGeoLocations needs the listener's ClientTrafficPolicy
// to detect the client IP one way, without trusted CIDRs (securitypolicy.go
// validateAuthorizationGeoIP).
func TestGeoIPDetection(t *testing.T) {
	geo := pol(t, SecurityPolicy, "shop", "geo", 2, obj{"targetRefs": refs(ref("HTTPRoute", "cart")),
		"authorization": obj{"rules": list{obj{"action": "Deny", "principal": obj{"clientIPGeoLocations": list{obj{"country": "US"}}}}}}})
	ctp := func(detection obj) *Policy {
		return pol(t, ClientTrafficPolicy, gwNS, "ctp", 1, obj{"targetRefs": refs(ref("Gateway", "eg")), "clientIPDetection": detection})
	}
	for _, c := range []struct {
		name  string
		world []*Policy
		want  []string
	}{
		{"no ClientTrafficPolicy", nil,
			[]string{`spec.authorization.rules: Invalid value: "clientIPGeoLocations": needs the ClientTrafficPolicy of route shop/cart to set clientIPDetection; Envoy Gateway marks the policy Invalid`}},
		{"x-forwarded-for with trusted CIDRs", []*Policy{ctp(obj{"xForwardedFor": obj{"trustedCIDRs": list{"10.0.0.0/8"}}})},
			[]string{`spec.authorization.rules: Invalid value: "clientIPGeoLocations": does not work with clientIPDetection.xForwardedFor.trustedCIDRs in the ClientTrafficPolicy of route shop/cart; Envoy Gateway marks the policy Invalid`}},
		{"x-forwarded-for by hops", []*Policy{ctp(obj{"xForwardedFor": obj{"numTrustedHops": 1}})}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := snapshot(shop(), c.world...)
			var got []string
			for _, e := range s.GeoIPDetection(s.Project(Write{New: geo})) {
				got = append(got, e.Error())
			}
			if d := cmp.Diff(c.want, got); d != "" {
				t.Errorf("errors (-want +got):\n%s", d)
			}
		})
	}
}
