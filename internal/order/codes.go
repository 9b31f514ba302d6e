package order

import "github.com/precedent-dev/precedent/internal/warning"

// Unknown is the warning that an outcome depends on the order of creation of two policies the
// input does not date.
var Unknown = warning.Register(warning.Code{
	ID:       "PRC-W100",
	Severity: warning.SeverityWarning,
	Title:    "outcome depends on the order of creation",
	Meaning: "Two policies without creationTimestamp (Git manifests, or objects new in a change set) " +
		"would give a different outcome if created in the other order; the controller orders them by " +
		"age, which the input does not give. The other lines assume the first one named is created " +
		"first; lines with this code give the outcome of the other order.",
	Fix: "Make the intent independent of the order of creation (one policy per target, or distinct " +
		"rule names), or apply the policy that must win in the right order and check the cluster's answer.",
})
