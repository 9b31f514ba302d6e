package validate

import (
	"github.com/precedent-dev/precedent/internal/settings"
	"github.com/precedent-dev/precedent/internal/warning"
)

// The codes of the warnings and notes a write of a D/O policy (defaults-overrides, GEP-713, Kuadrant
// and the kinds configured like them) gets from its projection (warnings.go, displace.go).
var (
	codeOverridesOthers = warning.Register(warning.Code{ID: "PRC-W001", Severity: warning.SeverityWarning,
		Title:   "overrides replace another policy's rule",
		Meaning: "an override of the written policy replaces a rule another, more specific policy sets: that policy's owner loses the rule on the paths named",
		Fix:     "check with the owner of the other policy; narrow the override (target, rule ids) or use strategy merge if the other rule should stay"})
	codeOverridden = warning.Register(warning.Code{ID: "PRC-W002", Severity: warning.SeverityWarning,
		Title:   "rule overridden by another policy",
		Meaning: "a rule of the written policy is overridden by the overrides of a broader policy: it is not in effect on the paths named",
		Fix:     "drop or rename the rule, or ask the owner of the overriding policy to exempt it"})
	codeReplaced = warning.Register(warning.Code{ID: "PRC-N001", Severity: warning.SeverityNote,
		Title:   "defaults replaced by a more specific policy",
		Meaning: "the defaults of the written policy are replaced, as defaults are meant to be, by the rules of a more specific or older policy on the paths named",
		Fix:     "nothing to do if that is intended; else move the rules to spec.overrides"})
	codeDefaultUnset = warning.Register(warning.Code{ID: "PRC-N002", Severity: warning.SeverityNote,
		Title:   "default unset by a more specific policy",
		Meaning: "a default rule of the written policy is removed by the spec.unset of a more specific policy on the paths named",
		Fix:     "nothing to do if that is intended; else move the rule to spec.overrides, which unset cannot remove"})
	codeClipsOthers = warning.Register(warning.Code{ID: "PRC-W003", Severity: warning.SeverityWarning,
		Title:   "constraint clips another policy's rule",
		Meaning: "a constraint (an override with when) of the written policy changes the value of a rule another policy sets",
		Fix:     "check with the owner of the other policy that the clipped value is what they need"})
	codeClipped = warning.Register(warning.Code{ID: "PRC-W004", Severity: warning.SeverityWarning,
		Title:   "rule clipped by a constraint",
		Meaning: "a rule of the written policy is clipped by the constraint of a broader policy: the value in effect is not the one written",
		Fix:     "write a value within the constraint, or ask the owner of the constraint"})
	codeMakesUnsetIneffective = warning.Register(warning.Code{ID: "PRC-W005", Severity: warning.SeverityWarning,
		Title:   "override makes an unset ineffective",
		Meaning: "an override of the written policy sets a rule a more specific policy unsets: the unset no longer removes it",
		Fix:     "check with the owner of the other policy; drop the rule from spec.overrides if the unset should keep working"})
	codeUnsetIneffective = warning.Register(warning.Code{ID: "PRC-W006", Severity: warning.SeverityWarning,
		Title:   "unset has no effect against an override",
		Meaning: "spec.unset of the written policy names a rule a broader policy sets as an override: unset never removes an override",
		Fix:     "remove the id from spec.unset, or ask the owner of the override"})
	codeConditionError = warning.Register(warning.Code{ID: "PRC-W007", Severity: warning.SeverityWarning,
		Title:   "when condition fails at evaluation",
		Meaning: "the when condition of a block of the written policy fails to evaluate on the paths named, so the block does not apply there",
		Fix:     "guard the condition (has(), size checks) so it evaluates on every path"})
	codeUnsetRemovesNothing = warning.Register(warning.Code{ID: "PRC-W008", Severity: warning.SeverityWarning,
		Title:   "unset removes nothing",
		Meaning: "an entry of spec.unset names a rule no broader policy sets as a default on the routes of the written policy",
		Fix:     "fix the rule id (a typo?) or remove the entry"})
	codeSummary = warning.Register(warning.Code{ID: "PRC-N003", Severity: warning.SeverityNote,
		Title:   "routes whose effective policy changes",
		Meaning: "how many routes' effective policy the write (or delete) changes",
		Fix:     "nothing to do; `precedent diff` shows the changes one by one"})
	codeUnattached = warning.Register(warning.Code{ID: "PRC-W009", Severity: warning.SeverityWarning,
		Title:   "target attached to no Gateway",
		Meaning: "the target route exists but is attached to no Gateway listener, so the policy has no effect yet",
		Fix:     "attach the route (parentRefs) or target another object"})
	codeDisplaced = warning.Register(warning.Code{ID: "PRC-W010", Severity: warning.SeverityWarning,
		Title:   "rules of another policy displaced",
		Meaning: "the write (or delete) removes rules another policy had in effect on the paths named, or replaces them by precedence on the same target; the reason says by which rule of the model",
		Fix:     "check with the owner of the other policy; target more narrowly, or change strategy, if their rules should stay"})
	codeDefaultsGiveWay = warning.Register(warning.Code{ID: "PRC-N005", Severity: warning.SeverityNote,
		Title:   "broader defaults give way to this policy",
		Meaning: "the rules of the written, more specific policy take the place of defaults a broader policy sets on the paths named, as defaults are meant to",
		Fix:     "nothing to do if that is intended; `precedent diff` shows the values before and after"})
)

// CheckSpec is the check id of the errors found reading a policy (policy.View: the shape of its
// spec), before any check of the table runs.
const CheckSpec = "policy-spec"

// The codes of the errors of reading a policy and of the stateful checks (stateful.go).
var (
	_ = warning.RegisterError(CheckSpec, warning.Code{ID: "PRC-E022", Severity: warning.SeverityError, Title: "policy spec unreadable",
		Meaning: "the spec does not have the shape of the kind (a field of the wrong type, a rule that is not an object)", Fix: "fix the field the error names, as the kind's CRD describes it"})
	_ = warning.RegisterError(settings.CheckUnsetOverride, warning.Code{ID: "PRC-E023", Severity: warning.SeverityError, Title: "unset of an override",
		Meaning: "spec.unset names a rule a broader policy sets as an override on a path this policy reaches: unset never removes an override", Fix: "remove the id from spec.unset, or ask the owner of the override (or the administrator may set actions.unsetOverride: warn)"})
	_ = warning.RegisterError(settings.CheckOnePolicyPerTarget, warning.Code{ID: "PRC-E024", Severity: warning.SeverityError, Title: "second policy on a target",
		Meaning: "one policy per target is configured and another policy of the kind already targets it", Fix: "edit the existing policy instead"})
	codeMoreWarnings = warning.Register(warning.Code{ID: "PRC-W040", Severity: warning.SeverityWarning,
		Title:   "more warnings not shown",
		Meaning: "the write got more warnings than the PrecedentConfig's warningLimit: the last line counts those left out",
		Fix:     "run precedent validate on the files to see every finding, or raise spec.warningLimit"})
)
