package engine

import (
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/precedent-dev/precedent/internal/topology"
)

// Resolve computes where a policy's targets land (internal/gatewayapi/policy.go resolvePolicyTargets:
// targetRefs in the policy's namespace; targetSelectors by labels, other namespaces only with a
// ReferenceGrant).
func (s *Snapshot) Resolve(p *Policy) Resolution {
	var r Resolution
	for _, t := range p.Targets {
		s.resolveRef(p, t, &r)
	}
	if len(p.Selectors) == 0 {
		return r
	}
	seen := make(map[Scope]bool, len(r.Scopes)) // a selector may match many
	for _, sc := range r.Scopes {
		seen[sc] = true
	}
	for _, sel := range p.Selectors {
		s.resolveSelector(p, sel, &r, seen)
	}
	return r
}

// resolveRef adds where one targetRef lands to r: its scope (once), or NoSection when the object
// exists without the section named, or Missing.
func (s *Snapshot) resolveRef(p *Policy, t TargetRef, r *Resolution) {
	sc := Scope{Kind: t.Kind, Namespace: p.Ref.Namespace, Name: t.Name, Section: t.Section}
	if (t.Group != "" && t.Group != topology.Group) || !s.exists.get(sc) {
		if whole := (Scope{Kind: sc.Kind, Namespace: sc.Namespace, Name: sc.Name}); sc.Section != "" && (t.Group == "" || t.Group == topology.Group) && s.exists.get(whole) {
			r.NoSection = append(r.NoSection, t)
		} else {
			r.Missing = append(r.Missing, t)
		}
		return
	}
	if !slices.Contains(r.Scopes, sc) { // a policy's scopes are few: a map per policy cost a build more
		r.Scopes = append(r.Scopes, sc)
	}
}

// resolveSelector adds the objects one targetSelector matches to r: each scope once (by seen, which
// holds r's scopes), those of another namespace no ReferenceGrant lets the policy reach as Ignored.
// A selector of another group, or with labels that do not parse, matches nothing.
func (s *Snapshot) resolveSelector(p *Policy, sel Selector, r *Resolution, seen map[Scope]bool) {
	if sel.Group != topology.Group {
		return
	}
	ls, err := metav1.LabelSelectorAsSelector(&sel.Labels)
	if err != nil {
		return
	}
	var nsSel labels.Selector
	if sel.From == "Selector" && sel.NamespaceSelector != nil {
		if nsSel, err = metav1.LabelSelectorAsSelector(sel.NamespaceSelector); err != nil {
			return
		}
	}
	objs := s.objects[sel.Kind]
	if objs == nil {
		return
	}
	for it := objs.Iterator(); !it.Done(); {
		_, o, _ := it.Next()
		if !s.inNamespaces(p, sel, nsSel, o) || !ls.Matches(labels.Set(o.Labels)) {
			continue
		}
		sc := Scope{Kind: o.Kind, Namespace: o.Key.Namespace, Name: o.Key.Name}
		if !s.exists.get(sc) || seen[sc] {
			continue
		}
		if o.Key.Namespace != p.Ref.Namespace && !s.granted(p, sc) {
			r.Ignored = append(r.Ignored, sc)
			continue
		}
		seen[sc] = true
		r.Scopes = append(r.Scopes, sc)
	}
}

// inNamespaces says whether object o is in a namespace the selector's namespaces.from reaches: any
// for All, those nsSel matches for Selector (none without a namespaceSelector), otherwise the
// policy's own.
func (s *Snapshot) inNamespaces(p *Policy, sel Selector, nsSel labels.Selector, o Object) bool {
	switch sel.From {
	case "All":
		return true
	case "Selector":
		return nsSel != nil && nsSel.Matches(labels.Set(s.nsLabels.get(o.Key.Namespace)))
	default:
		return o.Key.Namespace == p.Ref.Namespace
	}
}

func (s *Snapshot) granted(p *Policy, to Scope) bool {
	for _, g := range s.grants.get(to.Namespace) {
		from := false
		for _, f := range g.From {
			if f.Group == Group && f.Kind == p.Kind && f.Namespace == p.Ref.Namespace {
				from = true
			}
		}
		if !from {
			continue
		}
		for _, t := range g.To {
			if t.Group == topology.Group && t.Kind == to.Kind && (t.Name == "" || t.Name == to.Name) {
				return true
			}
		}
	}
	return false
}
