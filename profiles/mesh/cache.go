package mesh

import (
	"sync/atomic"

	"github.com/benbjohnson/immutable"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/source"
	engine "github.com/precedent-dev/precedent/profiles/mesh/engine"
)

// The mesh profile's derived caches (source.Derivation): Kuma's Dataplanes and the policies of each
// mesh kind, parsed and grouped by mesh, each brought forward per event (grouping.go); and per
// (kind, mesh) the index of that mesh's policies and Dataplanes (mesh.Index), so that reviewing a
// write costs what the write changes, not what the mesh holds. An event of another mesh leaves an
// index as it is; an event of its own mesh, a MeshService's included, is applied by the index's
// copy-on-write updates (meshIndex.next).

// Precedent's own mesh kinds, and Kuma's Dataplanes, which the profile reads.
var (
	MeshTimeoutKind    = schema.GroupKind{Group: policy.Group, Kind: engine.KindMeshTimeout}
	MeshPermissionKind = schema.GroupKind{Group: policy.Group, Kind: engine.KindMeshTrafficPermission}
	DataplaneKind      = schema.GroupKind{Group: engine.KumaGroup, Kind: engine.KindDataplane}
	MeshServiceKind    = schema.GroupKind{Group: engine.KumaGroup, Kind: engine.KindMeshService}
)

// Mesh membership, as Kuma writes it: a Dataplane's top-level `mesh` field and a policy's label.
const (
	meshLabel   = "kuma.io/mesh"
	defaultMesh = "default"
)

// PolicyMesh is the mesh a policy belongs to: its kuma.io/mesh label, default "default".
func PolicyMesh(u *unstructured.Unstructured) string {
	if m := u.GetLabels()[meshLabel]; m != "" {
		return m
	}
	return defaultMesh
}

// dataplaneMesh is the mesh a Dataplane belongs to: its `mesh` field, default "default".
func dataplaneMesh(u *unstructured.Unstructured) string {
	if m, ok := u.Object["mesh"].(string); ok && m != "" {
		return m
	}
	return defaultMesh
}

// Index returns the index of the policies of mesh kind gk and the Dataplanes of mesh meshName, as
// Kuma version v behaves (mesh.Index: Dataplanes by the tags, names and labels policies select,
// shadowing kept per group of proxies; a Dataplane that v's validator refuses is not in it). One
// index per version, so that a kind line's version takes effect on the next write. The index is
// shared: read it only.
//
// The policies' to items that name MeshServices by labels are resolved against Kuma's MeshServices
// of the mesh (engine.ResolveServices). The index keeps the mesh's MeshServices and those policies
// beside it (meshIndex), so that a MeshService event, and an event of a policy with such items, step
// it like the others: the policies whose resolution the event changes are resolved again and put in
// the index (WithPolicy) while the event is applied, and no admission builds it.
func Index(st source.Source, gk schema.GroupKind, meshName string, v engine.Version) *engine.Index {
	return st.Derive(source.Derivation{Key: "mesh/index/" + gk.String() + "/" + meshName + "@" + string(v), Kinds: []schema.GroupKind{gk, DataplaneKind, MeshServiceKind},
		Build: func() any {
			indexBuilds.Add(1)
			return buildIndex(st, gk, meshName, v)
		},
		Next: func(prev any, e source.Event) any {
			if n := prev.(*meshIndex).next(meshName, v, e); n != nil {
				return n
			}
			return nil // an untyped nil: build whole
		},
	}).(*meshIndex).x
}

// indexBuilds counts the whole builds of mesh indexes, for the tests that show an event steps the
// index instead (export_test.go).
var indexBuilds atomic.Int64

// meshIndex is the derived value of Index: the index of one mesh, with what its policies' label-only
// MeshService items were resolved against (the mesh's MeshServices that parse, by key) and those
// policies as resolved (byLabels, by ID), for the MeshService and policy events to step it.
type meshIndex struct {
	x        *engine.Index
	services *objects[engine.ServiceObject]
	byLabels *objects[engine.Policy]
}

// buildIndex builds the meshIndex of the policies of kind gk and the Dataplanes of mesh meshName
// whole.
func buildIndex(st source.Source, gk schema.GroupKind, meshName string, v engine.Version) *meshIndex {
	m := &meshIndex{services: services(st)[meshName], byLabels: immutable.NewSortedMap[string, engine.Policy](nil)}
	if m.services == nil {
		m.services = immutable.NewSortedMap[string, engine.ServiceObject](nil)
	}
	pols := engine.ResolveServices(policyGrouping.list(policies(st, gk), meshName), m.serviceList())
	for i := range pols {
		if pols[i].NamesServicesByLabels() {
			m.byLabels = m.byLabels.Set(pols[i].ID(), pols[i])
		}
	}
	m.x = engine.NewIndexAt(v, gk.Kind+"."+gk.Group, pols, shaped(dataplaneGrouping.list(dataplanes(st), meshName), v))
	return m
}

// serviceList lists the mesh's MeshServices, by key.
func (m *meshIndex) serviceList() []engine.ServiceObject {
	return serviceGrouping.list(byMesh[engine.ServiceObject]{"": m.services}, "")
}

// shaped keeps the Dataplanes that Kuma version v's validator accepts (Dataplane.CheckShape): Kuma
// refuses the others, so they select nothing.
func shaped(dps []engine.Dataplane, v engine.Version) []engine.Dataplane {
	out := make([]engine.Dataplane, 0, len(dps))
	for i := range dps {
		if dps[i].CheckShape(v) == nil {
			out = append(out, dps[i])
		}
	}
	return out
}

// next brings the index m of mesh meshName (of version v) forward with event e: an event of another
// mesh leaves it as it is; one of its own mesh is applied by the index's copy-on-write updates
// (WithDataplane, WithPolicy), sharing the rest. It returns nil when it cannot (an object that is
// not unstructured): the index is built whole.
func (m *meshIndex) next(meshName string, v engine.Version, e source.Event) *meshIndex {
	meshOf := PolicyMesh
	if e.GroupKind == DataplaneKind {
		meshOf = dataplaneMesh
	}
	if !inMesh(e.Object, meshOf, meshName) && !inMesh(e.Old, meshOf, meshName) {
		return m
	}
	u, isObj := e.Object.(*unstructured.Unstructured)
	if !isObj {
		return nil
	}
	// The object as the index of meshName holds it: nil when deleted, moved to another mesh, or
	// no longer parsing (a build leaves those out too).
	keep := !e.Deleted && meshOf(u) == meshName
	n := *m
	switch e.GroupKind {
	case DataplaneKind:
		var dp *engine.Dataplane
		if d, parsed := dataplaneGrouping.parse(u); keep && parsed && d.CheckShape(v) == nil {
			dp = &d
		}
		n.x = m.x.WithDataplane(dataplaneGrouping.objKey(u), dp)
	case MeshServiceKind:
		n.withService(serviceGrouping.objKey(u), u, keep)
	default:
		var p *engine.Policy
		if q, parsed := policyGrouping.parse(u); keep && parsed {
			p = &q
		}
		n.withPolicy(policyGrouping.objKey(u), p)
	}
	return &n
}

// withPolicy makes p (nil: none) the policy id of m, a meshIndex being stepped: its label-only
// MeshService items resolved against the mesh's MeshServices, as a build resolves them.
func (m *meshIndex) withPolicy(id string, p *engine.Policy) {
	m.byLabels = m.byLabels.Delete(id)
	if p != nil && p.NamesServicesByLabels() {
		resolved := engine.ResolveServices([]engine.Policy{*p}, m.serviceList())[0]
		p = &resolved
		m.byLabels = m.byLabels.Set(id, resolved)
	}
	m.x = m.x.WithPolicy(id, p)
}

// withService makes the MeshService key of m, a meshIndex being stepped, the one u holds when keep
// (and u parses), else none; then resolves again the policies whose label-only items select it
// before or after (engine.Policy.SelectsByLabels), the others' resolutions being unchanged.
func (m *meshIndex) withService(key string, u *unstructured.Unstructured, keep bool) {
	var touched []*engine.ServiceObject
	if old, ok := m.services.Get(key); ok {
		touched = append(touched, &old)
		m.services = m.services.Delete(key)
	}
	if s, parsed := serviceGrouping.parse(u); keep && parsed {
		touched = append(touched, &s)
		m.services = m.services.Set(key, s)
	}
	var again []engine.Policy
	for it := m.byLabels.Iterator(); !it.Done(); {
		_, p, _ := it.Next()
		for _, s := range touched {
			if p.SelectsByLabels(s) {
				again = append(again, p)
				break
			}
		}
	}
	for i := range again {
		m.withPolicy(again[i].ID(), &again[i])
	}
}

// inMesh reports whether o is an object of mesh meshName (false for nil).
func inMesh(o interface{}, meshOf func(*unstructured.Unstructured) string, meshName string) bool {
	u, ok := o.(*unstructured.Unstructured)
	return ok && u != nil && meshOf(u) == meshName
}

// dataplanes returns the Dataplanes that parse, by mesh.
func dataplanes(st source.Source) byMesh[engine.Dataplane] {
	return dataplaneGrouping.derive(st, "mesh/dataplanes", DataplaneKind)
}

// services returns Kuma's MeshServices that parse, by mesh.
func services(st source.Source) byMesh[engine.ServiceObject] {
	return serviceGrouping.derive(st, "mesh/meshservices", MeshServiceKind)
}

var serviceGrouping = grouping[engine.ServiceObject]{meshOf: PolicyMesh,
	key:    func(s *engine.ServiceObject) string { return s.Namespace + "/" + s.Name },
	objKey: func(u *unstructured.Unstructured) string { return u.GetNamespace() + "/" + u.GetName() },
	parse: func(u *unstructured.Unstructured) (engine.ServiceObject, bool) {
		s, err := engine.ParseMeshService(u)
		return s, err == nil
	},
}

// policies returns the policies of mesh kind gk that parse, by mesh.
func policies(st source.Source, gk schema.GroupKind) byMesh[engine.Policy] {
	return policyGrouping.derive(st, "mesh/policies/"+gk.String(), gk)
}

var dataplaneGrouping = grouping[engine.Dataplane]{meshOf: dataplaneMesh,
	key:    func(d *engine.Dataplane) string { return d.Namespace + "/" + d.Name },
	objKey: func(u *unstructured.Unstructured) string { return u.GetNamespace() + "/" + u.GetName() },
	parse: func(u *unstructured.Unstructured) (engine.Dataplane, bool) {
		dp, err := engine.ParseDataplane(u)
		return dp, err == nil
	},
}

var policyGrouping = grouping[engine.Policy]{meshOf: PolicyMesh, key: (*engine.Policy).ID,
	objKey: func(u *unstructured.Unstructured) string {
		return (&engine.Policy{Namespace: u.GetNamespace(), Name: u.GetName()}).ID()
	},
	parse: func(u *unstructured.Unstructured) (engine.Policy, bool) {
		p, errs := engine.Parse(u)
		return p, len(errs) == 0
	},
}
