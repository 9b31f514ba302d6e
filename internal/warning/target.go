package warning

// CodeTargetNotFound is the code of TargetNotFound, in every profile.
var CodeTargetNotFound = Register(Code{ID: "PRC-W011", Severity: SeverityWarning,
	Title:   "target not found",
	Meaning: "the object a targetRef names does not exist (yet): the policy is admitted but has no effect until it does",
	Fix:     "fix the reference (kind, name, sectionName) or create the target"})

// TargetNotFound is the warning on a write whose target (at field path, e.g. spec.targetRef; target
// as "<Kind> <namespace>/<name>") does not exist: admitted, but without effect.
func TargetNotFound(path, target string) string {
	return CodeTargetNotFound.Line(path + ": target " + target + " not found: the policy has no effect until it exists")
}
