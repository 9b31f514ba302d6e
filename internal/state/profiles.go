package state

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// profiles is the part of State the profiles' write paths read besides the policies, guarded by
// State.mu: the Backends' names. The policies of the profiles' own kinds live in State.policies,
// keyed by kind like the managed kinds', and so do the kinds profiles read (WatchRead); the caches
// profiles derive from them are theirs (Derive).
type profiles struct {
	mapper    meta.RESTMapper  // WatchProfiles'
	backendGK schema.GroupKind // the Backend kind watched; zero when its CRD is not installed
	backends  map[types.NamespacedName]client.Object
}

func newProfiles() profiles {
	return profiles{backends: map[types.NamespacedName]client.Object{}}
}

// WatchProfiles registers event handlers for what the profiles' write paths read from the start: the
// policies of the kinds own (the kinds the profiles manage by themselves: profile.Profile.Own) and
// the objects of backend (the configured Backend kind, metadata only). A kind whose CRD is not
// installed is skipped (and logged); versions come from the mapper, so any served version works, and
// the kinds profiles read are watched from their first use with it (WatchRead). Call it before the
// cache starts.
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
		s.policies[gk] = make(map[types.NamespacedName]*unstructured.Unstructured, s.reserved[gk])
		s.mu.Unlock()
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(gvk)
		bump := func() { s.policyGen[gk]++; s.kickBuild() } // the derived caches follow, or the background builder
		if err := s.watch(ctx, c, u, gk, s.policyStore(gk), bump, nil); err != nil {
			return err
		}
	}
	if gvk, ok, err := s.installed(mapper, backend); err != nil {
		return err
	} else if ok {
		m := &metav1.PartialObjectMetadata{}
		m.SetGroupVersionKind(gvk)
		bump := func() { s.policyGen[backend]++ }
		if err := s.watch(ctx, c, m, backend, objectStore(s.backends), bump, nil); err != nil {
			return err
		}
		s.mu.Lock()
		s.backendGK = backend
		s.mu.Unlock()
	}
	return nil
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
	_, exists = s.backends[n]
	return exists, true
}
