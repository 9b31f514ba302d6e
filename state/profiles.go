package state

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/precedent-dev/precedent/mesh"
	"github.com/precedent-dev/precedent/policy"
)

// Kinds the access and mesh profiles read besides their policies.
var (
	MeshTimeoutKind    = schema.GroupKind{Group: policy.Group, Kind: mesh.KindMeshTimeout}
	MeshPermissionKind = schema.GroupKind{Group: policy.Group, Kind: mesh.KindMeshTrafficPermission}
	DataplaneKind      = schema.GroupKind{Group: "kuma.io", Kind: mesh.KindDataplane}
)

// Mesh membership, as Kuma writes it: a Dataplane's top-level `mesh` field and a policy's label.
const (
	meshLabel   = "kuma.io/mesh"
	defaultMesh = "default"
)

// profiles is the part of State the access and mesh write paths read, guarded by State.mu. The
// policies themselves live in State.policies, keyed by kind like the managed kinds'.
type profiles struct {
	mapper     meta.RESTMapper  // WatchProfiles'
	backendGK  schema.GroupKind // the Backend kind watched; zero when its CRD is not installed
	backends   map[types.NamespacedName]bool
	dataplanes map[types.NamespacedName]storedDataplane
	dpGen      uint64

	meshPols map[schema.GroupKind]*byMesh[mesh.Policy]
	meshDPs  *byMesh[mesh.Dataplane]
	meshIdx  map[meshIndexKey]*builtIndex
}

type storedDataplane struct {
	mesh string
	dp   mesh.Dataplane
}

// byMesh groups parsed objects by mesh name, with the generation they were built from.
type byMesh[T any] struct {
	gen   uint64
	items map[string][]T
}

func newProfiles() profiles {
	return profiles{
		backends:   map[types.NamespacedName]bool{},
		dataplanes: map[types.NamespacedName]storedDataplane{},
		meshPols:   map[schema.GroupKind]*byMesh[mesh.Policy]{},
		meshIdx:    map[meshIndexKey]*builtIndex{},
	}
}

// WatchProfiles registers event handlers for what the access and mesh write paths read: the
// policies of the kinds own (the kinds the webhook's families manage by themselves: AccessPolicies,
// XAccessPolicies, MeshTimeouts, MeshTrafficPermissions), the objects of backend (the configured
// Backend kind, metadata only) and the Dataplanes (kuma.io). A kind whose CRD is not installed is
// skipped (and logged); versions come from the mapper, so any served version works. Call it before
// the cache starts.
func (s *State) WatchProfiles(ctx context.Context, c cache.Informers, mapper meta.RESTMapper, own []schema.GroupKind, backend schema.GroupKind) error {
	s.mu.Lock()
	s.mapper = mapper // for the kinds profiles read from their first use (WatchRead)
	s.mu.Unlock()
	for _, gk := range own {
		gvk, ok, err := s.installed(mapper, gk)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		gk := gk
		s.mu.Lock()
		s.policies[gk] = map[types.NamespacedName]*unstructured.Unstructured{}
		s.mu.Unlock()
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(gvk)
		set := func(o client.Object) { s.policies[gk][key(o)] = o.(*unstructured.Unstructured) }
		del := func(n types.NamespacedName) { delete(s.policies[gk], n) }
		bump := func() { s.policyGen[gk]++; s.kickBuild() } // the derived caches follow, or the background builder
		if err := s.watch(ctx, c, u, gk, set, del, bump, nil); err != nil {
			return err
		}
	}
	if gvk, ok, err := s.installed(mapper, backend); err != nil {
		return err
	} else if ok {
		m := &metav1.PartialObjectMetadata{}
		m.SetGroupVersionKind(gvk)
		set := func(o client.Object) { s.backends[key(o)] = true }
		del := func(n types.NamespacedName) { delete(s.backends, n) }
		bump := func() { s.policyGen[backend]++ }
		if err := s.watch(ctx, c, m, backend, set, del, bump, nil); err != nil {
			return err
		}
		s.mu.Lock()
		s.backendGK = backend
		s.mu.Unlock()
	}
	gvk, ok, err := s.installed(mapper, DataplaneKind)
	if err != nil || !ok {
		return err
	}
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(gvk)
	set := func(o client.Object) {
		u := o.(*unstructured.Unstructured)
		dp, err := mesh.ParseDataplane(u)
		if err != nil {
			s.log.Info("Dataplane left out of the mesh analysis", "dataplane", key(o), "error", err.Error())
			delete(s.dataplanes, key(o))
			return
		}
		s.dataplanes[key(o)] = storedDataplane{mesh: dataplaneMesh(u), dp: dp}
	}
	del := func(n types.NamespacedName) { delete(s.dataplanes, n) }
	bump := func() { s.dpGen++ }
	return s.watch(ctx, c, u, DataplaneKind, set, del, bump, nil)
}

// installed returns the served version of gk, or false (logged) when its CRD is not installed.
func (s *State) installed(mapper meta.RESTMapper, gk schema.GroupKind) (schema.GroupVersionKind, bool, error) {
	if gk.Kind == "" {
		return schema.GroupVersionKind{}, false, nil
	}
	m, err := mapper.RESTMapping(gk)
	switch {
	case meta.IsNoMatchError(err):
		s.log.Info("kind not installed: writes are checked without its objects", "kind", gk.String())
		return schema.GroupVersionKind{}, false, nil
	case err != nil:
		return schema.GroupVersionKind{}, false, fmt.Errorf("looking up %s: %w", gk, err)
	}
	return m.GroupVersionKind, true, nil
}

// GatewayExists reports whether the Gateway n is in the cache.
func (s *State) GatewayExists(n types.NamespacedName) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.gateways[n]
	return ok
}

// BackendExists reports whether the Backend n of kind gk exists, and whether that is known: it is
// only when gk is the Backend kind watched.
func (s *State) BackendExists(gk schema.GroupKind, n types.NamespacedName) (exists, known bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if gk != s.backendGK || gk.Kind == "" {
		return false, false
	}
	return s.backends[n], true
}

// MeshPolicies returns the stored policies of mesh kind gk in the mesh named meshName, sorted by
// namespace/name. Policies that do not parse are left out. The result is shared: read it only.
func (s *State) MeshPolicies(gk schema.GroupKind, meshName string) []mesh.Policy {
	s.mu.Lock()
	gen := s.policyGen[gk]
	if c := s.meshPols[gk]; c != nil && c.gen == gen {
		s.mu.Unlock()
		return c.items[meshName]
	}
	objs := s.policyObjects(gk)
	s.mu.Unlock()

	c := &byMesh[mesh.Policy]{gen: gen, items: map[string][]mesh.Policy{}} // without the lock, as AccessPolicies
	for _, u := range objs {
		if p, errs := mesh.Parse(u); len(errs) == 0 {
			name := PolicyMesh(u)
			c.items[name] = append(c.items[name], p)
		}
	}
	for _, l := range c.items {
		slices.SortFunc(l, func(a, b mesh.Policy) int { return strings.Compare(a.ID(), b.ID()) })
	}
	s.mu.Lock()
	if cur := s.meshPols[gk]; cur == nil || cur.gen <= gen {
		s.meshPols[gk] = c
	}
	s.mu.Unlock()
	return c.items[meshName]
}

// Dataplanes returns the Dataplanes of the mesh named meshName, sorted by namespace/name. The result
// is shared: read it only.
func (s *State) Dataplanes(meshName string) []mesh.Dataplane {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.dataplanesLocked(meshName)
}

// dataplanesLocked is Dataplanes with mu held.
func (s *State) dataplanesLocked(meshName string) []mesh.Dataplane {
	c := s.meshDPs
	if c == nil || c.gen != s.dpGen {
		c = &byMesh[mesh.Dataplane]{gen: s.dpGen, items: map[string][]mesh.Dataplane{}}
		for _, d := range s.dataplanes {
			c.items[d.mesh] = append(c.items[d.mesh], d.dp)
		}
		for _, l := range c.items {
			slices.SortFunc(l, func(a, b mesh.Dataplane) int {
				return strings.Compare(a.Namespace+"/"+a.Name, b.Namespace+"/"+b.Name)
			})
		}
		s.meshDPs = c
	}
	return c.items[meshName]
}

// dataplaneMesh is the mesh a Dataplane belongs to: its `mesh` field, default "default".
func dataplaneMesh(u *unstructured.Unstructured) string {
	if m, ok := u.Object["mesh"].(string); ok && m != "" {
		return m
	}
	return defaultMesh
}

// PolicyMesh is the mesh a policy belongs to: its kuma.io/mesh label, default "default".
func PolicyMesh(u *unstructured.Unstructured) string {
	if m := u.GetLabels()[meshLabel]; m != "" {
		return m
	}
	return defaultMesh
}

// meshIndexKey names the index of one mesh policy kind in one mesh.
type meshIndexKey struct {
	gk   schema.GroupKind
	mesh string
}

// builtIndex is a mesh index with the generations it was built from.
type builtIndex struct {
	x             *mesh.Index
	policyGen     uint64
	dataplanesGen uint64
}

// MeshIndex returns the index of the policies of mesh kind gk and the Dataplanes of mesh meshName
// (mesh.Index: Dataplanes by the tags, names and labels policies select, shadowing kept per group of
// proxies), so that reviewing a write costs what the write changes, not what the mesh holds. It is
// rebuilt after a change of either, by the background builder once changes settle (the indexes asked
// for before), or by the first request that finds it stale. The index is shared: read it only.
func (s *State) MeshIndex(gk schema.GroupKind, meshName string) *mesh.Index {
	k := meshIndexKey{gk, meshName}
	s.mu.Lock()
	pgen, dgen := s.policyGen[gk], s.dpGen
	if b := s.meshIdx[k]; b != nil && b.policyGen == pgen && b.dataplanesGen == dgen {
		s.mu.Unlock()
		return b.x
	}
	dps := s.dataplanesLocked(meshName)
	s.mu.Unlock()
	pols := s.MeshPolicies(gk, meshName)
	x := mesh.NewIndex(gk.Kind+"."+gk.Group, pols, dps) // without the lock: both lists are shared, read only
	s.mu.Lock()
	if cur := s.meshIdx[k]; cur == nil || (cur.policyGen <= pgen && cur.dataplanesGen <= dgen) {
		s.meshIdx[k] = &builtIndex{x: x, policyGen: pgen, dataplanesGen: dgen}
	}
	s.mu.Unlock()
	return x
}

// rebuildMeshIndexes brings the mesh indexes asked for before up to date (the background builder).
func (s *State) rebuildMeshIndexes() {
	s.mu.Lock()
	keys := make([]meshIndexKey, 0, len(s.meshIdx))
	for k := range s.meshIdx {
		keys = append(keys, k)
	}
	s.mu.Unlock()
	for _, k := range keys {
		s.MeshIndex(k.gk, k.mesh)
	}
}

// PrepareMeshIndexes builds the index of every mesh kind of gks that is watched for every mesh that
// has Dataplanes, so the first mesh write of a fresh replica does not build it (the mesh profile's
// Prepare).
func (s *State) PrepareMeshIndexes(gks []schema.GroupKind) {
	s.mu.Lock()
	meshes := map[string]bool{}
	for _, d := range s.dataplanes {
		meshes[d.mesh] = true
	}
	var watched []schema.GroupKind
	for _, gk := range gks {
		if _, ok := s.policies[gk]; ok {
			watched = append(watched, gk)
		}
	}
	s.mu.Unlock()
	for _, gk := range watched {
		for name := range meshes {
			s.MeshIndex(gk, name)
		}
	}
}
