package engine

import "github.com/precedent-dev/precedent/internal/warning"

// The codes of the envoy-gateway profile's projection warnings and notes (project.go).
var (
	codeSelectorIgnored = warning.Register(warning.Code{ID: "PRC-W018", Severity: warning.SeverityWarning,
		Title:   "targetSelectors match ignored",
		Meaning: "a target the policy's targetSelectors match in another namespace is ignored: no ReferenceGrant there lets the policy reach it",
		Fix:     "add a ReferenceGrant in the target's namespace, or narrow the selector"})
	codeConflicted = warning.Register(warning.Code{ID: "PRC-W019", Severity: warning.SeverityWarning,
		Title:   "policy will be Conflicted",
		Meaning: "another, older policy of the same kind holds the scope: Envoy Gateway marks this one Conflicted there and ignores it",
		Fix:     "merge the two policies, or target another scope"})
	codeDrops = warning.Register(warning.Code{ID: "PRC-W020", Severity: warning.SeverityWarning,
		Title:   "route policy drops broader fields",
		Meaning: "without mergeType the route-level policy replaces the broader policy whole: fields the broader policy sets are no longer applied on the route",
		Fix:     "set `mergeType: StrategicMerge` (or JSONMerge) to keep them, or set them in this policy"})
	codeReplacesBroader = warning.Register(warning.Code{ID: "PRC-W021", Severity: warning.SeverityWarning,
		Title:   "write replaces a broader policy",
		Meaning: "the written policy is more specific than another policy and replaces it whole beneath it: that policy's fields are no longer applied there",
		Fix:     "check with the owner of the broader policy; use mergeType on a route policy to keep its fields"})
	codeSkips = warning.Register(warning.Code{ID: "PRC-W022", Severity: warning.SeverityWarning,
		Title:   "merge skips a route-level policy",
		Meaning: "a rule-level merge reaches one parent only (the listener or Gateway policy): the route-level policy in between is not applied",
		Fix:     "move the fields of the route-level policy into the rule-level one, or target the route instead"})
	codeDeleteRemoves = warning.Register(warning.Code{ID: "PRC-W023", Severity: warning.SeverityWarning,
		Title:   "delete removes fields in effect",
		Meaning: "deleting the policy removes fields that were in effect on the places named, with nothing to take their place",
		Fix:     "check that the places named can do without them, or set them in another policy first"})
	codeChangesEffective = warning.Register(warning.Code{ID: "PRC-N004", Severity: warning.SeverityNote,
		Title:   "places whose effective policy changes",
		Meaning: "how many places (routes, listeners) the write changes the effective Envoy Gateway policy of, and which",
		Fix:     "nothing to do; `precedent diff` shows the changes one by one"})
)

// CheckSpec is the check id of the errors found reading a policy or checking it alone (Read,
// Stateless); the combined checks (checks.go) have their own ids.
const CheckSpec = "eg-spec"

// The codes of the errors of the envoy-gateway profile.
var (
	_ = warning.RegisterError(CheckSpec, warning.Code{ID: "PRC-E025", Severity: warning.SeverityError, Title: "Envoy Gateway: policy spec invalid",
		Meaning: "the policy cannot be read, or checked alone breaks a rule of Envoy Gateway (mergeType on a non-route target, mergeType Replace, a ClientTrafficPolicy mergeType)", Fix: "fix the field the error names"})
	_ = warning.RegisterError("eg-jwt-providers", warning.Code{ID: "PRC-E026", Severity: warning.SeverityError, Title: "Envoy Gateway: jwt without providers",
		Meaning: "the merged SecurityPolicy has jwt without providers, which Envoy Gateway's CRD forbids", Fix: "add a provider in this policy or the one it merges into"})
	_ = warning.RegisterError("eg-jwt-claim-to-headers", warning.Code{ID: "PRC-E027", Severity: warning.SeverityError, Title: "Envoy Gateway: recomputeRoute without claimToHeaders",
		Meaning: "a merged jwt provider sets recomputeRoute without claimToHeaders", Fix: "add claimToHeaders to the provider, or drop recomputeRoute"})
	_ = warning.RegisterError("eg-oidc-passthrough-jwt", warning.Code{ID: "PRC-E028", Severity: warning.SeverityError, Title: "Envoy Gateway: OIDC passThroughAuthHeader without jwt",
		Meaning: "the merged SecurityPolicy passes the OIDC auth header through without a jwt provider reading it", Fix: "add a jwt provider that reads the header, or drop passThroughAuthHeader"})
	_ = warning.RegisterError("eg-authorization-jwt-principal", warning.Code{ID: "PRC-E029", Severity: warning.SeverityError, Title: "Envoy Gateway: JWT principal without jwt",
		Meaning: "an authorization rule of the merged SecurityPolicy matches JWT claims, but no jwt authenticates the request", Fix: "add jwt to the policy (or the one it merges into), or match another principal"})
	_ = warning.RegisterError("eg-tcp-authorization-only", warning.Code{ID: "PRC-E030", Severity: warning.SeverityError, Title: "Envoy Gateway: TCP route policy beyond authorization",
		Meaning: "a SecurityPolicy on a TCP route may set only authorization", Fix: "remove the other fields, or target an HTTP route"})
)
