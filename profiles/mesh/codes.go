package mesh

import "github.com/precedent-dev/precedent/internal/warning"

// checkSpec is the check id of the errors of reading a mesh policy (engine.Parse).
const checkSpec = "mesh-spec"

var _ = warning.RegisterError(checkSpec, warning.Code{ID: "PRC-E031", Severity: warning.SeverityError, Title: "mesh policy invalid",
	Meaning: "the mesh policy breaks a rule of its shape: a targetRef kind not allowed where it is, name or tags where they are not allowed or missing, a field of the wrong type", Fix: "fix the field the error names; the error lists the values supported"})
