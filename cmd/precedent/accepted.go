package main

import (
	"slices"

	"github.com/precedent-dev/precedent/internal/effective"
	"github.com/precedent-dev/precedent/internal/finding"
	"github.com/precedent-dev/precedent/internal/inventory"
	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/profile"
	"github.com/precedent-dev/precedent/internal/reconcile"
	"github.com/precedent-dev/precedent/internal/warning"
)

// codeNotAccepted is the code of the line that names a policy the views leave out because the
// reconciler does not accept it.
var codeNotAccepted = warning.Register(warning.Code{ID: "PRC-N300", Severity: warning.SeverityNote,
	Title: "policy not accepted, left out",
	Meaning: "the status reconciler writes (or would write) Accepted=False on this policy under the settings in force: it is invalid " +
		"(for example it uses unset while the PrecedentConfig switches unset off), its targets do not exist, or it is conflicted; " +
		"a policy not accepted holds nothing, so effective, explain and diff leave it out",
	Fix: "fix what the reason names (precedent explain --policy shows the condition), or leave the policy out"})

// leftOut is a policy of kind the views leave out: the reconciler does not accept it.
type leftOut struct {
	kind policy.Kind
	item *inventory.Item
	// where are the namespaces the policy is about: its own, and those of the routes (or, for
	// listener paths, the Gateways) of the paths it reaches.
	where map[string]bool
}

// leaveOutUnaccepted judges every policy of the kinds whose status Precedent writes as the
// reconciler judges its Accepted condition (reconcile.Invalid and reconcile.Accepted, over the
// snapshot of every policy of the kind, with the settings in force, never the object's stored
// status), and leaves out of the input's policies those not accepted, with a note each. Kinds whose
// status another controller owns keep that controller's judgement (their profiles' own views).
// kind names the kinds judged as --kind does ("": every kind).
func (o *input) leaveOutUnaccepted(kind string) {
	for _, k := range o.registry.Kinds() {
		if k.WritesStatus() && k.Effective() && profile.Names(kind, k.GVK.GroupKind()) {
			o.judge(k)
		}
	}
}

// judge leaves out the policies of k that the reconciler does not accept.
func (o *input) judge(k policy.Kind) {
	gk := k.GVK.GroupKind()
	items := o.inv.Policies[gk]
	if len(items) == 0 {
		return
	}
	snap := o.snapshot(k)
	kept := make([]*inventory.Item, 0, len(items))
	for _, it := range items {
		invalid := append(slices.Clip(it.Errs), reconcile.Invalid(snap, it.Policy, o.settings)...)
		ok, reason, msg := reconcile.Accepted(snap, it.Policy, invalid, o.settings)
		if ok {
			kept = append(kept, it)
			continue
		}
		o.left = append(o.left, leftOut{kind: k, item: it, where: namespacesOf(snap, it.Policy)})
		o.unaccepted = append(o.unaccepted, finding.Warning(finding.ObjectOf(it.Object),
			codeNotAccepted.Linef("left out, not accepted: %s: %s", reason, msg)))
	}
	o.inv.Policies[gk] = kept
}

// namespacesOf are the namespaces p is about: its own, and those of the routes (or, for listener
// paths, the Gateways) of the paths it reaches in snap.
func namespacesOf(snap *effective.Snapshot, p *policy.Policy) map[string]bool {
	out := map[string]bool{p.Ref.Namespace: true}
	for _, i := range snap.PathsOf(p) {
		path := snap.Graph.Paths[i]
		if path.RouteKind != "" {
			out[path.Route.Namespace] = true
		} else {
			out[path.Gateway.Namespace] = true
		}
	}
	return out
}

// keepUnacceptedIn keeps the notes of the policies left out that are about namespace ns (all when
// ns is ""), as `effective -n` shows the paths of ns only.
func (o *input) keepUnacceptedIn(ns string) {
	if ns == "" {
		return
	}
	var keep []finding.Finding
	for i, l := range o.left {
		if l.where[ns] {
			keep = append(keep, o.unaccepted[i])
		}
	}
	o.unaccepted = keep
}

// leftOutPolicy is the policy ref of kind k that leaveOutUnaccepted left out, with the snapshot the
// reconciler judges it on (every policy of the kind); ok is false when ref was not left out.
func (o *input) leftOutPolicy(k policy.Kind, ref policy.Ref) (*policy.Policy, *effective.Snapshot, bool) {
	for _, l := range o.left {
		if l.kind.Equal(k) && l.item.Policy.Ref == ref {
			return l.item.Policy, effective.NewSnapshot(k, o.topology(), o.allViews(k), o.evaluator()), true
		}
	}
	return nil, nil, false
}

// allItems are the items of every policy of k, those left out included.
func (o *input) allItems(k policy.Kind) []*inventory.Item {
	all := slices.Clip(o.inv.Items(k))
	for _, l := range o.left {
		if l.kind.Equal(k) {
			all = append(all, l.item)
		}
	}
	return all
}

// allViews are the views of every policy of k, those left out included.
func (o *input) allViews(k policy.Kind) []*policy.Policy {
	items := o.allItems(k)
	out := make([]*policy.Policy, len(items))
	for i, it := range items {
		out[i] = it.Policy
	}
	return out
}

// newlyUnaccepted are the notes of head's policies left out that base did not leave out for the
// same reason: what the change set makes not accepted.
func newlyUnaccepted(base, head *input) []finding.Finding {
	before := map[string]bool{}
	for _, f := range base.unaccepted {
		before[f.Text()] = true
	}
	var out []finding.Finding
	for _, f := range head.unaccepted {
		if !before[f.Text()] {
			out = append(out, f)
		}
	}
	return out
}
