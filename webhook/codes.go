package webhook

import "github.com/precedent-dev/precedent/internal/warning"

// checkConfig is the check id of the errors of a PrecedentConfig (settings.Decode).
const checkConfig = "precedent-config"

var _ = warning.RegisterError(checkConfig, warning.Code{ID: "PRC-E033", Severity: warning.SeverityError, Title: "PrecedentConfig invalid",
	Meaning: "the PrecedentConfig breaks a rule of the settings (a value out of range, an unknown check or profile, a kind configured wrongly); the settings in force stay", Fix: "fix the field the error names"})

// codeConfigDeleted is the code of the warning on deleting the PrecedentConfig (validate.go).
var codeConfigDeleted = warning.Register(warning.Code{ID: "PRC-W025", Severity: warning.SeverityWarning,
	Title:   "PrecedentConfig deleted",
	Meaning: "deleting PrecedentConfig cluster puts the default settings in force on the next write (unset on, deny on every check, the default kinds)",
	Fix:     "recreate the PrecedentConfig if its settings should stay"})
