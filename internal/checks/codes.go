package checks

import "github.com/precedent-dev/precedent/internal/warning"

// The codes of the checks of the table (table.go), one per check.
var (
	_ = warning.RegisterError("target-required", warning.Code{ID: "PRC-E001", Severity: warning.SeverityError, Title: "no target",
		Meaning: "the policy targets nothing: spec.targetRef or spec.targetRefs is required", Fix: "add a targetRef naming the Gateway, listener, route or rule"})
	_ = warning.RegisterError("target-no-namespace", warning.Code{ID: "PRC-E002", Severity: warning.SeverityError, Title: "namespace in a local target",
		Meaning: "a local policy target reference has no namespace: policies target objects of their own namespace", Fix: "remove namespace from the targetRef; create the policy in the target's namespace"})
	_ = warning.RegisterError("target-name-required", warning.Code{ID: "PRC-E003", Severity: warning.SeverityError, Title: "target without a name",
		Meaning: "a target reference must name its target", Fix: "set name in the targetRef"})
	_ = warning.RegisterError("target-group-supported", warning.Code{ID: "PRC-E004", Severity: warning.SeverityError, Title: "target group not supported",
		Meaning: "the kind may not target objects of that group", Fix: "target a Gateway API object (group gateway.networking.k8s.io) or a group the kind allows"})
	_ = warning.RegisterError("target-kind-supported", warning.Code{ID: "PRC-E005", Severity: warning.SeverityError, Title: "target kind not supported",
		Meaning: "the kind may not target objects of that kind", Fix: "target one of the kinds the error lists"})
	_ = warning.RegisterError("target-same-kind", warning.Code{ID: "PRC-E006", Severity: warning.SeverityError, Title: "targets of several kinds",
		Meaning: "all targetRefs of one policy must have the same group and kind", Fix: "split the policy into one per kind of target"})
	_ = warning.RegisterError("target-unique", warning.Code{ID: "PRC-E007", Severity: warning.SeverityError, Title: "target named twice",
		Meaning: "a targetRefs entry repeats another", Fix: "remove the repeated entry"})
	_ = warning.RegisterError("gep713-default-or-override", warning.Code{ID: "PRC-E008", Severity: warning.SeverityError, Title: "neither default nor override",
		Meaning: "a GEP-713 policy needs spec.default, spec.override or both", Fix: "add spec.default or spec.override"})
	_ = warning.RegisterError("do-bare-with-blocks", warning.Code{ID: "PRC-E009", Severity: warning.SeverityError, Title: "bare rules with blocks",
		Meaning: "bare rules cannot be combined with spec.defaults or spec.overrides", Fix: "move the bare rules into spec.defaults (or spec.overrides)"})
	_ = warning.RegisterError("do-not-empty", warning.Code{ID: "PRC-E010", Severity: warning.SeverityError, Title: "empty policy",
		Meaning: "the policy has no bare rules, spec.defaults, spec.overrides or spec.unset", Fix: "add rules, or delete the policy"})
	_ = warning.RegisterError("do-strategy", warning.Code{ID: "PRC-E011", Severity: warning.SeverityError, Title: "unknown strategy",
		Meaning: "a block's strategy is neither atomic nor merge", Fix: "set strategy: atomic or strategy: merge"})
	_ = warning.RegisterError("do-when-compiles", warning.Code{ID: "PRC-E012", Severity: warning.SeverityError, Title: "when condition invalid",
		Meaning: "a block's when condition does not compile, is not boolean, or is over the CEL cost limit", Fix: "fix the CEL expression; `self` is the effective policy so far in bare form"})
	_ = warning.RegisterError("unset-switched-off", warning.Code{ID: "PRC-E013", Severity: warning.SeverityError, Title: "unset switched off",
		Meaning: "the cluster administrator switched spec.unset off (PrecedentConfig cluster, unsetEnabled: false)", Fix: "remove spec.unset, or ask the administrator"})
	_ = warning.RegisterError("unset-id-format", warning.Code{ID: "PRC-E014", Severity: warning.SeverityError, Title: "malformed unset id",
		Meaning: "an entry of spec.unset is not a rule id of the kind (section.name, or a limit name)", Fix: "write the rule id as the error shows"})
	_ = warning.RegisterError("unset-duplicate", warning.Code{ID: "PRC-E015", Severity: warning.SeverityError, Title: "unset id repeated",
		Meaning: "a rule id is listed twice in spec.unset", Fix: "remove the repeated entry"})
	_ = warning.RegisterError("unset-declared", warning.Code{ID: "PRC-E016", Severity: warning.SeverityError, Title: "unset of an own rule",
		Meaning: "spec.unset names a rule the same policy declares", Fix: "remove the rule or the unset entry"})
)
