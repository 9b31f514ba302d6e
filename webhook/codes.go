package webhook

import "github.com/precedent-dev/precedent/internal/warning"

// codeConfigDeleted is the code of the warning on deleting the PrecedentConfig (validate.go).
var codeConfigDeleted = warning.Register(warning.Code{ID: "PRC-W025", Severity: warning.SeverityWarning,
	Title:   "PrecedentConfig deleted",
	Meaning: "deleting PrecedentConfig cluster puts the default settings in force on the next write (unset on, deny on every check, the default kinds)",
	Fix:     "recreate the PrecedentConfig if its settings should stay"})
