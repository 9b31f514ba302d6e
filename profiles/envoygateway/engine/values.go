package engine

import (
	"fmt"
	"math"
	"regexp"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Values checks the values of one policy as Envoy Gateway's translator does before it applies it,
// where its CRD's schema lets them through: a policy that fails is marked Accepted=False/Invalid
// and nothing of it is applied (for a BackendTrafficPolicy, the routes it targets get a 500 direct
// response: backendtrafficpolicy.go, "Return a 500 direct response").
func Values(p *Policy) field.ErrorList {
	var errs field.ErrorList
	switch p.Kind {
	case BackendTrafficPolicy:
		errs = append(errs, rateLimitValues(p.Raw)...)
		errs = append(errs, bandwidthValues(p.Raw)...)
		errs = append(errs, quantityRange(p.Raw, "requestBuffer", "limit")...)
	case ClientTrafficPolicy:
		errs = append(errs, quantityRange(p.Raw, "connection", "bufferLimit")...)
		errs = append(errs, http2Windows(p.Raw)...)
	}
	return errs
}

// AsInvalid is what Envoy Gateway applies of a policy that fails Values: nil for an
// EnvoyExtensionPolicy (the broader policy still applies to its routes,
// envoyextensionpolicy.go processEnvoyExtensionPolicyForRoute skips an invalid policy), else the
// policy holding its places with nothing in effect: a BackendTrafficPolicy's or SecurityPolicy's
// routes get a 500 direct response (backendtrafficpolicy.go and securitypolicy.go, "Return a 500
// direct response"), a ClientTrafficPolicy's listeners keep Envoy Gateway's defaults and the
// broader ClientTrafficPolicy is Overridden there.
func AsInvalid(p *Policy) *Policy {
	if p.Kind == EnvoyExtensionPolicy {
		return nil
	}
	q := *p
	q.Fields, q.sources, q.Invalid, q.read = map[string]interface{}{}, map[string]string{}, true, p
	return &q
}

// rateLimitValues: backendtrafficpolicy.go buildLocalRateLimit (one rule without clientSelectors
// at most; every rule's unit a multiple of that default rule's) and buildRateLimitRule (regular
// expressions that compile, utils/regex Validate; no invert on a Distinct match).
func rateLimitValues(spec map[string]interface{}) field.ErrorList {
	rl, _ := spec["rateLimit"].(map[string]interface{})
	if rl == nil {
		return nil
	}
	var errs field.ErrorList
	base := specPath.Child("rateLimit")
	for _, kind := range []string{"global", "local"} {
		m, _ := rl[kind].(map[string]interface{})
		rules, _ := m["rules"].([]interface{})
		defaultUnit, defaults := int64(1), 0
		for i, raw := range rules {
			r, _ := raw.(map[string]interface{})
			rp := base.Child(kind, "rules").Index(i)
			sels, _ := r["clientSelectors"].([]interface{})
			if kind == "local" && len(sels) == 0 {
				defaults++
				if defaults == 2 {
					errs = append(errs, field.Invalid(rp, "", "a local rate limit may have one rule without clientSelectors (the route's default limit); Envoy Gateway marks the policy Invalid"))
				}
				lim, _ := r["limit"].(map[string]interface{})
				if u := unitSeconds(lim["unit"]); u > 0 && defaults == 1 {
					defaultUnit = u
				}
			}
			for j, rs := range sels {
				sel, _ := rs.(map[string]interface{})
				errs = append(errs, selectorValues(sel, rp.Child("clientSelectors").Index(j))...)
			}
		}
		if kind != "local" {
			continue
		}
		for i, raw := range rules {
			r, _ := raw.(map[string]interface{})
			lim, _ := r["limit"].(map[string]interface{})
			if u := unitSeconds(lim["unit"]); u > 0 && u%defaultUnit != 0 {
				errs = append(errs, field.Invalid(base.Child(kind, "rules").Index(i).Child("limit", "unit"), lim["unit"], "a local rate limit rule's unit must be a multiple of the default rule's unit; Envoy Gateway marks the policy Invalid"))
			}
		}
	}
	return errs
}

func selectorValues(sel map[string]interface{}, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, list := range []string{"headers", "queryParams"} {
		ms, _ := sel[list].([]interface{})
		for k, raw := range ms {
			m, _ := raw.(map[string]interface{})
			mp := path.Child(list).Index(k)
			typ, _ := m["type"].(string)
			value, hasValue := m["value"].(string)
			if typ == "RegularExpression" && hasValue {
				if _, err := regexp.Compile(value); err != nil {
					errs = append(errs, field.Invalid(mp.Child("value"), value, fmt.Sprintf("not a valid regular expression (%v); Envoy Gateway marks the policy Invalid", err)))
				}
			}
			if inv, _ := m["invert"].(bool); typ == "Distinct" && inv {
				errs = append(errs, field.Invalid(mp.Child("invert"), true, "invert does not apply to a Distinct match; Envoy Gateway marks the policy Invalid"))
			}
		}
	}
	if pm, _ := sel["path"].(map[string]interface{}); pm != nil {
		if typ, _ := pm["type"].(string); typ == "RegularExpression" {
			value, _ := pm["value"].(string)
			if _, err := regexp.Compile(value); err != nil {
				errs = append(errs, field.Invalid(path.Child("path", "value"), value, fmt.Sprintf("not a valid regular expression (%v); Envoy Gateway marks the policy Invalid", err)))
			}
		}
	}
	return errs
}

// unitSeconds is utils/ratelimit UnitToSeconds; 0 for an unknown unit.
func unitSeconds(v interface{}) int64 {
	u, _ := v.(string)
	return map[string]int64{"Second": 1, "Minute": 60, "Hour": 3600, "Day": 86400, "Week": 7 * 86400, "Month": 30 * 86400, "Year": 365 * 86400}[u]
}

// bandwidthValues: backendtrafficpolicy.go bandwidthToKibps, Envoy's minimum of 1 KiB/s.
func bandwidthValues(spec map[string]interface{}) field.ErrorList {
	bw, _ := spec["bandwidthLimit"].(map[string]interface{})
	var errs field.ErrorList
	for _, dir := range []string{"request", "response"} {
		d, _ := bw[dir].(map[string]interface{})
		lim, _ := d["limit"].(map[string]interface{})
		if lim == nil {
			continue
		}
		q, ok := quantity(lim["value"])
		if !ok {
			continue
		}
		per := map[string]int64{"Minute": 60, "Hour": 3600}[fmt.Sprint(lim["unit"])]
		if per == 0 {
			per = 1
		}
		if q.Value()/(per*1024) < 1 {
			errs = append(errs, field.Invalid(specPath.Child("bandwidthLimit", dir, "limit", "value"), q.String(), "below Envoy's minimum of 1 KiB/s; Envoy Gateway marks the policy Invalid"))
		}
	}
	return errs
}

// quantityRange: a buffer limit must fit in 32 bits (backendtrafficpolicy.go buildRequestBuffer,
// clienttrafficpolicy.go buildConnection BufferLimit: "out of range").
func quantityRange(spec map[string]interface{}, parent, name string) field.ErrorList {
	m, _ := spec[parent].(map[string]interface{})
	q, ok := quantity(m[name])
	if !ok {
		return nil
	}
	if v, ok := q.AsInt64(); !ok || v < 0 || v > math.MaxUint32 {
		return field.ErrorList{field.Invalid(specPath.Child(parent, name), q.String(), "out of range: must be between 0 and 4294967295 bytes; Envoy Gateway marks the policy Invalid")}
	}
	return nil
}

// http2Windows: http.go buildIRHTTP2Settings, window sizes within Envoy's bounds.
func http2Windows(spec map[string]interface{}) field.ErrorList {
	h2, _ := spec["http2"].(map[string]interface{})
	var errs field.ErrorList
	for _, name := range []string{"initialStreamWindowSize", "initialConnectionWindowSize"} {
		q, ok := quantity(h2[name])
		if !ok {
			continue
		}
		if v, ok := q.AsInt64(); !ok || v < 65535 || v > 2147483647 {
			errs = append(errs, field.Invalid(specPath.Child("http2", name), q.String(), "out of range: must be between 65535 and 2147483647; Envoy Gateway marks the policy Invalid"))
		}
	}
	return errs
}

func quantity(v interface{}) (resource.Quantity, bool) {
	switch x := v.(type) {
	case string:
		q, err := resource.ParseQuantity(x)
		return q, err == nil
	case int64:
		return *resource.NewQuantity(x, resource.DecimalSI), true
	case int:
		return *resource.NewQuantity(int64(x), resource.DecimalSI), true
	case float64:
		return *resource.NewQuantity(int64(x), resource.DecimalSI), true
	}
	return resource.Quantity{}, false
}
