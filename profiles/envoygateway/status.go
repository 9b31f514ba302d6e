package envoygateway

import (
	"fmt"
	"slices"
	"sort"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/profile"
	"github.com/precedent-dev/precedent/internal/topology"
	engine "github.com/precedent-dev/precedent/profiles/envoygateway/engine"
)

// AncestorStatus is what Envoy Gateway writes, as Precedent predicts it, in one entry of a policy's
// status.ancestors: the Accepted condition and, when they apply, the Overridden condition (a
// narrower scope beneath this policy's has a policy not merged into it, as Envoy Gateway draws it
// per scope: markOverridden) and the Merged condition (this route policy is merged with a broader
// one).
type AncestorStatus struct {
	// Ancestor is "Gateway ns/name", with "#section" when the ancestorRef names a listener.
	Ancestor string
	// Accepted is zero on an ancestor where Envoy Gateway writes only Merged conditions (a route
	// policy merged on a listener: the ancestor names the listener).
	Accepted   profile.Condition
	Overridden bool
	// MergedWith is the broader policy this route policy is merged with; Merges says that route
	// policies are merged with this one. Both are written on the listener's ancestor.
	MergedWith string
	Merges     bool
}

// AnyAncestor stands for every ancestor when the policy is refused before its targets are read.
const AnyAncestor = "*"

// Ancestors predicts the status.ancestors entries Envoy Gateway writes for a policy, sorted by
// ancestor. The ancestors of a Gateway or listener target are the Gateway (with the listener's
// sectionName); those of a route or rule target are the route's parentRefs
// (internal/gatewayapi/helpers.go getAncestorRefForPolicy; securitypolicy.go processSecurityPolicyForRoute).
func (Profile) Ancestors(in *profile.Offline, k policy.Kind, ref policy.Ref) ([]AncestorStatus, error) {
	u := findPolicy(in.Objects, k, ref)
	if u == nil {
		return nil, fmt.Errorf("%s.%s %s not found", k.GVK.Kind, k.GVK.Group, ref)
	}
	p, pr, snap, msg, refused := projectPolicy(in, u)
	if refused {
		return refusal(msg), nil
	}
	served := servedBy(in.Graph, profile.ControllersOf(profile.KindsOf(Name, in.Registry)))
	as := &ancestorStatuses{parents: routeParents(in.Objects, served), by: map[string]*AncestorStatus{}}
	as.markNoSection(p, pr.Resolution.NoSection)
	as.markScopes(pr)
	merged := map[engine.Scope]map[engine.Scope]bool{}
	for _, r := range pr.After {
		if r.Holder == p {
			as.markHeld(r)
			continue
		}
		if r.Holder != nil {
			as.markMerges(p, r, merged)
		}
	}
	as.markOverridden(pr, heldWith(snap.Held(p.Kind), pr.Resolution.Scopes), in.Graph, merged)
	return as.sorted(), nil
}

// findPolicy is the object of kind k named ref among objs, nil when there is none.
func findPolicy(objs []*unstructured.Unstructured, k policy.Kind, ref policy.Ref) *unstructured.Unstructured {
	for _, o := range objs {
		if o.GroupVersionKind().GroupKind() == k.GVK.GroupKind() && o.GetNamespace() == ref.Namespace && o.GetName() == ref.Name {
			return o
		}
	}
	return nil
}

// refusal is the status of a policy refused before its targets are read: one Invalid entry for
// every ancestor.
func refusal(msg string) []AncestorStatus {
	return []AncestorStatus{{Ancestor: AnyAncestor, Accepted: profile.Condition{Status: "False", Reason: "Invalid", Message: msg}}}
}

// projectPolicy reads the policy u and projects its write onto the offline world; refused says
// that Envoy Gateway refuses it outright (unreadable, statelessly invalid, or a bad GeoIP
// detection), msg says why.
func projectPolicy(in *profile.Offline, u *unstructured.Unstructured) (p *engine.Policy, pr engine.Projection, snap *engine.Snapshot, msg string, refused bool) {
	p, errs := engine.Read(u)
	if len(errs) > 0 {
		return p, pr, nil, errs.ToAggregate().Error(), true
	}
	if errs := append(engine.Stateless(p), invalid(p, in.Graph)...); len(errs) > 0 {
		return p, pr, nil, errs.ToAggregate().Error(), true
	}
	snap = offlineWorld(in, u).snap
	pr = snap.Project(engine.Write{New: p})
	if errs := snap.GeoIPDetection(pr); len(errs) > 0 {
		return p, pr, snap, errs.ToAggregate().Error(), true
	}
	return p, pr, snap, "", false
}

// ancestorStatuses collects the status.ancestors entries of one policy by ancestor name.
type ancestorStatuses struct {
	// parents are the routes' parentRefs (routeParents).
	parents map[string][]parentRef
	by      map[string]*AncestorStatus
}

// get is the entry of ancestor a, created empty on first use.
func (as *ancestorStatuses) get(a string) *AncestorStatus {
	if as.by[a] == nil {
		as.by[a] = &AncestorStatus{Ancestor: a}
	}
	return as.by[a]
}

// of names the ancestors of a scope: a Gateway or ListenerSet (with its section) is its own
// ancestor; a route's are its parentRefs, only those on Gateway gw when gw is not nil.
func (as *ancestorStatuses) of(sc engine.Scope, gw *topology.Key) []string {
	switch sc.Kind {
	case "Gateway", "ListenerSet":
		a := sc.Kind + " " + sc.Namespace + "/" + sc.Name
		if sc.Section != "" {
			a += "#" + sc.Section
		}
		return []string{a}
	}
	var out []string
	for _, pa := range as.parents[sc.Kind+" "+sc.Namespace+"/"+sc.Name] {
		if gw == nil || pa.key == *gw {
			out = append(out, pa.ancestor)
		}
	}
	return out
}

// listenerAncestor names the listener of a path as an ancestor ("Gateway ns/name#listener", or
// the ListenerSet's when the listener belongs to one).
func listenerAncestor(pa engine.Path) string {
	if pa.ListenerSet.Name != "" {
		return "ListenerSet " + pa.ListenerSet.String() + "#" + pa.Listener
	}
	return "Gateway " + pa.Gateway.String() + "#" + pa.Listener
}

// markNoSection marks TargetNotFound on the ancestors of targetRefs whose object exists without
// the sectionName they name (a route's section is dropped: its ancestors are its parentRefs).
func (as *ancestorStatuses) markNoSection(p *engine.Policy, targets []engine.TargetRef) {
	for _, t := range targets {
		sc := engine.Scope{Kind: t.Kind, Namespace: p.Ref.Namespace, Name: t.Name, Section: t.Section}
		if t.Kind != "Gateway" && t.Kind != "ListenerSet" {
			sc.Section = ""
		}
		for _, a := range as.of(sc, nil) {
			as.get(a).Accepted = profile.Condition{Status: "False", Reason: "TargetNotFound", Message: engine.MissingTarget(p.Ref.Namespace, t, true)}
		}
	}
}

// markScopes marks each ancestor of the policy's scopes Accepted, or Conflicted where an older
// policy holds the scope and the ancestor is not already held through another scope.
func (as *ancestorStatuses) markScopes(pr engine.Projection) {
	conflicted := map[engine.Scope]*engine.Policy{}
	for _, c := range pr.Conflicts {
		conflicted[c.Scope] = c.Policy
	}
	held := map[string]bool{}
	for _, sc := range pr.Resolution.Scopes {
		for _, a := range as.of(sc, nil) {
			st := as.get(a)
			if by := conflicted[sc]; by != nil && !held[a] {
				st.Accepted = profile.Condition{Status: "False", Reason: "Conflicted", Message: fmt.Sprintf("%s holds %s", by.Ref, sc)}
				continue
			}
			held[a] = true
			st.Accepted = profile.Condition{Status: "True", Reason: "Accepted", Message: "Policy has been accepted"}
		}
	}
}

// markHeld records a result the policy holds: Invalid on its ancestors when the effective policy
// fails its checks, otherwise the broader policy it is merged with, on the listener's ancestor.
func (as *ancestorStatuses) markHeld(r engine.Result) {
	msgs := engine.Check(r)
	if len(msgs) > 0 {
		for _, a := range as.of(r.Scope, &r.Path.Gateway) {
			as.get(a).Accepted = profile.Condition{Status: "False", Reason: "Invalid", Message: msgs.ToAggregate().Error()}
		}
	}
	if r.Parent != nil && len(msgs) == 0 {
		as.get(listenerAncestor(r.Path)).MergedWith = r.Parent.Ref.String()
	}
}

// markMerges records a result another policy holds that merges into p (Merges, on the ancestors
// of the scope p holds there) and the route merged, by p's scope, in merged. A merged result that
// fails the checks is not merged: the route policy is Invalid there and p Overridden
// (backendtrafficpolicy.go processBackendTrafficPolicyForRoute records the merge only when it
// succeeds).
func (as *ancestorStatuses) markMerges(p *engine.Policy, r engine.Result, merged map[engine.Scope]map[engine.Scope]bool) {
	if r.Parent != p || len(engine.Check(r)) > 0 {
		return
	}
	for _, a := range as.of(r.ParentScope, &r.Path.Gateway) {
		as.get(a).Merges = true
	}
	insert(merged, r.ParentScope, whole(r.Scope))
}

// markOverridden marks Overridden on the ancestors of each scope of the policy it holds where
// Envoy Gateway writes that condition: a route policy when a policy targets one of the route's
// rules (helpers.go getOverriddenTargetsMessageForRoute); a ClientTrafficPolicy on a whole Gateway
// or ListenerSet when a narrower one claims one of its listeners (ctpOverridden); any other
// policy when a scope beneath it has a policy not merged into it (scopeGraph).
func (as *ancestorStatuses) markOverridden(pr engine.Projection, held []engine.Scope, g *topology.Graph, merged map[engine.Scope]map[engine.Scope]bool) {
	conflicted := map[engine.Scope]bool{}
	for _, c := range pr.Conflicts {
		conflicted[c.Scope] = true
	}
	var sg *scopeGraph
	for _, sc := range pr.Resolution.Scopes {
		if conflicted[sc] || sc.Level() == engine.LevelRule {
			continue
		}
		var over bool
		switch {
		case sc.Level() == engine.LevelRoute:
			over = ruleHeld(sc, held)
		case pr.Kind == engine.ClientTrafficPolicy:
			over = ctpOverridden(sc, held, g)
		default:
			if sg == nil {
				sg = newScopeGraph(held, as.parents, g)
			}
			over = sg.overridden(sc, merged[sc])
		}
		for _, a := range as.of(sc, nil) {
			as.get(a).Overridden = as.get(a).Overridden || over
		}
	}
}

// heldWith is held with the scopes of the projected policy added.
func heldWith(held, mine []engine.Scope) []engine.Scope {
	out := append([]engine.Scope(nil), held...)
	for _, sc := range mine {
		if !slices.Contains(out, sc) {
			out = append(out, sc)
		}
	}
	return out
}

// ruleHeld reports whether a policy targets a rule of route scope sc.
func ruleHeld(sc engine.Scope, held []engine.Scope) bool {
	for _, h := range held {
		if h.Section != "" && whole(h) == sc {
			return true
		}
	}
	return false
}

// ctpOverridden is clienttrafficpolicy.go ProcessClientTrafficPolicies for a policy on a whole
// ListenerSet or Gateway: Overridden when a policy claims one of its listeners first (one on a
// listener; for a Gateway, also one on a whole ListenerSet attached to it, processed before it).
func ctpOverridden(sc engine.Scope, held []engine.Scope, g *topology.Graph) bool {
	if sc.Section != "" {
		return false
	}
	for _, h := range held {
		switch {
		case h == sc:
		case h.Kind == sc.Kind && h.Namespace == sc.Namespace && h.Name == sc.Name:
			return true
		case sc.Kind == "Gateway" && h.Kind == "ListenerSet" && g != nil:
			if _, gw, ok := g.AttachedListenerSet(topology.Key{Namespace: h.Namespace, Name: h.Name}); ok && gw == (topology.Key{Namespace: sc.Namespace, Name: sc.Name}) {
				return true
			}
		}
	}
	return false
}

// sorted is the entries, sorted by ancestor.
func (as *ancestorStatuses) sorted() []AncestorStatus {
	out := make([]AncestorStatus, 0, len(as.by))
	for _, st := range as.by {
		out = append(out, *st)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Ancestor < out[j].Ancestor })
	return out
}

type parentRef struct {
	key           topology.Key
	kind, section string
	ancestor      string
}

// servedBy reports whether a parentRef's Gateway (kind Gateway) or ListenerSet's Gateway is of a
// GatewayClass one of controllers serves (topology.Graph.Serves): Envoy Gateway translates only the
// Gateways of its own classes (translator.go, "Skipping Gateway because GatewayClassName doesn't
// match"), so a route policy has no ancestor on the others.
func servedBy(g *topology.Graph, controllers []string) func(kind string, k topology.Key) bool {
	return func(kind string, k topology.Key) bool {
		if g == nil {
			return true
		}
		if kind == "ListenerSet" {
			_, parent, ok := g.AttachedListenerSet(k)
			if !ok {
				return true
			}
			k = parent
		}
		gw, ok := g.Gateway(k)
		return !ok || g.Serves(string(gw.Spec.GatewayClassName), controllers)
	}
}

// routeParents maps "Kind ns/name" of each route to its parentRefs on Gateways served (served), as
// Envoy Gateway names them in a route policy's ancestorRefs.
func routeParents(objs []*unstructured.Unstructured, served func(kind string, k topology.Key) bool) map[string][]parentRef {
	out := map[string][]parentRef{}
	for _, u := range objs {
		if u.GroupVersionKind().Group != topology.Group {
			continue
		}
		refs, _, _ := unstructured.NestedSlice(u.Object, "spec", "parentRefs")
		for _, raw := range refs {
			m, _ := raw.(map[string]interface{})
			a, key := AncestorName(m, u.GetNamespace())
			if kind, _ := m["kind"].(string); !served(kind, key) {
				continue
			}
			kind, _ := m["kind"].(string)
			if kind == "" {
				kind = "Gateway"
			}
			section, _ := m["sectionName"].(string)
			k := u.GetKind() + " " + u.GetNamespace() + "/" + u.GetName()
			out[k] = append(out[k], parentRef{key: key, kind: kind, section: section, ancestor: a})
		}
	}
	return out
}

// AncestorName names a parentRef or ancestorRef as AncestorStatus.Ancestor does ("Gateway ns/name"
// with "#section"), the namespace defaulting to ns; key is the parent's namespace and name.
func AncestorName(ref map[string]interface{}, ns string) (name string, key topology.Key) {
	kind, _ := ref["kind"].(string)
	if kind == "" {
		kind = "Gateway"
	}
	key.Namespace, _ = ref["namespace"].(string)
	if key.Namespace == "" {
		key.Namespace = ns
	}
	key.Name, _ = ref["name"].(string)
	name = kind + " " + key.String()
	if s, _ := ref["sectionName"].(string); s != "" {
		name += "#" + s
	}
	return name, key
}
