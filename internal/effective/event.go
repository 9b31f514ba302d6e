package effective

import "github.com/precedent-dev/precedent/internal/policy"

// EventType says what one step of the fold did.
type EventType string

const (
	// Added: a block put a rule into the effective policy (nothing held that id before).
	Added EventType = "added"
	// Kept: a merge default was not applied because a lower policy already set the rule (Other).
	Kept EventType = "kept"
	// Replaced: an atomic defaults block was ignored because lower policies (Other) already set rules.
	Replaced EventType = "replaced"
	// Overridden: an override replaced a rule set by Other.
	Overridden EventType = "overridden"
	// Clipped: an override with a when condition (a constraint) replaced a rule set by Other.
	Clipped EventType = "clipped"
	// Unset: a default rule of Policy was removed by the unset of Other.
	Unset EventType = "unset"
	// UnsetIneffective: an override of Policy set a rule that Other unsets.
	UnsetIneffective EventType = "unset-ineffective"
	// ConditionFalse: the block's when condition was false; the block did not apply.
	ConditionFalse EventType = "condition-false"
	// ConditionError: the block's when condition failed at run time; the block did not apply.
	ConditionError EventType = "condition-error"
)

// Event is one step of the fold.
type Event struct {
	Type EventType `json:"type"`
	// Rule is the rule id ("" for block-level events).
	Rule string `json:"rule,omitempty"`
	// Policy is the policy whose block acted.
	Policy policy.Ref `json:"policy"`
	// Block is "defaults", "overrides" or "rules" (bare rules).
	Block string `json:"block"`
	// Other is the other policy involved (the previous holder, the unsetter), if any.
	Other *policy.Ref `json:"other,omitempty"`
	// Message carries the CEL error of a ConditionError.
	Message string `json:"message,omitempty"`
}

// Entry is one rule of the effective policy and where it came from.
type Entry struct {
	Body   interface{}
	Source policy.Ref
	// Block is "defaults", "overrides" or "rules".
	Block string

	src *policy.Ref // &Source of the policy itself (immutable), for events to point at without a copy
}
