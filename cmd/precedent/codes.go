package main

import "github.com/precedent-dev/precedent/internal/warning"

// codeUnchecked is the code of the line that lists policies of kinds no profile checks (unchecked.go).
var codeUnchecked = warning.Register(warning.Code{ID: "PRC-W024", Severity: warning.SeverityWarning,
	Title:   "policies not checked",
	Meaning: "the input holds policy-like objects of a kind Precedent does not manage: they are not checked, and their effect is not predicted",
	Fix:     "add the kind under spec.kinds of the PrecedentConfig (in the input or --config), or leave it out of the input"})
