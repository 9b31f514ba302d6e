package reconcile

import (
	"fmt"
	"slices"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/precedent-dev/precedent/internal/topology"
)

// Status fields Precedent writes on its policies. Everything else in a status (other fields, other
// controllers' conditions and ancestors entries) is kept as it is.
const (
	fieldConditions = "conditions"
	fieldAncestors  = "ancestors"
)

// ownedTypes are the condition types Precedent owns on a policy.
var ownedTypes = []string{TypeAccepted, TypeEnforced}

// mergeStatus returns cur with Precedent's part made what st says: its conditions (Accepted,
// Enforced) replaced or added in place, other types untouched; in status.ancestors, its own entries
// (controllerName ControllerName) replaced, added or removed, other controllers' entries untouched
// and never removed for room (ours take what is left of MaxAncestors). Fields in skip (pruned by
// the kind's schema) are neither written nor compared. changed is false when cur already says all
// that: then there is nothing to write. cur is not modified.
func mergeStatus(cur map[string]interface{}, st Status, skip map[string]bool, now metav1.Time) (out map[string]interface{}, changed bool, err error) {
	out = make(map[string]interface{}, len(cur)+2)
	for k, v := range cur {
		out[k] = v
	}
	conds, _ := cur[fieldConditions].([]interface{})
	if !skip[fieldConditions] {
		var c bool
		if conds, c, err = mergeConditions(conds, st.Conditions, now); err != nil {
			return nil, false, err
		}
		changed = changed || c
		setList(out, fieldConditions, conds)
	}
	if !skip[fieldAncestors] {
		raw, _ := cur[fieldAncestors].([]interface{})
		anc, c := mergeAncestors(raw, ancestorEntries(st.Gateways, findCondition(conds, TypeAccepted)))
		changed = changed || c
		setList(out, fieldAncestors, anc)
	}
	return out, changed, nil
}

// setList sets m[k] to l, or removes k when l is empty (an absent list and an empty one mean the same).
func setList(m map[string]interface{}, k string, l []interface{}) {
	if len(l) == 0 {
		delete(m, k)
		return
	}
	m[k] = l
}

// mergeConditions puts want into raw: a condition of the same type is kept as it is when it means
// the same (status, reason, message, observedGeneration), else replaced in place, with its
// lastTransitionTime kept while its status is unchanged; a missing one is appended. Conditions of
// other types, and entries that are not conditions, are kept untouched.
func mergeConditions(raw []interface{}, want []metav1.Condition, now metav1.Time) ([]interface{}, bool, error) {
	out := slices.Clone(raw)
	changed := false
	for _, w := range want {
		i := slices.IndexFunc(out, func(item interface{}) bool { return typeOf(item) == w.Type })
		var cur *metav1.Condition
		if i >= 0 {
			cur = toCondition(out[i])
		}
		if cur != nil && sameCondition(*cur, w) {
			continue
		}
		w.LastTransitionTime = now
		if cur != nil && cur.Status == w.Status && !cur.LastTransitionTime.IsZero() {
			w.LastTransitionTime = cur.LastTransitionTime
		}
		m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&w)
		if err != nil {
			return nil, false, fmt.Errorf("rendering condition %s: %w", w.Type, err)
		}
		if i >= 0 {
			out[i] = m
		} else {
			out = append(out, m)
		}
		changed = true
	}
	return out, changed, nil
}

func typeOf(item interface{}) string {
	m, _ := item.(map[string]interface{})
	t, _ := m["type"].(string)
	return t
}

func toCondition(item interface{}) *metav1.Condition {
	m, ok := item.(map[string]interface{})
	if !ok {
		return nil
	}
	var c metav1.Condition
	if runtime.DefaultUnstructuredConverter.FromUnstructured(m, &c) != nil {
		return nil
	}
	return &c
}

func findCondition(raw []interface{}, t string) *metav1.Condition {
	for _, item := range raw {
		if typeOf(item) == t {
			return toCondition(item)
		}
	}
	return nil
}

// sameCondition compares two conditions by meaning (type, status, reason, message, generation).
func sameCondition(a, b metav1.Condition) bool {
	return a.Type == b.Type && a.Status == b.Status && a.Reason == b.Reason && a.Message == b.Message && a.ObservedGeneration == b.ObservedGeneration
}

// ancestorEntries renders Precedent's PolicyAncestorStatus entries: one per Gateway ancestor,
// carrying the policy's Accepted condition.
func ancestorEntries(gws []topology.Key, accepted *metav1.Condition) []gwv1.PolicyAncestorStatus {
	out := make([]gwv1.PolicyAncestorStatus, 0, len(gws))
	for _, gw := range gws {
		group := gwv1.Group(topology.Group)
		kind := gwv1.Kind("Gateway")
		ns := gwv1.Namespace(gw.Namespace)
		a := gwv1.PolicyAncestorStatus{
			AncestorRef:    gwv1.ParentReference{Group: &group, Kind: &kind, Namespace: &ns, Name: gwv1.ObjectName(gw.Name)},
			ControllerName: ControllerName,
		}
		if accepted != nil {
			a.Conditions = []metav1.Condition{*accepted}
		}
		out = append(out, a)
	}
	return out
}

// mergeAncestors puts Precedent's entries own into raw. Other controllers' entries stay where they
// are, untouched, and always stay; Precedent's take the room left of MaxAncestors (the first ones of
// own, which is sorted). An entry of ours for an ancestor still in own is kept in place (replaced
// when its meaning changed); ours for ancestors no longer in own are removed; new ones are appended.
func mergeAncestors(raw []interface{}, own []gwv1.PolicyAncestorStatus) ([]interface{}, bool) {
	foreign := 0
	for _, item := range raw {
		if !ours(item) {
			foreign++
		}
	}
	if room := max(0, MaxAncestors-foreign); len(own) > room {
		own = own[:room]
	}
	want := make(map[string]int, len(own)) // ancestorRef → index in own
	for i, a := range own {
		want[refKey(a.AncestorRef)] = i
	}
	placed := make([]bool, len(own))
	out := make([]interface{}, 0, foreign+len(own))
	changed := false
	for _, item := range raw {
		if !ours(item) {
			out = append(out, item)
			continue
		}
		cur, ok := toAncestor(item)
		i, wanted := 0, false
		if ok {
			i, wanted = want[refKey(cur.AncestorRef)]
		}
		if !wanted || placed[i] {
			changed = true // not an ancestor any more, a duplicate, or not an entry at all
			continue
		}
		placed[i] = true
		if sameAncestor(cur, own[i]) {
			out = append(out, item)
			continue
		}
		out = append(out, ancestorMap(own[i]))
		changed = true
	}
	for i, a := range own {
		if !placed[i] {
			out = append(out, ancestorMap(a))
			changed = true
		}
	}
	return out, changed
}

func ours(item interface{}) bool {
	m, _ := item.(map[string]interface{})
	n, _ := m["controllerName"].(string)
	return n == ControllerName
}

func toAncestor(item interface{}) (gwv1.PolicyAncestorStatus, bool) {
	m, ok := item.(map[string]interface{})
	var a gwv1.PolicyAncestorStatus
	if !ok || runtime.DefaultUnstructuredConverter.FromUnstructured(m, &a) != nil {
		return a, false
	}
	return a, true
}

func ancestorMap(a gwv1.PolicyAncestorStatus) map[string]interface{} {
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&a)
	if err != nil { // a struct of strings and conditions always converts
		return map[string]interface{}{}
	}
	return m
}

// refKey identifies an ancestorRef (defaults applied: group gateway.networking.k8s.io, kind Gateway).
func refKey(r gwv1.ParentReference) string {
	group, kind, ns, section, port := topology.Group, "Gateway", "", "", ""
	if r.Group != nil {
		group = string(*r.Group)
	}
	if r.Kind != nil {
		kind = string(*r.Kind)
	}
	if r.Namespace != nil {
		ns = string(*r.Namespace)
	}
	if r.SectionName != nil {
		section = string(*r.SectionName)
	}
	if r.Port != nil {
		port = fmt.Sprint(*r.Port)
	}
	return group + "/" + kind + "/" + ns + "/" + string(r.Name) + "/" + section + "/" + port
}

// sameAncestor compares two entries by meaning: the same ancestor and controller, and conditions
// of the same meaning.
func sameAncestor(a, b gwv1.PolicyAncestorStatus) bool {
	if refKey(a.AncestorRef) != refKey(b.AncestorRef) || a.ControllerName != b.ControllerName || len(a.Conditions) != len(b.Conditions) {
		return false
	}
	for _, c := range b.Conditions {
		d := meta.FindStatusCondition(a.Conditions, c.Type)
		if d == nil || !sameCondition(*d, c) {
			return false
		}
	}
	return true
}

// pruning remembers, per kind, the status fields its schema does not keep: a field the API server
// pruned (or changed) in the answer to a write is not written again (it would look changed on
// every event and be written forever).
type pruning struct {
	mu     sync.Mutex
	fields map[string]bool
}

// skip returns the fields not to write (a copy).
func (p *pruning) skip() map[string]bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make(map[string]bool, len(p.fields))
	for f := range p.fields {
		out[f] = true
	}
	return out
}

// learn compares what the API server kept (stored, the status in the answer to a write of st) with
// st, and returns the fields found not kept, now remembered.
func (p *pruning) learn(stored map[string]interface{}, st Status, skip map[string]bool) []string {
	var lost []string
	for _, f := range []string{fieldConditions, fieldAncestors} {
		if skip[f] {
			continue
		}
		only := map[string]bool{}
		for _, g := range []string{fieldConditions, fieldAncestors} {
			only[g] = g != f
		}
		if _, changed, err := mergeStatus(stored, st, only, metav1.Now()); err == nil && changed {
			lost = append(lost, f)
		}
	}
	if len(lost) == 0 {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.fields == nil {
		p.fields = map[string]bool{}
	}
	for _, f := range lost {
		p.fields[f] = true
	}
	return lost
}
