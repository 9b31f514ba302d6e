package reconcile

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/precedent-dev/precedent/internal/effective"
	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/printable"
	"github.com/precedent-dev/precedent/internal/settings"
	"github.com/precedent-dev/precedent/internal/topology"
	"github.com/precedent-dev/precedent/validate"
)

// Condition types and reasons (the RFC's "Possible statuses of an inherited policy").
const (
	TypeAccepted = "Accepted"
	TypeEnforced = "Enforced"

	ReasonAccepted          = "Accepted"
	ReasonInvalid           = "Invalid"
	ReasonTargetNotFound    = "TargetNotFound"
	ReasonConflicted        = "Conflicted"
	ReasonEnforced          = "Enforced"
	ReasonPartiallyEnforced = "PartiallyEnforced"
	ReasonOverridden        = "Overridden"
	ReasonUnknown           = "Unknown"
)

// Status is the computed status of one policy.
type Status struct {
	Conditions []metav1.Condition
	// Gateways are the Gateway ancestors of the paths the policy reaches, sorted (at most 16).
	Gateways []topology.Key
}

// MaxAncestors is Gateway API's limit on PolicyAncestorStatus entries.
const MaxAncestors = 16

// Compute derives the status of p (as stored) from snap, the snapshot holding every policy of its
// kind. invalid are the errors the webhook would give p now (stateless and stateful).
// Its folds read snap as it is: the caller leaves out of snap the policies not accepted (the views
// do), or Reconcile does (acceptance).
func Compute(snap *effective.Snapshot, p *policy.Policy, invalid field.ErrorList, s settings.Settings) Status {
	return compute(snap, p, invalid, s, nil, nil)
}

// compute is Compute, with the reconciler's counts of the rules each policy holds in the effective
// policies it reads (nil: none kept), and the snapshot of the policies accepted, which the folds
// read, made once p is accepted (nil: snap).
func compute(snap *effective.Snapshot, p *policy.Policy, invalid field.ErrorList, s settings.Settings, h *holdings, folds func() *effective.Snapshot) Status {
	gen := p.Generation
	cond := func(t string, ok bool, reason, msg string) metav1.Condition {
		st := metav1.ConditionFalse
		if ok {
			st = metav1.ConditionTrue
		}
		return metav1.Condition{Type: t, Status: st, Reason: reason, Message: msg, ObservedGeneration: gen}
	}
	var st Status
	accepted := acceptedCondition(snap, p, invalid, s)
	st.Conditions = append(st.Conditions, cond(TypeAccepted, accepted.ok, accepted.reason, accepted.msg))
	if !accepted.ok {
		st.Conditions = append(st.Conditions, cond(TypeEnforced, false, ReasonUnknown, "Policy has encountered some issues: it is not accepted"))
		return st
	}
	if folds != nil {
		snap = folds()
	}
	e, gws := enforced(snap, p, h)
	st.Conditions = append(st.Conditions, cond(TypeEnforced, e.ok, e.reason, e.msg))
	st.Gateways = gws
	return st
}

type verdict struct {
	ok     bool
	reason string
	msg    string
}

// Accepted is the reconciler's judgement of p's Accepted condition alone, as Compute makes it but
// without folding p's paths: whether p is accepted, and the condition's reason and message. A
// policy not accepted holds nothing in the views that agree with the status (`precedent effective`,
// `explain`, `diff`).
func Accepted(snap *effective.Snapshot, p *policy.Policy, invalid field.ErrorList, s settings.Settings) (ok bool, reason, message string) {
	v := acceptedCondition(snap, p, invalid, s)
	return v.ok, v.reason, v.msg
}

func acceptedCondition(snap *effective.Snapshot, p *policy.Policy, invalid field.ErrorList, s settings.Settings) verdict {
	if len(invalid) > 0 {
		return verdict{false, ReasonInvalid, truncate("Policy is invalid: "+printable.String(invalid.ToAggregate().Error()), 1024)}
	}
	var missing []string
	for _, t := range effective.TargetsOf(p) {
		if !snap.Graph.Exists(t) {
			missing = append(missing, printable.String(t.String()))
		}
	}
	if len(missing) > 0 && len(missing) == len(p.Targets) {
		return verdict{false, ReasonTargetNotFound, fmt.Sprintf("Policy target %s was not found", strings.Join(missing, ", "))}
	}
	if s.OnePolicyPerTarget {
		for _, t := range effective.TargetsOf(p) {
			for _, q := range snap.At(t) {
				if q.Ref != p.Ref && policy.Less(q, p) {
					return verdict{false, ReasonConflicted, fmt.Sprintf("Policy is conflicted by %s", printable.String(q.Ref.String()))}
				}
			}
		}
	}
	return verdict{true, ReasonAccepted, "Policy has been accepted"}
}

// enforced folds every path p reaches and reads p's fate from the effective policies and events:
// which of p's rules are not in effect on some path, and who holds each of them there.
// With counts of the rules each policy holds (h, may be nil), a path where p holds all its rules
// is settled by one lookup.
func enforced(snap *effective.Snapshot, p *policy.Policy, h *holdings) (verdict, []topology.Key) {
	paths := snap.PathsOf(p)
	if len(paths) == 0 {
		return verdict{false, ReasonUnknown, "Policy has encountered some issues: it is not in the path of any route or listener"}, nil
	}
	f := &fate{snap: snap, p: p, h: h, declared: ruleIDs(p), inEffect: map[string]bool{}, lost: map[string]map[string]bool{},
		unset: map[string]map[string]bool{}, addedBy: map[string]map[string]bool{}, gws: map[topology.Key]bool{}}
	f.key = f.scratch[:0]
	for _, i := range paths {
		f.path(i)
	}
	return f.verdict(), sortedGateways(f.gws)
}

// fate is what enforced gathers of one policy p over its paths.
type fate struct {
	snap     *effective.Snapshot
	p        *policy.Policy
	h        *holdings
	declared []string // in no order: only sets and counts are made of them
	inEffect map[string]bool
	everyIn  bool                       // on some path, every rule of p is in effect
	lost     map[string]map[string]bool // who → rule ids of p not in effect because of them ("": no other policy)
	unset    map[string]map[string]bool // who → rule ids of p their unset removed
	addedBy  map[string]map[string]bool // policy → default rule ids it added next to p's
	gws      map[topology.Key]bool
	key      []byte // the fold key of the path read, in scratch
	scratch  [512]byte
}

// path reads p's fate on the path with index i.
func (f *fate) path(i int) {
	snap, p := f.snap, f.p
	path := snap.Graph.Paths[i]
	f.gws[path.Gateway] = true
	r := snap.Compute(path)
	level := map[policy.Ref]topology.Level{}
	for _, lv := range snap.Levels(path) {
		for _, q := range lv.Policies {
			level[q.Ref] = lv.Level
		}
	}
	// p's rules are in effect on this path, and none is lost here, when p holds as many rules
	// as it declares.
	all := false
	if f.h != nil && len(f.declared) > 0 {
		f.key = snap.FoldKeyPath(f.key[:0], i)
		all = f.h.held(snap, f.key, r.Rules, p.Ref) == len(f.declared)
	}
	f.everyIn = f.everyIn || all
	// The defaults of less specific policies added next to p's rules; none unless such a policy
	// has defaults (the effective policy under a Gateway policy of thousands of overrides is not
	// walked for each policy on its paths).
	if lowerDefaults(snap, path, level, level[p.Ref]) {
		for id, e := range r.Rules {
			if e.Source != p.Ref && e.Block != "overrides" && level[e.Source] < level[p.Ref] {
				add(f.addedBy, e.Source.String(), id)
			}
		}
	}
	if !all {
		f.rules(r)
	}
}

// rules reads, rule by rule, which of p's rules are in effect in r and who holds the others.
func (f *fate) rules(r effective.Result) {
	p := f.p
	for _, id := range f.declared {
		if e, ok := r.Rules[id]; ok && e.Source == p.Ref {
			f.inEffect[id] = true
			continue
		}
		whos, unsetters := holders(p, id, r)
		if len(whos) == 0 && len(unsetters) == 0 {
			whos = []string{""}
		}
		for _, who := range whos {
			add(f.lost, who, id)
		}
		for _, who := range unsetters {
			add(f.unset, who, id)
		}
	}
}

// verdict is p's fate over all its paths.
func (f *fate) verdict() verdict {
	var notInEffect []string
	for _, id := range f.declared {
		if f.everyIn {
			break
		}
		if !f.inEffect[id] {
			notInEffect = append(notInEffect, id)
		}
	}
	switch {
	case len(f.declared) > 0 && len(notInEffect) == len(f.declared):
		return verdict{false, ReasonOverridden, overriddenMessage(f.lost, f.unset)}
	case len(f.lost) > 0 || len(f.unset) > 0:
		return verdict{true, ReasonPartiallyEnforced, truncate("Policy has been successfully enforced. "+lostList(f.lost, f.unset)+
			addedSuffix("; the following defaults have been added by ", f.addedBy), 32768)}
	}
	return verdict{true, ReasonEnforced, truncate("Policy has been successfully enforced"+addedSuffix(". The following defaults have been added by ", f.addedBy), 32768)}
}

// lowerDefaults reports whether a policy of path at a level under lvl (by level, the policies'
// levels on the path) has defaults (or bare rules): only such a policy's rules can be defaults
// added next to those of a policy at lvl.
func lowerDefaults(snap *effective.Snapshot, path topology.Path, level map[policy.Ref]topology.Level, lvl topology.Level) bool {
	for _, lv := range snap.Levels(path) {
		for _, q := range lv.Policies {
			if level[q.Ref] < lvl && q.DefaultsBlock() != nil {
				return true
			}
		}
	}
	return false
}

// ruleIDs is policy.Policy.RuleIDs without the sort, which cost a policy of thousands of rules
// more than the rest of its status.
func ruleIDs(p *policy.Policy) []string {
	var blocks []*policy.Block
	n := 0
	for _, b := range []*policy.Block{p.Bare, p.Defaults, p.Overrides} {
		if b != nil && len(b.Rules) > 0 {
			blocks = append(blocks, b)
			n += len(b.Rules)
		}
	}
	ids := make([]string, 0, n)
	var seen map[string]bool // only when an id may be in two blocks
	if len(blocks) > 1 {
		seen = make(map[string]bool, n)
	}
	for _, b := range blocks {
		for id := range b.Rules {
			if seen != nil {
				if seen[id] {
					continue
				}
				seen[id] = true
			}
			ids = append(ids, id)
		}
	}
	return ids
}

// isEnforced is enforced's verdict alone (Enforced or PartiallyEnforced rather than Overridden or
// Unknown): p reaches some path, and declares no rule or has one in effect on some path. It stops
// at the first such rule, so it costs little for a policy of thousands of rules.
func isEnforced(snap *effective.Snapshot, p *policy.Policy) bool {
	paths := snap.PathsOf(p)
	if len(paths) == 0 {
		return false
	}
	blocks := make([]*policy.Block, 0, 3)
	for _, b := range []*policy.Block{p.Bare, p.Defaults, p.Overrides} {
		if b != nil && len(b.Rules) > 0 {
			blocks = append(blocks, b)
		}
	}
	if len(blocks) == 0 {
		return true
	}
	for _, i := range paths {
		r := snap.Compute(snap.Graph.Paths[i])
		for _, b := range blocks {
			for id := range b.Rules {
				if e, ok := r.Rules[id]; ok && e.Source == p.Ref {
					return true
				}
			}
		}
	}
	return false
}

// holders names the policies that keep rule id of p out of the effective policy r of one path:
// the policy holding the rule there, else the one whose override dropped it or whose rules stood
// against p's atomic defaults; and, apart, the one whose unset removed it (unsetters). None when p's
// own block did not apply (its when condition was false).
func holders(p *policy.Policy, id string, r effective.Result) (out, unsetters []string) {
	if e, ok := r.Rules[id]; ok {
		return []string{e.Source.String()}, nil
	}
	seen := map[string]bool{}
	by := func(list *[]string, ref policy.Ref) {
		if !seen[ref.String()] {
			seen[ref.String()] = true
			*list = append(*list, ref.String())
		}
	}
	for _, ev := range r.Events {
		switch {
		case ev.Other == nil:
		case *ev.Other == p.Ref && ev.Rule == id && (ev.Type == effective.Overridden || ev.Type == effective.Clipped):
			by(&out, ev.Policy)
		case ev.Policy == p.Ref && ev.Rule == id && ev.Type == effective.Unset:
			by(&unsetters, *ev.Other)
		case ev.Policy == p.Ref && ev.Rule == id && ev.Type == effective.Kept:
			by(&out, *ev.Other)
		case ev.Policy == p.Ref && ev.Rule == "" && ev.Type == effective.Replaced && effective.Declares(p, ev.Block, id):
			by(&out, *ev.Other)
		}
	}
	return out, unsetters
}

func add(m map[string]map[string]bool, k, v string) {
	if m[k] == nil {
		m[k] = map[string]bool{}
	}
	m[k][v] = true
}

// overriddenMessage is the Enforced message of a policy none of whose rules is in effect: who
// overrode it and who unset its rules, or, when no other policy did (its own when condition kept it
// out), that its rules are not in effect.
func overriddenMessage(lost, unset map[string]map[string]bool) string {
	var parts []string
	if who := whoList(lost); who != "" {
		parts = append(parts, "overridden by "+who)
	}
	if who := whoList(unset); who != "" {
		parts = append(parts, "unset by "+who)
	}
	if len(parts) == 0 {
		return "Policy has been overridden: none of its rules is in effect on the paths it reaches"
	}
	return truncate("Policy has been "+strings.Join(parts, " and "), 32768)
}

// whoList lists the policies of m, sorted, escaped, but the rules no one holds (who "").
func whoList(m map[string]map[string]bool) string {
	var who []string
	for _, w := range sortedKeys(m) {
		if w != "" {
			who = append(who, printable.String(w))
		}
	}
	return strings.Join(who, ", ")
}

// lostList lists the rules of a policy not in effect on some path, grouped by who holds them:
// "The following rules have been overridden by ns/a: x, y; ns/b: z", then those unset ("the
// following rules have been unset by ns/c: w"), then the rules no other policy holds ("the
// following rules are not in effect: v").
func lostList(lost, unset map[string]map[string]bool) string {
	var parts []string
	lead := func(s string) string {
		if len(parts) == 0 {
			return strings.ToUpper(s[:1]) + s[1:]
		}
		return s
	}
	if by := byList(lost); by != "" {
		parts = append(parts, lead("the following rules have been overridden by ")+by)
	}
	if by := byList(unset); by != "" {
		parts = append(parts, lead("the following rules have been unset by ")+by)
	}
	if ids := lost[""]; len(ids) > 0 {
		parts = append(parts, lead("the following rules are not in effect: ")+strings.Join(escaped(sortedKeys(ids)), ", "))
	}
	return strings.Join(parts, "; ")
}

// byList renders who → rule ids as "ns/a: x, y; ns/b: z" (untrusted strings escaped), leaving out
// the rules no one holds (who "").
func byList(m map[string]map[string]bool) string {
	var parts []string
	for _, who := range sortedKeys(m) {
		if who == "" {
			continue
		}
		parts = append(parts, printable.String(who)+": "+strings.Join(escaped(sortedKeys(m[who])), ", "))
	}
	return strings.Join(parts, "; ")
}

// escaped makes each string safe to print (rule ids come from the policies' keys).
func escaped(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = printable.String(s)
	}
	return out
}

func addedSuffix(prefix string, m map[string]map[string]bool) string {
	if len(m) == 0 {
		return ""
	}
	return prefix + byList(m)
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func sortedGateways(m map[topology.Key]bool) []topology.Key {
	out := make([]topology.Key, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	if len(out) > MaxAncestors {
		out = out[:MaxAncestors]
	}
	return out
}

// truncate cuts s to at most n bytes, at a character boundary, marking the cut with "...".
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n - 3
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "..."
}

// Invalid returns the errors the webhook would give p now: the stateless checks and the forbidden
// unsets (a second policy on one target is Conflicted, not Invalid).
func Invalid(snap *effective.Snapshot, p *policy.Policy, s settings.Settings) field.ErrorList {
	errs := validate.Stateless(p, s, snap.Cond)
	if len(errs) > 0 {
		return errs
	}
	serrs, _ := validate.Stateful(snap, p, s, settings.CheckUnsetOverride)
	return serrs
}
