package envoygateway

import (
	"fmt"
	"sort"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/profile"
	"github.com/precedent-dev/precedent/internal/topology"
	engine "github.com/precedent-dev/precedent/profiles/envoygateway/engine"
)

// AncestorStatus is what Envoy Gateway writes, as Precedent predicts it, in one entry of a policy's
// status.ancestors: the Accepted condition and, when they apply, the Overridden condition (a more
// specific policy replaces this one on some route or listener beneath the ancestor) and the Merged
// condition (this route policy is merged with a broader one).
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
	var u *unstructured.Unstructured
	for _, o := range in.Objects {
		if o.GroupVersionKind().GroupKind() == k.GVK.GroupKind() && o.GetNamespace() == ref.Namespace && o.GetName() == ref.Name {
			u = o
			break
		}
	}
	if u == nil {
		return nil, fmt.Errorf("%s.%s %s not found", k.GVK.Kind, k.GVK.Group, ref)
	}
	refuse := func(msg string) []AncestorStatus {
		return []AncestorStatus{{Ancestor: AnyAncestor, Accepted: profile.Condition{Status: "False", Reason: "Invalid", Message: msg}}}
	}
	p, errs := engine.Read(u)
	if len(errs) > 0 {
		return refuse(errs.ToAggregate().Error()), nil
	}
	if errs := append(engine.Stateless(p), invalid(p, in.Graph)...); len(errs) > 0 {
		return refuse(errs.ToAggregate().Error()), nil
	}
	snap := offlineWorld(in, u).snap
	pr := snap.Project(engine.Write{New: p})
	if errs := snap.GeoIPDetection(pr); len(errs) > 0 {
		return refuse(errs.ToAggregate().Error()), nil
	}
	parents := routeParents(in.Objects)
	of := func(sc engine.Scope, gw *topology.Key) []string {
		switch sc.Kind {
		case "Gateway", "ListenerSet":
			a := sc.Kind + " " + sc.Namespace + "/" + sc.Name
			if sc.Section != "" {
				a += "#" + sc.Section
			}
			return []string{a}
		}
		var out []string
		for _, pa := range parents[sc.Kind+" "+sc.Namespace+"/"+sc.Name] {
			if gw == nil || pa.key == *gw {
				out = append(out, pa.ancestor)
			}
		}
		return out
	}
	byAncestor := map[string]*AncestorStatus{}
	get := func(a string) *AncestorStatus {
		if byAncestor[a] == nil {
			byAncestor[a] = &AncestorStatus{Ancestor: a}
		}
		return byAncestor[a]
	}
	listenerOf := func(pa engine.Path) string {
		if pa.ListenerSet.Name != "" {
			return "ListenerSet " + pa.ListenerSet.String() + "#" + pa.Listener
		}
		return "Gateway " + pa.Gateway.String() + "#" + pa.Listener
	}
	for _, t := range pr.Resolution.NoSection {
		sc := engine.Scope{Kind: t.Kind, Namespace: p.Ref.Namespace, Name: t.Name, Section: t.Section}
		if t.Kind != "Gateway" && t.Kind != "ListenerSet" {
			sc.Section = ""
		}
		for _, a := range of(sc, nil) {
			get(a).Accepted = profile.Condition{Status: "False", Reason: "TargetNotFound", Message: engine.MissingTarget(p.Ref.Namespace, t, true)}
		}
	}
	conflicted := map[engine.Scope]*engine.Policy{}
	for _, c := range pr.Conflicts {
		conflicted[c.Scope] = c.Policy
	}
	held := map[string]bool{}
	for _, sc := range pr.Resolution.Scopes {
		for _, a := range of(sc, nil) {
			st := get(a)
			if by := conflicted[sc]; by != nil && !held[a] {
				st.Accepted = profile.Condition{Status: "False", Reason: "Conflicted", Message: fmt.Sprintf("%s holds %s", by.Ref, sc)}
				continue
			}
			held[a] = true
			st.Accepted = profile.Condition{Status: "True", Reason: "Accepted", Message: "Policy has been accepted"}
		}
	}
	for _, r := range pr.After {
		if r.Holder == p {
			msgs := engine.Check(r)
			if len(msgs) > 0 {
				for _, a := range of(r.Scope, &r.Path.Gateway) {
					get(a).Accepted = profile.Condition{Status: "False", Reason: "Invalid", Message: msgs.ToAggregate().Error()}
				}
			}
			if r.Parent != nil && len(msgs) == 0 {
				get(listenerOf(r.Path)).MergedWith = r.Parent.Ref.String()
			}
			continue
		}
		if r.Holder == nil {
			continue
		}
		if r.Parent == p {
			// An invalid merged result leaves the parent overridden on that route (the route
			// policy is marked Invalid and the merge is not recorded).
			for _, a := range of(r.ParentScope, &r.Path.Gateway) {
				if len(engine.Check(r)) > 0 {
					get(a).Overridden = true
				} else {
					get(a).Merges = true
				}
			}
		}
		for _, pl := range r.Replaced {
			if pl.Policy == p {
				for _, a := range of(pl.Scope, &r.Path.Gateway) {
					get(a).Overridden = true
				}
			}
		}
	}
	out := make([]AncestorStatus, 0, len(byAncestor))
	for _, st := range byAncestor {
		out = append(out, *st)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Ancestor < out[j].Ancestor })
	return out, nil
}

type parentRef struct {
	key      topology.Key
	ancestor string
}

// routeParents maps "Kind ns/name" of each route to its parentRefs, as Envoy Gateway names them in
// a route policy's ancestorRefs.
func routeParents(objs []*unstructured.Unstructured) map[string][]parentRef {
	out := map[string][]parentRef{}
	for _, u := range objs {
		if u.GroupVersionKind().Group != topology.Group {
			continue
		}
		refs, _, _ := unstructured.NestedSlice(u.Object, "spec", "parentRefs")
		for _, raw := range refs {
			m, _ := raw.(map[string]interface{})
			a, key := AncestorName(m, u.GetNamespace())
			k := u.GetKind() + " " + u.GetNamespace() + "/" + u.GetName()
			out[k] = append(out[k], parentRef{key: key, ancestor: a})
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
