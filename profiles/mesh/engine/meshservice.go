package engine

import (
	"fmt"
	"sort"
	"strconv"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// KindMeshService is the kind of Kuma's MeshService objects (apiVersion kuma.io/v1alpha1).
const KindMeshService = "MeshService"

// ServiceObject is what the engine reads of one of Kuma's MeshService objects: its identity, mesh,
// labels (a to item may select it by labels) and ports (a to item's sectionName names one).
type ServiceObject struct {
	Namespace string
	Name      string
	Mesh      string // the kuma.io/mesh label, "" for none (the default mesh)
	Labels    map[string]string
	Ports     []ServicePort
}

// ServicePort is one port of a MeshService: its number and its name, "" when unnamed.
type ServicePort struct {
	Name string
	Port int32
}

// SectionName is the name a targetRef's sectionName gives the port by, as Kuma's Port.GetName does
// (pkg/core/resources/apis/meshservice/api/v1alpha1/helpers.go): its name, else its number.
func (p ServicePort) SectionName() string {
	if p.Name != "" {
		return p.Name
	}
	return strconv.Itoa(int(p.Port))
}

// MeshName is the mesh the MeshService belongs to: its kuma.io/mesh label, else "default".
func (s *ServiceObject) MeshName() string { return meshOrDefault(s.Mesh) }

// ParseMeshService reads a MeshService's name, labels and spec.ports[] ({name?, port}). Malformed
// fields are errors naming the field.
func ParseMeshService(obj *unstructured.Unstructured) (ServiceObject, error) {
	s := ServiceObject{Namespace: obj.GetNamespace(), Name: obj.GetName(), Labels: obj.GetLabels()}
	s.Mesh = s.Labels[MeshLabel]
	if obj.GetKind() != KindMeshService {
		return s, fmt.Errorf("kind %q is not a MeshService", obj.GetKind())
	}
	if s.Name == "" {
		return s, fmt.Errorf("metadata.name: Required value")
	}
	raw, _, err := unstructured.NestedFieldNoCopy(obj.Object, "spec", "ports")
	if err != nil {
		return s, fmt.Errorf("spec.ports: %w", err)
	}
	list, ok := raw.([]interface{})
	if raw != nil && !ok {
		return s, fmt.Errorf("spec.ports: must be a list")
	}
	for i, item := range list {
		m, _ := item.(map[string]interface{})
		name, _ := m["name"].(string)
		port, ok := portNumber(m["port"])
		if !ok {
			return s, fmt.Errorf("spec.ports[%d].port: must be a port number", i)
		}
		s.Ports = append(s.Ports, ServicePort{Name: name, Port: port})
	}
	return s, nil
}

// portNumber reads a port number as YAML or JSON decodes it.
func portNumber(v interface{}) (int32, bool) {
	var n int64
	switch x := v.(type) {
	case int64:
		n = x
	case int:
		n = int64(x)
	case float64:
		n = int64(x)
		if float64(n) != x {
			return 0, false
		}
	default:
		return 0, false
	}
	if n < 1 || n > 65535 {
		return 0, false
	}
	return int32(n), true
}

// ResolveServices returns policies with the to items that name a MeshService only by labels
// resolved against services: each such item's Services lists the names of the MeshServices of the
// policy's mesh that carry all its labels, sorted, as Kuma's resolve.TargetRef queries them by labels
// (pkg/plugins/policies/core/rules/resolve/targetref.go, the same at v2.14.3 and on master; the
// reader is the mesh's). A policy without such items is returned as it is; the others are copied,
// so that policies shared by a cache are never changed.
func ResolveServices(policies []Policy, services []ServiceObject) []Policy {
	out := policies
	copied := false
	for i := range policies {
		to, changed := resolveItems(&policies[i], services)
		if !changed {
			continue
		}
		if !copied {
			out = append([]Policy(nil), policies...)
			copied = true
		}
		out[i].To = to
	}
	return out
}

// NamesServicesByLabels says whether the policy has a to item naming MeshServices only by labels
// (ResolveServices resolves it).
func (p *Policy) NamesServicesByLabels() bool {
	for j := range p.To {
		if r := &p.To[j].TargetRef; p.Kuma() && r.Kind == MeshService && r.Name == "" && len(r.Labels) > 0 {
			return true
		}
	}
	return false
}

// resolveItems returns the to items of p with their label-only MeshService refs resolved, and
// whether there were any (else p.To itself).
func resolveItems(p *Policy, services []ServiceObject) ([]Element, bool) {
	var to []Element
	for j := range p.To {
		r := &p.To[j].TargetRef
		if !p.Kuma() || r.Kind != MeshService || r.Name != "" || len(r.Labels) == 0 {
			continue
		}
		if to == nil {
			to = append([]Element(nil), p.To...)
		}
		to[j].TargetRef.Services = servicesByLabels(r.Labels, p.MeshName(), services)
	}
	return to, to != nil
}

// servicesByLabels lists the names of the MeshServices of mesh that carry all of labels, sorted
// (an empty, non-nil list when none does: resolved, to nothing).
func servicesByLabels(labels map[string]string, mesh string, services []ServiceObject) []string {
	out := []string{}
	for i := range services {
		s := &services[i]
		if s.MeshName() != mesh {
			continue
		}
		if carries(s.Labels, labels) && !contains(out, s.Name) {
			out = append(out, s.Name)
		}
	}
	sort.Strings(out)
	return out
}

// carries reports whether have has every label of want.
func carries(have, want map[string]string) bool {
	for k, v := range want {
		if got, ok := have[k]; !ok || got != v {
			return false
		}
	}
	return true
}

// SelectsByLabels says whether one of p's to items naming MeshServices only by labels selects the
// MeshService s: s is of p's mesh and carries all the item's labels (what ResolveServices lists).
// An event on a MeshService that no such item selects, before or after, leaves p's resolution as it
// is.
func (p *Policy) SelectsByLabels(s *ServiceObject) bool {
	if !p.Kuma() || s.MeshName() != p.MeshName() {
		return false
	}
	for j := range p.To {
		if r := &p.To[j].TargetRef; r.Kind == MeshService && r.Name == "" && len(r.Labels) > 0 && carries(s.Labels, r.Labels) {
			return true
		}
	}
	return false
}
