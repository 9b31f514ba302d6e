package engine

import "github.com/precedent-dev/precedent/internal/warning"

// The codes of the mesh profile's warnings (shadow.go, ruleshadow.go).
var (
	codeNeverTakesEffect = warning.Register(warning.Code{ID: "PRC-W014", Severity: warning.SeverityWarning,
		Title:   "mesh element never takes effect",
		Meaning: "an element (or a whole policy) can never take effect for any Dataplane of the mesh: every field it sets is always decided by a higher-priority element",
		Fix:     "remove the element, or give the policy a more specific targetRef (or, where the model orders by name, a name that sorts to higher priority)"})
	codeFromDeprecated = warning.Register(warning.Code{ID: "PRC-W015", Severity: warning.SeverityWarning,
		Title:   "Kuma spec.from is deprecated",
		Meaning: "Kuma 2.x deprecates spec.from and Kuma 3.0 drops it silently on create and update; the lines after it give the equivalent spec.rules items",
		Fix:     "rewrite spec.from as spec.rules, as the lines say"})
	codeMatchNeverApplies = warning.Register(warning.Code{ID: "PRC-W016", Severity: warning.SeverityWarning,
		Title:   "Kuma rule match never applies",
		Meaning: "a spec.rules match Kuma never applies (a MeshTimeout match without spiffeID, a MeshTrafficPermission entry with neither spiffeID nor sni)",
		Fix:     "set spiffeID (or sni where allowed) on the match, or remove it"})
	codeMoreMesh = warning.Register(warning.Code{ID: "PRC-W017", Severity: warning.SeverityWarning,
		Title:   "more mesh warnings not shown",
		Meaning: "the mesh warnings of the write exceed the cap; this line counts those left out",
		Fix:     "run `precedent validate -f` or `precedent mesh` on the manifests to see them all"})
)
