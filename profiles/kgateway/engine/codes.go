package engine

import "github.com/precedent-dev/precedent/internal/warning"

// The kgateway profile's findings (PRC-W230..W259 is its range).
var (
	// CodeParentPrefers: a parent's annotation makes its value replace the written policy's.
	CodeParentPrefers = warning.Register(warning.Code{ID: "PRC-W230", Severity: warning.SeverityWarning,
		Title:   "kgateway field replaced by a parent",
		Meaning: "a field of the TrafficPolicy is ignored on some routes: a parent route or Gateway whose kgateway.dev/inherited-policy-priority prefers the parent sets the same top-level field",
		Fix:     "ask the parent's owner to prefer the child (ShallowMergePreferChild), or drop the field"})
	// CodeSameLevel: a more specific or older policy at the same attachment level keeps the field.
	CodeSameLevel = warning.Register(warning.Code{ID: "PRC-W231", Severity: warning.SeverityWarning,
		Title:   "kgateway field taken at the same level",
		Meaning: "a field of the TrafficPolicy is ignored: another policy on the same route or Gateway is more specific (extensionRef filter, then rule sectionName, then route) or older and sets it first",
		Fix:     "attach the policy more specifically, or move the field into the policy that wins"})
	// CodeModeTakesAway: changing a parent's annotation removes its value from child routes.
	CodeModeTakesAway = warning.Register(warning.Code{ID: "PRC-W232", Severity: warning.SeverityWarning,
		Title:   "kgateway annotation change takes fields from children",
		Meaning: "the kgateway.dev/inherited-policy-priority change lets child routes' own values win where the parent's held before",
		Fix:     "check the child routes' policies before preferring the child"})
	// CodeModeOverrides: changing a parent's annotation makes its value replace the children's.
	CodeModeOverrides = warning.Register(warning.Code{ID: "PRC-W233", Severity: warning.SeverityWarning,
		Title:   "kgateway annotation change overrides children",
		Meaning: "the kgateway.dev/inherited-policy-priority change makes the parent's values replace what child routes set themselves",
		Fix:     "tell the child routes' owners, or prefer the child"})
	// CodeNoTarget: a targetRef names an object (or a section of one) that does not exist.
	CodeNoTarget = warning.Register(warning.Code{ID: "PRC-W234", Severity: warning.SeverityWarning,
		Title:   "kgateway target does not exist",
		Meaning: "a targetRef of the TrafficPolicy names a Gateway, ListenerSet or HTTPRoute (or a listener or rule of one) that does not exist: kgateway attaches the policy nowhere through it and writes no status for it",
		Fix:     "create the target, or correct the reference"})
	// CodeGatewayModeUnread: the kgateway version predicted reads the annotation on HTTPRoutes only.
	CodeGatewayModeUnread = warning.Register(warning.Code{ID: "PRC-W235", Severity: warning.SeverityWarning,
		Title:   "kgateway does not read a Gateway's annotation",
		Meaning: "kgateway 2.2 reads kgateway.dev/inherited-policy-priority on HTTPRoutes only (getInheritedPolicyPriority, called from transformHttpRoute): on a Gateway the annotation has no effect, and routes' own values win over the Gateway's policies",
		Fix:     "set the annotation on the routes that should prefer their parent, or remove it from the Gateway"})
)
