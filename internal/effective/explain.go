package effective

import (
	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/topology"
)

// Step is what one policy did to one rule on one path.
type Step struct {
	Level  string      `json:"level"`
	Policy policy.Ref  `json:"policy"`
	Block  string      `json:"block"`
	Action EventType   `json:"action"`
	Other  *policy.Ref `json:"other,omitempty"`
	Detail string      `json:"detail,omitempty"`
}

// Explanation says why a path's effective policy has (or lacks) a rule.
type Explanation struct {
	Path ItemKey `json:"path"`
	Rule string  `json:"rule"`
	// From is the policy the rule comes from, nil when the rule is not in effect.
	From  *policy.Ref `json:"from,omitempty"`
	Steps []Step      `json:"steps"`
}

// Explain folds one path and keeps the steps that concern rule id: the events on that rule, and the
// block-level events (replaced, condition false or failed) of blocks that declare it.
func (s *Snapshot) Explain(path topology.Path, id string) Explanation {
	levels := s.Levels(path)
	levelOf := map[policy.Ref]string{}
	byRef := map[policy.Ref]*policy.Policy{}
	for _, lv := range levels {
		for _, p := range lv.Policies {
			levelOf[p.Ref] = lv.Level.String()
			byRef[p.Ref] = p
		}
	}
	r := s.Compute(path)
	ex := Explanation{Path: s.KeyOf(path), Rule: id, Steps: []Step{}}
	if e, ok := r.Rules[id]; ok {
		src := e.Source
		ex.From = &src
	}
	for _, ev := range r.Events {
		if ev.Rule != id && !(ev.Rule == "" && Declares(byRef[ev.Policy], ev.Block, id)) {
			continue
		}
		ex.Steps = append(ex.Steps, Step{Level: levelOf[ev.Policy], Policy: ev.Policy, Block: ev.Block, Action: ev.Type, Other: ev.Other, Detail: ev.Message})
	}
	return ex
}

// Declares reports whether the block of p named block ("rules", "defaults", "overrides", as events
// name them) declares rule id; false for a nil p.
func Declares(p *policy.Policy, block, id string) bool {
	if p == nil {
		return false
	}
	var b *policy.Block
	switch block {
	case "rules":
		b = p.Bare
	case "defaults":
		b = p.Defaults
	case "overrides":
		b = p.Overrides
	}
	if b == nil {
		return false
	}
	_, ok := b.Rules[id]
	return ok
}

// RuleStatus is, for one rule of one policy, where it is in effect and where another policy holds it.
type RuleStatus struct {
	Rule     string           `json:"rule"`
	InEffect []ItemKey        `json:"inEffect"`
	Replaced []ReplacedRuleAt `json:"replaced"`
}

// ReplacedRuleAt is a path where a rule of the policy is held by another policy (or removed).
type ReplacedRuleAt struct {
	Path ItemKey     `json:"path"`
	By   *policy.Ref `json:"by,omitempty"`
	How  EventType   `json:"how"`
}

// RuleStatuses answers the RFC's view-policy-rule-status: for every rule p declares, the paths
// where it is in effect and those where more specific (or overriding) policies replaced it.
func (s *Snapshot) RuleStatuses(p *policy.Policy) []RuleStatus {
	ids := p.RuleIDs()
	out := make([]RuleStatus, len(ids))
	idx := map[string]int{}
	for i, id := range ids {
		out[i] = RuleStatus{Rule: id, InEffect: []ItemKey{}, Replaced: []ReplacedRuleAt{}}
		idx[id] = i
	}
	seen := map[ItemKey]bool{}
	for _, pi := range s.PathsOf(p) {
		path := s.Graph.Paths[pi]
		k := s.KeyOf(path)
		if seen[k] {
			continue
		}
		seen[k] = true
		r := s.Compute(path)
		for _, id := range ids {
			e, ok := r.Rules[id]
			if ok && e.Source == p.Ref {
				out[idx[id]].InEffect = append(out[idx[id]].InEffect, k)
				continue
			}
			at := ReplacedRuleAt{Path: k, How: Overridden}
			if ok {
				src := e.Source
				at.By = &src
			}
			for _, ev := range r.Events {
				if ev.Rule == id && ev.Policy == p.Ref && ev.Type == Unset {
					at.How, at.By = Unset, ev.Other
				}
				if ev.Rule == id && ev.Policy == p.Ref && ev.Type == Kept {
					at.How, at.By = Replaced, ev.Other
				}
				if ev.Rule == "" && ev.Policy == p.Ref && (ev.Type == ConditionFalse || ev.Type == ConditionError) {
					at.How = ev.Type
				}
				if ev.Rule == "" && ev.Policy == p.Ref && ev.Type == Replaced && at.By == nil {
					at.How, at.By = Replaced, ev.Other
				}
			}
			out[idx[id]].Replaced = append(out[idx[id]].Replaced, at)
		}
	}
	return out
}

// Reach answers the RFC's view-policy-rule-reach: every path whose effective policy holds rule id,
// with the policy it comes from; only paths reached by from (when not nil) are considered.
func (s *Snapshot) Reach(id string, from *policy.Ref) []ReachedPath {
	var out []ReachedPath
	seen := map[ItemKey]bool{}
	for _, i := range s.PathIndexes() {
		path := s.Graph.Paths[i]
		if len(s.Levels(path)) == 0 {
			continue
		}
		k := s.KeyOf(path)
		if seen[k] {
			continue
		}
		seen[k] = true
		r := s.Compute(path)
		e, ok := r.Rules[id]
		if !ok || (from != nil && e.Source != *from) {
			continue
		}
		out = append(out, ReachedPath{Path: k, From: e.Source})
	}
	return out
}

// ReachedPath is a path a rule reaches.
type ReachedPath struct {
	Path ItemKey    `json:"path"`
	From policy.Ref `json:"from"`
}
