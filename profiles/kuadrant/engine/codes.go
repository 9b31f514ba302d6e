package engine

import "github.com/precedent-dev/precedent/internal/warning"

var (
	_ = warning.RegisterError("kuadrant-bare-with-blocks", warning.Code{ID: "PRC-E017", Severity: warning.SeverityError, Title: "Kuadrant: bare rules with blocks",
		Meaning: "implicit defaults (bare rules) and spec.defaults or spec.overrides are mutually exclusive, as Kuadrant's CRD says", Fix: "move the bare rules into spec.defaults or spec.overrides"})
	_ = warning.RegisterError("kuadrant-defaults-with-overrides", warning.Code{ID: "PRC-E018", Severity: warning.SeverityError, Title: "Kuadrant: defaults with overrides",
		Meaning: "a Kuadrant policy holds spec.defaults or spec.overrides, not both", Fix: "split it into two policies"})
	_ = warning.RegisterError("kuadrant-strategy", warning.Code{ID: "PRC-E019", Severity: warning.SeverityError, Title: "Kuadrant: unknown strategy",
		Meaning: "a block's strategy is neither atomic nor merge", Fix: "set strategy: atomic or strategy: merge"})
	_ = warning.RegisterError("kuadrant-rules-required", warning.Code{ID: "PRC-E020", Severity: warning.SeverityError, Title: "Kuadrant: empty block",
		Meaning: "the bare form, spec.defaults and spec.overrides each hold at least one rule", Fix: "add a rule to the block or remove the block"})
	_ = warning.RegisterError("kuadrant-not-empty", warning.Code{ID: "PRC-E021", Severity: warning.SeverityError, Title: "Kuadrant: empty policy",
		Meaning: "a Kuadrant policy needs bare rules, spec.defaults or spec.overrides", Fix: "add rules, or delete the policy"})
)
