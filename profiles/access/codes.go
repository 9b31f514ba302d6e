package access

import "github.com/precedent-dev/precedent/internal/warning"

// checkSpec is the check id of the errors of reading an AccessPolicy (engine.Parse).
const checkSpec = "access-spec"

var _ = warning.RegisterError(checkSpec, warning.Code{ID: "PRC-E032", Severity: warning.SeverityError, Title: "access policy invalid",
	Meaning: "the AccessPolicy breaks a rule of its shape: targets of several kinds, rule names repeated, union fields inconsistent with type, more than one ExternalAuth rule, or InlineTools mixed with ExternalAuth while the settings forbid it", Fix: "fix the field the error names"})
