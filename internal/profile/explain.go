package profile

import (
	"github.com/precedent-dev/precedent/internal/effective"
	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/topology"
)

// PolicyExplanation is `precedent explain --policy -o json` (the CLI contract): whether the policy
// is accepted and enforced, and the fate of each of its rules.
type PolicyExplanation struct {
	Kind     string     `json:"kind"`
	Policy   string     `json:"policy"`
	Accepted Condition  `json:"accepted"`
	Enforced Condition  `json:"enforced"`
	Rules    []RuleFate `json:"rules"`
}

// Condition is one condition of an explanation.
type Condition struct {
	Status  string `json:"status"`
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

// RuleFate is a rule's fate on most of the paths it reaches, who decided it, and on how many paths.
type RuleFate struct {
	ID    string `json:"id"`
	State string `json:"state"`
	By    string `json:"by"`
	Paths int    `json:"paths"`
}

// PolicyExplainer is a profile that folds outside the engine and explains its own policies
// (`precedent explain --policy`); the engine's profiles are explained by the reconciler's functions
// over their snapshots.
type PolicyExplainer interface {
	ExplainPolicy(in *Offline, k policy.Kind, ref policy.Ref) (*PolicyExplanation, error)
}

// RuleExplainer is a profile that folds outside the engine and explains its rules on paths, in the
// engine's shapes: `precedent explain --target T --rule ID` (one explanation per path beneath T)
// and `explain --reach --rule ID [--policy NS/NAME]`. An error when no policy of k declares the rule.
type RuleExplainer interface {
	ExplainRule(in *Offline, k policy.Kind, target topology.Target, rule string) ([]effective.Explanation, error)
	Reach(in *Offline, k policy.Kind, rule string, ref *policy.Ref) ([]effective.ReachedPath, error)
}
