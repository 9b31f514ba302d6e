package warning

// TargetNotFound is the warning on a write whose target (at field path, e.g. spec.targetRef; target
// as "<Kind> <namespace>/<name>") does not exist: admitted, but without effect.
func TargetNotFound(path, target string) string {
	return path + ": target " + target + " not found: the policy has no effect until it exists"
}
