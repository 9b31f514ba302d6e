package engine

import (
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// routeKinds are the targets on which mergeType is allowed.
var routeKinds = map[string]bool{"HTTPRoute": true, "GRPCRoute": true, "TCPRoute": true, "UDPRoute": true, "TLSRoute": true}

// Stateless checks a single policy as Envoy Gateway's CRD CEL does for mergeType: only on route
// targets (api/v1alpha1/backendtrafficpolicy_types.go, securitypolicy_types.go,
// envoyextensionpolicy_types.go: "mergeType can only be set for HTTPRoute/GRPCRoute targets"-style
// rules), never `Replace`, and not at all on ClientTrafficPolicy, which has no mergeType.
func Stateless(p *Policy) field.ErrorList {
	var errs field.ErrorList
	mt := specPath.Child("mergeType")
	switch p.MergeType {
	case "":
		return nil
	case StrategicMerge, JSONMerge:
	case Replace:
		errs = append(errs, field.Forbidden(mt, "Replace is not allowed on policies: use StrategicMerge or JSONMerge, or leave mergeType unset to replace the parent policy"))
	default:
		errs = append(errs, field.NotSupported(mt, string(p.MergeType), []string{string(StrategicMerge), string(JSONMerge)}))
	}
	if p.Kind == ClientTrafficPolicy {
		return append(errs, field.Forbidden(mt, "ClientTrafficPolicy applies to listeners and does not merge"))
	}
	refs := "targetRefs"
	if _, ok := p.Raw["targetRef"]; ok {
		refs = "targetRef"
	}
	for i, t := range p.Targets {
		if routeKinds[t.Kind] {
			continue
		}
		path := specPath.Child(refs)
		if refs == "targetRefs" {
			path = path.Index(i)
		}
		errs = append(errs, field.Forbidden(path.Child("kind"), "mergeType is only allowed on route targets; "+t.Kind+" "+t.Name+" is not a route"))
	}
	for i, s := range p.Selectors {
		if !routeKinds[s.Kind] {
			errs = append(errs, field.Forbidden(specPath.Child("targetSelectors").Index(i).Child("kind"), "mergeType is only allowed on route targets; "+s.Kind+" is not a route"))
		}
	}
	return errs
}

// CombinedCheck is a check that only makes sense on the merged result (envoyproxy/gateway #9722:
// CEL validates the un-merged child and rejects valid compositions).
type CombinedCheck struct {
	ID        string
	Kind      string
	Reference string
	check     func(spec map[string]interface{}, r Result) field.ErrorList
}

// CombinedChecks are the checks run on each effective policy.
var CombinedChecks = []CombinedCheck{
	{ID: "eg-jwt-providers", Kind: SecurityPolicy,
		Reference: "api/v1alpha1/jwt_types.go JWT.Providers (+kubebuilder:validation:MinItems=1)",
		check: func(spec map[string]interface{}, _ Result) field.ErrorList {
			jwt, ok := spec["jwt"].(map[string]interface{})
			if !ok {
				return nil
			}
			if ps, _ := jwt["providers"].([]interface{}); len(ps) == 0 {
				return field.ErrorList{field.Required(specPath.Child("jwt", "providers"), "the merged jwt has no provider")}
			}
			return nil
		}},
	{ID: "eg-jwt-claim-to-headers", Kind: SecurityPolicy,
		Reference: "api/v1alpha1/jwt_types.go JWTProvider: recomputeRoute needs claimToHeaders",
		check: func(spec map[string]interface{}, _ Result) field.ErrorList {
			var errs field.ErrorList
			jwt, _ := spec["jwt"].(map[string]interface{})
			ps, _ := jwt["providers"].([]interface{})
			for i, p := range ps {
				pm, _ := p.(map[string]interface{})
				rc, _ := pm["recomputeRoute"].(bool)
				cth, _ := pm["claimToHeaders"].([]interface{})
				if rc && len(cth) == 0 {
					errs = append(errs, field.Required(specPath.Child("jwt", "providers").Index(i).Child("claimToHeaders"), "recomputeRoute needs claimToHeaders in the merged provider"))
				}
			}
			return errs
		}},
	{ID: "eg-oidc-passthrough-jwt", Kind: SecurityPolicy,
		Reference: "internal/gatewayapi/securitypolicy.go validateSecurityPolicy (OIDC.PassThroughAuthHeader needs JWT reading a header)",
		check: func(spec map[string]interface{}, _ Result) field.ErrorList {
			oidc, _ := spec["oidc"].(map[string]interface{})
			if pt, _ := oidc["passThroughAuthHeader"].(bool); !pt {
				return nil
			}
			path := specPath.Child("oidc", "passThroughAuthHeader")
			jwt, ok := spec["jwt"].(map[string]interface{})
			if !ok {
				return field.ErrorList{field.Invalid(path, true, "needs jwt in the merged policy")}
			}
			ps, _ := jwt["providers"].([]interface{})
			for _, p := range ps {
				pm, _ := p.(map[string]interface{})
				ef, ok := pm["extractFrom"].(map[string]interface{})
				if hs, _ := ef["headers"].([]interface{}); !ok || len(hs) > 0 {
					return nil
				}
			}
			return field.ErrorList{field.Invalid(path, true, "needs a jwt provider that reads a header in the merged policy")}
		}},
	{ID: "eg-authorization-jwt-principal", Kind: SecurityPolicy,
		Reference: "Envoy Gateway docs, tasks/security/jwt-claim-authorization (JWT claims are only known once jwt authenticates); securitypolicy.go buildAuthorization",
		check: func(spec map[string]interface{}, _ Result) field.ErrorList {
			if _, ok := spec["jwt"]; ok {
				return nil
			}
			var errs field.ErrorList
			authz, _ := spec["authorization"].(map[string]interface{})
			rules, _ := authz["rules"].([]interface{})
			for i, r := range rules {
				rm, _ := r.(map[string]interface{})
				pr, _ := rm["principal"].(map[string]interface{})
				if _, ok := pr["jwt"]; ok {
					errs = append(errs, field.Invalid(specPath.Child("authorization", "rules").Index(i).Child("principal", "jwt"), "", "refers to JWT claims but the merged policy has no jwt"))
				}
			}
			return errs
		}},
	{ID: "eg-tcp-authorization-only", Kind: SecurityPolicy,
		Reference: "internal/gatewayapi/securitypolicy.go validateSecurityPolicyForTCP (run for TCPRoute targets only; a listener- or Gateway-level policy above a TCPRoute is accepted and only its authorization applies there)",
		check: func(spec map[string]interface{}, r Result) field.ErrorList {
			if r.Path.RouteKind != "TCPRoute" || r.Scope.Kind != "TCPRoute" {
				return nil
			}
			var errs field.ErrorList
			for _, f := range FieldIDs(topLevelKeys(spec)) {
				if f != "authorization" {
					errs = append(errs, field.Forbidden(specPath.Child(f), "only authorization applies to a TCPRoute"))
				}
			}
			authz, _ := spec["authorization"].(map[string]interface{})
			rules, _ := authz["rules"].([]interface{})
			for i, raw := range rules {
				rm, _ := raw.(map[string]interface{})
				rp := specPath.Child("authorization", "rules").Index(i)
				if _, ok := rm["cel"]; ok {
					errs = append(errs, field.Forbidden(rp.Child("cel"), "CEL rules do not apply to a TCPRoute"))
				}
				pr, _ := rm["principal"].(map[string]interface{})
				for _, f := range []string{"jwt", "headers", "clientIPGeoLocations"} {
					if _, ok := pr[f]; ok {
						errs = append(errs, field.Forbidden(rp.Child("principal", f), "only clientCIDRs apply to a TCPRoute"))
					}
				}
			}
			return errs
		}},
}

func topLevelKeys(m map[string]interface{}) map[string]string {
	out := make(map[string]string, len(m))
	for k := range m {
		out[k] = ""
	}
	return out
}

// Check runs the combined checks on an effective policy. The errors' paths are in the merged
// spec; the caller says whose write made it (the Holder).
func Check(r Result) field.ErrorList {
	errs, _ := checkIDs(r)
	return errs
}

// checkIDs is Check with the id of the check of each error.
func checkIDs(r Result) (errs field.ErrorList, ids []string) {
	for _, c := range CombinedChecks {
		if c.Kind == r.Kind {
			es := c.check(r.Spec, r)
			errs = append(errs, es...)
			for range es {
				ids = append(ids, c.ID)
			}
		}
	}
	return errs, ids
}

// CheckProjection runs the combined checks on the paths where the written policy decides the
// effective policy after the write, deduplicated; each message names the place.
func CheckProjection(pr Projection) field.ErrorList {
	errs, _ := CheckProjectionIDs(pr)
	return errs
}

// CheckProjectionIDs is CheckProjection with the id of the check of each error.
func CheckProjectionIDs(pr Projection) (field.ErrorList, []string) {
	if pr.Write.New == nil {
		return nil, nil
	}
	seen := map[string]bool{}
	var out field.ErrorList
	var ids []string
	for _, a := range pr.After {
		if a.Holder != pr.Write.New && a.Parent != pr.Write.New {
			continue
		}
		es, cids := checkIDs(a)
		for i, e := range es {
			e.Detail = e.Detail + " (" + strings.TrimSpace(place(a.Path)) + ")"
			if k := e.Error(); !seen[k] {
				seen[k] = true
				out, ids = append(out, e), append(ids, cids[i])
			}
		}
	}
	return out, ids
}
