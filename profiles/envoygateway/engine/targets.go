package engine

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/precedent-dev/precedent/internal/topology"
)

// Resolve computes where a policy's targets land (internal/gatewayapi/policy.go resolvePolicyTargets:
// targetRefs in the policy's namespace; targetSelectors by labels, other namespaces only with a
// ReferenceGrant).
func (s *Snapshot) Resolve(p *Policy) Resolution {
	var r Resolution
	seen := map[Scope]bool{}
	for _, t := range p.Targets {
		sc := Scope{Kind: t.Kind, Namespace: p.Ref.Namespace, Name: t.Name, Section: t.Section}
		if (t.Group != "" && t.Group != topology.Group) || !s.exists[sc] {
			if whole := (Scope{Kind: sc.Kind, Namespace: sc.Namespace, Name: sc.Name}); sc.Section != "" && (t.Group == "" || t.Group == topology.Group) && s.exists[whole] {
				r.NoSection = append(r.NoSection, t)
			} else {
				r.Missing = append(r.Missing, t)
			}
			continue
		}
		if !seen[sc] {
			seen[sc] = true
			r.Scopes = append(r.Scopes, sc)
		}
	}
	for _, sel := range p.Selectors {
		if sel.Group != topology.Group {
			continue
		}
		ls, err := metav1.LabelSelectorAsSelector(&sel.Labels)
		if err != nil {
			continue
		}
		var nsSel labels.Selector
		if sel.From == "Selector" && sel.NamespaceSelector != nil {
			if nsSel, err = metav1.LabelSelectorAsSelector(sel.NamespaceSelector); err != nil {
				continue
			}
		}
		for _, o := range s.objects[sel.Kind] {
			switch sel.From {
			case "All":
			case "Selector":
				if nsSel == nil || !nsSel.Matches(labels.Set(s.nsLabels[o.Key.Namespace])) {
					continue
				}
			default:
				if o.Key.Namespace != p.Ref.Namespace {
					continue
				}
			}
			if !ls.Matches(labels.Set(o.Labels)) {
				continue
			}
			sc := Scope{Kind: o.Kind, Namespace: o.Key.Namespace, Name: o.Key.Name}
			if !s.exists[sc] || seen[sc] {
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
	return r
}

func (s *Snapshot) granted(p *Policy, to Scope) bool {
	for _, g := range s.grants[to.Namespace] {
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
