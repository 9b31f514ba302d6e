package engine

import (
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// GeoIPDetection is securitypolicy.go validateAuthorizationGeoIP for the places a SecurityPolicy
// holds after a write: authorization rules on clientIPGeoLocations need the listener's effective
// ClientTrafficPolicy to set exactly one clientIPDetection mode, and not xForwardedFor.trustedCIDRs;
// Envoy Gateway marks the policy Invalid otherwise. (It also needs the EnvoyProxy's geoIP provider,
// which Precedent does not read.)
func (s *Snapshot) GeoIPDetection(pr Projection) field.ErrorList {
	p := pr.Write.New
	if p == nil || p.Kind != SecurityPolicy || !usesGeoIP(p.Fields) {
		return nil
	}
	path := specPath.Child("authorization", "rules")
	for _, r := range pr.After {
		if r.Holder != p {
			continue
		}
		detection := s.clientIPDetection(r.Path)
		modes := 0
		for _, m := range []string{"xForwardedFor", "customHeader", "directSourceIP"} {
			if _, ok := detection[m]; ok {
				modes++
			}
		}
		xff, _ := detection["xForwardedFor"].(map[string]interface{})
		switch cidrs, _ := xff["trustedCIDRs"].([]interface{}); {
		case detection == nil:
			return field.ErrorList{field.Invalid(path, "clientIPGeoLocations", "needs the ClientTrafficPolicy of "+place(r.Path)+" to set clientIPDetection; Envoy Gateway marks the policy Invalid")}
		case modes != 1:
			return field.ErrorList{field.Invalid(path, "clientIPGeoLocations", "needs the ClientTrafficPolicy of "+place(r.Path)+" to set exactly one clientIPDetection mode; Envoy Gateway marks the policy Invalid")}
		case len(cidrs) > 0:
			return field.ErrorList{field.Invalid(path, "clientIPGeoLocations", "does not work with clientIPDetection.xForwardedFor.trustedCIDRs in the ClientTrafficPolicy of "+place(r.Path)+"; Envoy Gateway marks the policy Invalid")}
		}
	}
	return nil
}

func usesGeoIP(fields map[string]interface{}) bool {
	authz, _ := fields["authorization"].(map[string]interface{})
	rules, _ := authz["rules"].([]interface{})
	for _, raw := range rules {
		r, _ := raw.(map[string]interface{})
		pr, _ := r["principal"].(map[string]interface{})
		if geo, _ := pr["clientIPGeoLocations"].([]interface{}); len(geo) > 0 {
			return true
		}
	}
	return false
}

// clientIPDetection is spec.clientIPDetection of the ClientTrafficPolicy in effect on the
// listener of path p, nil when none sets it.
func (s *Snapshot) clientIPDetection(p Path) map[string]interface{} {
	for i, n := 0, s.listeners.len(); i < n; i++ {
		l, live := s.listeners.at(i)
		if !live || l.Gateway != p.Gateway || l.ListenerSet != p.ListenerSet || l.Listener != p.Listener {
			continue
		}
		r, ok := s.Compute(ClientTrafficPolicy, i)
		if !ok {
			return nil
		}
		d, _ := r.Spec["clientIPDetection"].(map[string]interface{})
		return d
	}
	return nil
}
