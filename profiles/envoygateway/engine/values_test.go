package engine

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestValues: the values Envoy Gateway's translator refuses where the CRD's schema admits them,
// each from a case of Envoy Gateway's translator corpus (internal/gatewayapi/testdata), written
// anew.
func TestValues(t *testing.T) {
	gw := refs(ref("Gateway", "eg"))
	rule := func(sel list, unit string) obj {
		r := obj{"limit": obj{"requests": 10, "unit": unit}}
		if sel != nil {
			r["clientSelectors"] = sel
		}
		return r
	}
	for _, c := range []struct {
		name string
		kind string
		spec obj
		want []string
	}{
		{"a rate-limit header regex that does not compile", BackendTrafficPolicy,
			obj{"rateLimit": obj{"global": obj{"rules": list{rule(list{obj{"headers": list{obj{"name": "x", "type": "RegularExpression", "value": "*.bad"}}}}, "Second")}}}},
			[]string{"spec.rateLimit.global.rules[0].clientSelectors[0].headers[0].value: Invalid value: \"*.bad\": not a valid regular expression (error parsing regexp: missing argument to repetition operator: `*`); Envoy Gateway marks the policy Invalid"}},
		{"invert on a distinct header match", BackendTrafficPolicy,
			obj{"rateLimit": obj{"global": obj{"rules": list{rule(list{obj{"headers": list{obj{"name": "x", "type": "Distinct", "invert": true}}}}, "Second")}}}},
			[]string{"spec.rateLimit.global.rules[0].clientSelectors[0].headers[0].invert: Invalid value: true: invert does not apply to a Distinct match; Envoy Gateway marks the policy Invalid"}},
		{"two local default rules", BackendTrafficPolicy,
			obj{"rateLimit": obj{"local": obj{"rules": list{rule(nil, "Second"), rule(nil, "Second")}}}},
			[]string{`spec.rateLimit.local.rules[1]: Invalid value: "": a local rate limit may have one rule without clientSelectors (the route's default limit); Envoy Gateway marks the policy Invalid`}},
		{"a local rule's unit not a multiple of the default's", BackendTrafficPolicy,
			obj{"rateLimit": obj{"local": obj{"rules": list{rule(nil, "Minute"), rule(list{obj{"sourceCIDR": obj{"value": "10.0.0.0/8"}}}, "Second")}}}},
			[]string{`spec.rateLimit.local.rules[1].limit.unit: Invalid value: "Second": a local rate limit rule's unit must be a multiple of the default rule's unit; Envoy Gateway marks the policy Invalid`}},
		{"local rules in whole multiples are valid", BackendTrafficPolicy,
			obj{"rateLimit": obj{"local": obj{"rules": list{rule(nil, "Second"), rule(list{obj{"sourceCIDR": obj{"value": "10.0.0.0/8"}}}, "Hour")}}}},
			nil},
		{"bandwidth under 1 KiB/s", BackendTrafficPolicy,
			obj{"bandwidthLimit": obj{"request": obj{"limit": obj{"value": 1023, "unit": "Second"}}}},
			[]string{`spec.bandwidthLimit.request.limit.value: Invalid value: "1023": below Envoy's minimum of 1 KiB/s; Envoy Gateway marks the policy Invalid`}},
		{"bandwidth of 60 KiB a minute is 1 KiB/s", BackendTrafficPolicy,
			obj{"bandwidthLimit": obj{"response": obj{"limit": obj{"value": "60Ki", "unit": "Minute"}}}},
			nil},
		{"a request buffer over 32 bits", BackendTrafficPolicy,
			obj{"requestBuffer": obj{"limit": "5000Mi"}},
			[]string{`spec.requestBuffer.limit: Invalid value: "5000Mi": out of range: must be between 0 and 4294967295 bytes; Envoy Gateway marks the policy Invalid`}},
		{"a client buffer limit that is not whole bytes", ClientTrafficPolicy,
			obj{"connection": obj{"bufferLimit": "500m"}},
			[]string{`spec.connection.bufferLimit: Invalid value: "500m": out of range: must be between 0 and 4294967295 bytes; Envoy Gateway marks the policy Invalid`}},
		{"an http2 stream window under Envoy's minimum", ClientTrafficPolicy,
			obj{"http2": obj{"initialStreamWindowSize": "1Ki"}},
			[]string{`spec.http2.initialStreamWindowSize: Invalid value: "1Ki": out of range: must be between 65535 and 2147483647; Envoy Gateway marks the policy Invalid`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			spec := obj{"targetRefs": gw}
			for k, v := range c.spec {
				spec[k] = v
			}
			var got []string
			for _, e := range Values(pol(t, c.kind, gwNS, "p", 0, spec)) {
				got = append(got, e.Error())
			}
			if d := cmp.Diff(c.want, got); d != "" {
				t.Errorf("errors (-want +got):\n%s", d)
			}
		})
	}
}
