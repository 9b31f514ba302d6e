package engine

import "github.com/precedent-dev/precedent/internal/warning"

// The codes of the access profile's projection warnings (project.go, grants.go).
var (
	codeLeftOpen = warning.Register(warning.Code{ID: "PRC-W012", Severity: warning.SeverityWarning,
		Title:   "removing allow rules opens a level",
		Meaning: "deleting the policy leaves a Gateway or Backend without allow rules: every source passes that level for every tool",
		Fix:     "keep an allow rule on that level (another policy) before deleting this one, if the level should stay closed"})
	codeUnreachable = warning.Register(warning.Code{ID: "PRC-W013", Severity: warning.SeverityWarning,
		Title:   "grants become unreachable",
		Meaning: "tools granted to a source at one level are denied at the other level after the write: the grant can no longer be used",
		Fix:     "add a matching allow rule at the level that denies, or remove the grant that cannot be used"})
)
