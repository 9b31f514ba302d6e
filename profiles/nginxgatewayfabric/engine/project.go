package engine

import (
	"fmt"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/precedent-dev/precedent/internal/topology"
	"github.com/precedent-dev/precedent/internal/warning"
	"github.com/precedent-dev/precedent/profiles/internal/pmap"
)

// The codes of what a write of NGINX Gateway Fabric's policies gets.
var (
	CodeTargetConflict = warning.Register(warning.Code{ID: "PRC-E260", Severity: warning.SeverityError, Title: "route target shares a hostname:port/path",
		Meaning: "NGINX Gateway Fabric does not accept a route-targeted policy when another route, not targeted by it, shares a gateway:hostname:port/path with a targeted route (checkTargetRoutesForOverlap): the policy would have no effect",
		Fix:     "target every route that shares the hostname, port and path, or give the routes distinct paths or hostnames"})
	CodeConflicted = warning.Register(warning.Code{ID: "PRC-W260", Severity: warning.SeverityWarning, Title: "conflicts with an older policy",
		Meaning: "an older policy of the same kind on the same target sets the same field (a PayloadProcessor or ExternalLoadBalancer: is there at all): NGINX Gateway Fabric marks this one Conflicted and applies none of it (markConflictedPolicies, processExternalLoadBalancers)",
		Fix:     "move the field into the older policy, or remove it from this one"})
	CodeDisplaced = warning.Register(warning.Code{ID: "PRC-W261", Severity: warning.SeverityWarning, Title: "write takes another policy out of effect",
		Meaning: "the write makes another policy Conflicted or not accepted, so the settings it applied are gone",
		Fix:     "check that the other policy's settings should go, or take the shared fields out of this write"})
	CodeNoTarget = warning.Register(warning.Code{ID: "PRC-W262", Severity: warning.SeverityWarning, Title: "no target exists",
		Meaning: "none of the policy's targets exists: NGINX Gateway Fabric ignores it and writes no status",
		Fix:     "create the target, or correct the reference"})
	CodeOverridden = warning.Register(warning.Code{ID: "PRC-W263", Severity: warning.SeverityWarning, Title: "Gateway settings overridden on routes",
		Meaning: "a policy of the same kind on a route (ClientSettingsPolicy, ProxySettingsPolicy, RateLimitPolicy, WAFPolicy, PayloadProcessor) sets a field this Gateway-level policy sets: on that route the route's value holds",
		Fix:     "nothing, if the routes should decide; else remove the field from the route policies"})
)

// Write is one write of a policy: Old is the version it replaces (nil for a create), New the written
// one (nil for a delete). Project reads the world as it is before the write: with Old in place of the
// world's policy of the written kind and name, whether the world holds that one, the written one (as
// in the cluster after the write, validate -f's) or none.
type Write struct{ Old, New *Policy }

// Projection is what a write gets: errors deny it, warnings go back either way.
type Projection struct {
	Errs     field.ErrorList
	Warnings []string
}

// Project decides the world before and after the write and says what the write does. Only the
// policies related to the write (sharing a target with it, and so on) are decided: the cost of a
// write does not grow with the policies and routes elsewhere.
func (w *World) Project(wr Write) Projection {
	rel := w.related(wr)
	before := w.decide(rel)
	aw := w.routesOnly() // the related policies after the write are decided over the same routes
	var afterRel []*Policy
	for _, q := range rel {
		if !same(q, wr.Old) && !same(q, wr.New) {
			afterRel = append(afterRel, q)
		}
	}
	if wr.New != nil {
		afterRel = append(afterRel, wr.New)
	}
	after := aw.decide(afterRel)
	var pr Projection
	if p := wr.New; p != nil {
		st := StatusOf(after, p)
		switch st.Reason {
		case ReasonTargetConflict:
			pr.Errs = append(pr.Errs, field.Forbidden(p.Targets[st.Target].Path, CodeTargetConflict.Line(st.Message)))
		case ReasonConflicted:
			pr.Warnings = append(pr.Warnings, CodeConflicted.Linef("%s %s, older, %s on the same target: NGINX Gateway Fabric marks this policy Conflicted and applies none of it", st.By.Kind, st.By.Ref, conflictWords(st)))
		case ReasonTargetNotFound, ReasonInvalid:
			pr.Warnings = append(pr.Warnings, CodeNoTarget.Line(st.Message))
		}
		if inherited(p.Kind) && st.Accepted() && targetsGateway(p) {
			pr.Warnings = append(pr.Warnings, w.overridden(wr)...)
		}
	}
	var displaced []string
	for _, q := range rel {
		if same(q, wr.Old) || same(q, wr.New) {
			continue
		}
		if StatusOf(before, q).Accepted() && !StatusOf(after, q).Accepted() {
			st := StatusOf(after, q)
			why := st.Reason
			switch {
			case st.Reason == ReasonConflicted && Kinds[q.Kind].always:
				why = fmt.Sprintf("Conflicted (%s holds the target first)", st.By.Ref)
			case st.Reason == ReasonConflicted:
				why = fmt.Sprintf("Conflicted (%s also set by %s)", strings.Join(st.Fields, ", "), st.By.Ref)
			}
			displaced = append(displaced, CodeDisplaced.Linef("%s %s: this write makes it %s: its settings are no longer applied", q.Kind, q.Ref, why))
		}
	}
	sort.Strings(displaced)
	pr.Warnings = append(pr.Warnings, displaced...)
	return pr
}

// same reports whether q is p (by kind and reference); false for a nil p.
func same(q, p *Policy) bool { return p != nil && q.Kind == p.Kind && q.Ref == p.Ref }

// related are the policies whose status the write may change: those of its kind that share a
// target with its old or new version, and those that share a target with them, and so on, in
// precedence order.
func (w *World) related(wr Write) []*Policy {
	var queue []targetKey
	for _, p := range []*Policy{wr.Old, wr.New} {
		if p == nil {
			continue
		}
		for _, t := range p.Targets {
			queue = append(queue, targetKey{p.Kind, p.Ref.Namespace, t.Kind, t.Name})
		}
	}
	return w.relatedTo(queue, wr)
}

// relatedTo are the policies on the targets queue and those that share a target with them, and so
// on, in precedence order: a set whose statuses depend on its policies alone. The world is read as
// it is before wr (policiesOn).
func (w *World) relatedTo(queue []targetKey, wr Write) []*Policy {
	idx := w.targets()
	seen := map[*Policy]bool{}
	done := map[targetKey]bool{}
	var out []*Policy
	for len(queue) > 0 {
		tk := queue[0]
		queue = queue[1:]
		if done[tk] {
			continue
		}
		done[tk] = true
		for _, q := range policiesOn(idx, tk, wr) {
			if seen[q] {
				continue
			}
			seen[q] = true
			out = append(out, q)
			for _, t := range q.Targets {
				queue = append(queue, targetKey{q.Kind, q.Ref.Namespace, t.Kind, t.Name})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return Less(out[i], out[j]) })
	return out
}

// policiesOn are the policies on tk before wr: the world's, with wr.Old in place of the world's
// policy of wr's kind and name.
func policiesOn(idx *pmap.Map[targetKey, []*Policy], tk targetKey, wr Write) []*Policy {
	name := wr.New
	if name == nil {
		name = wr.Old
	}
	ps, _ := idx.Get(tk)
	if name == nil || name.Kind != tk.kind || name.Ref.Namespace != tk.ns {
		return ps
	}
	out := make([]*Policy, 0, len(ps)+1)
	for _, q := range ps {
		if !same(q, name) {
			out = append(out, q)
		}
	}
	if wr.Old != nil && on(wr.Old, tk) {
		out = append(out, wr.Old)
	}
	return out
}

// on reports whether tk is one of p's targets.
func on(p *Policy, tk targetKey) bool {
	for _, t := range p.Targets {
		if (targetKey{p.Kind, p.Ref.Namespace, t.Kind, t.Name}) == tk {
			return true
		}
	}
	return false
}

// routesOnly is the world's routes and Services without policies, sharing the route indexes.
func (w *World) routesOnly() *World { return w.sameRoutes() }

// conflictWords say why a Conflicted policy conflicts: the fields both set, or that its kind allows
// one policy per target.
func conflictWords(st *Status) string {
	if Kinds[st.By.Kind].always {
		return "already holds it (one " + st.By.Kind + " per target)"
	}
	return "sets " + strings.Join(st.Fields, ", ")
}

// inherited reports whether a kind is set on Gateways and on routes, a route's value replacing the
// Gateway's.
func inherited(kind string) bool {
	ks := Kinds[kind]
	_, gw := ks.targets["Gateway"]
	_, route := ks.targets["HTTPRoute"]
	return gw && route
}

func targetsGateway(p *Policy) bool {
	for _, t := range p.Targets {
		if t.Kind == "Gateway" {
			return true
		}
	}
	return false
}

// overridden says, for the write of a Gateway-level policy p of an inherited kind, which of its
// fields routes' policies override, one line per field with the count of routes and the first. Only
// the paths of p's Gateways are looked at, and only the policies on them (and those sharing a target
// with them) decided, with the write applied: the cost follows those Gateways' routes, not the
// cluster.
func (w *World) overridden(wr Write) []string {
	p := wr.New
	var gws []string
	var paths []int
	var queue []targetKey
	for _, t := range p.Targets {
		if t.Kind == "Gateway" {
			gws = append(gws, p.Ref.Namespace+"/"+t.Name)
			queue = append(queue, targetKey{p.Kind, p.Ref.Namespace, "Gateway", t.Name})
			paths = append(paths, w.Graph.PathsFor(topology.Target{Kind: "Gateway", Namespace: p.Ref.Namespace, Name: t.Name})...)
		}
	}
	if len(gws) == 0 {
		return nil
	}
	for _, i := range paths {
		path := w.Graph.Paths[i]
		if routeKind(path.RouteKind) {
			queue = append(queue, targetKey{p.Kind, path.Route.Namespace, path.RouteKind, path.Route.Name})
		}
	}
	var pols []*Policy
	for _, q := range w.relatedTo(queue, wr) {
		if !same(q, wr.Old) && !same(q, wr.New) {
			pols = append(pols, q)
		}
	}
	pols = append(pols, p)
	sort.SliceStable(pols, func(i, j int) bool { return Less(pols[i], pols[j]) })
	after := w.routesOnly()
	statuses := after.decide(pols)
	routes := map[string][]string{} // field -> "route by policy"
	for _, it := range after.itemsOn(p.Kind, pols, statuses, paths) {
		if !slicesContains(sortedCopy(gws), it.Gateway) {
			continue
		}
		for f, src := range it.Sources {
			if _, mine := p.Fields[f]; mine && !Holds(src, p.Ref.String()) {
				routes[f] = append(routes[f], "route "+it.Route+" by "+p.Kind+" "+src)
			}
		}
	}
	var out []string
	for _, f := range sortedKeys(routes) {
		rs := routes[f]
		sort.Strings(rs)
		more := ""
		if len(rs) > 1 {
			more = fmt.Sprintf(" and %d more routes", len(rs)-1)
		}
		out = append(out, CodeOverridden.Linef("%s is overridden on %s%s", f, rs[0], more))
	}
	return out
}

func sortedCopy(l []string) []string {
	out := append([]string(nil), l...)
	sort.Strings(out)
	return out
}

// Readers says whose projection of a create may read one of ps (policies of the world): those
// related to them (sharing a target of their kind, and so on: related), and those of a Gateway
// whose paths hold a route one of these targets, which overridden reads with the route's related
// policies. A projection reads no other stored policy, and a policy of another kind never.
func (w *World) Readers(ps []*Policy) func(kind string, ref Ref) bool {
	var queue []targetKey
	for _, p := range ps {
		for _, t := range p.Targets {
			queue = append(queue, targetKey{p.Kind, p.Ref.Namespace, t.Kind, t.Name})
		}
	}
	out := map[key]bool{}
	for _, p := range ps {
		out[key{p.Kind, p.Ref}] = true
	}
	var gateways []targetKey
	for _, q := range w.relatedTo(queue, Write{}) {
		out[key{q.Kind, q.Ref}] = true
		for _, t := range q.Targets {
			if !routeKind(t.Kind) {
				continue
			}
			for _, i := range w.Graph.PathsFor(topology.Target{Kind: t.Kind, Namespace: q.Ref.Namespace, Name: t.Name}) {
				gw := w.Graph.Paths[i].Gateway
				gateways = append(gateways, targetKey{q.Kind, gw.Namespace, "Gateway", gw.Name})
			}
		}
	}
	for _, q := range w.relatedTo(gateways, Write{}) {
		out[key{q.Kind, q.Ref}] = true
	}
	return func(kind string, ref Ref) bool { return out[key{kind, ref}] }
}
