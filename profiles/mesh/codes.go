package mesh

import "github.com/precedent-dev/precedent/internal/warning"

// checkSpec is the check id of the errors of reading a mesh policy (engine.Parse).
const checkSpec = "mesh-spec"

var _ = warning.RegisterError(checkSpec, warning.Code{ID: "PRC-E031", Severity: warning.SeverityError, Title: "mesh policy invalid",
	Meaning: "the mesh policy breaks a rule of its shape: a targetRef kind not allowed where it is, name or tags where they are not allowed or missing, a field of the wrong type", Fix: "fix the field the error names; the error lists the values supported"})

// The codes of the findings the mesh profile adds for Kuma's versions (range PRC-W190..W209,
// PRC-E190..E209).
var (
	// codeFromLeftOut: `precedent mesh --from` on Kuma 2.14 where rules select the proxy.
	codeFromLeftOut = warning.Register(warning.Code{ID: "PRC-W190", Severity: warning.SeverityWarning,
		Title:   "from items left out beside rules (Kuma 2.14)",
		Meaning: "MeshTrafficPermission rules select the proxy's inbound: Kuma 2.14 builds its RBAC from the rules and leaves every from item out, so the merged from items shown do not apply there.",
		Fix:     "Name the client by its SPIFFE ID too (--rules --spiffe-id ID --from SERVICE), move the from items into rules, or predict Kuma 3.0 (--kuma-version 3.0), which merges both."})
)
