package state

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/precedent-dev/precedent/cel"
	"github.com/precedent-dev/precedent/internal/effective"
	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/topology"
)

// State is what the validating handler reads: the Gateway API topology, the namespaces' labels,
// the policies of every managed kind and of the profiles' own kinds, the kinds profiles read, and
// the Backends' names, kept current by informer event handlers. Every event bumps a generation
// counter. The topology graph and the per-kind snapshots are built by the first request (or
// Prepare); from then on each event brings them forward itself (versions.go): it computes their
// next versions from the current ones, in time proportional to what it touches, and publishes them
// with the event, so a request reads the versions of every event applied when it came, without
// waiting for a build. The caches profiles derive from the state (Derive: the access grants, the
// mesh indexes) follow each event the same way where the profile says how (Derivation.Next), and
// are otherwise rebuilt by a background builder once a burst of changes settles, or by the first
// request that finds them stale. No request lists anything.
type State struct {
	log logr.Logger

	mu         sync.Mutex
	classes    map[string]*gwv1.GatewayClass
	gateways   map[types.NamespacedName]*gwv1.Gateway
	httpRoutes map[types.NamespacedName]*gwv1.HTTPRoute
	grpcRoutes map[types.NamespacedName]*gwv1.GRPCRoute
	// The optional topology kinds (versions.go), watched once their CRDs are installed.
	lsets     map[types.NamespacedName]*gwv1.ListenerSet
	tlsRoutes map[types.NamespacedName]*gwv1.TLSRoute
	tcpRoutes map[types.NamespacedName]*gwv1.TCPRoute
	udpRoutes map[types.NamespacedName]*gwv1.UDPRoute
	nsLabels  map[string]map[string]string
	// nsVersions are the Namespaces' resourceVersions (Caught).
	nsVersions map[string]string
	policies   map[schema.GroupKind]map[types.NamespacedName]*unstructured.Unstructured
	topoGen    uint64
	policyGen  map[schema.GroupKind]uint64

	graph    *topology.Graph
	graphGen uint64
	snaps    map[schema.GroupKind]*built
	// managed are the kinds the settings manage (Managed; nil until told: every kind is). Only
	// their snapshots are kept, hence rebuilt by the background builder.
	managed map[schema.GroupKind]bool
	evals   map[uint64]*cel.Evaluator
	// building serializes builds of the graph and the snapshots, which run without mu (build); kick
	// wakes the background builder after a change (builder).
	building sync.Mutex
	// nextGraph is the graph after the topology event being applied, once nextTopology computed it
	// (building held): the derived values' Next read it (Event.Graph).
	nextGraph *topology.Graph
	kick      chan struct{}
	// refolds are the folds to do again after policy events, by kind, and refold wakes the
	// refolder (refold.go).
	refolds map[schema.GroupKind]refoldJob
	refold  chan struct{}

	synced    []func() bool
	allSynced atomic.Bool // every func of synced has returned true (reset when one is added)
	prepared  atomic.Bool // Prepare has built the snapshots (a replica reports ready after it)
	// kinds are the policy kinds whose informers have event handlers, with their HasSynced. Those
	// watched from the start are in synced too; a kind managed later (a PrecedentConfig change) is
	// not, so readiness stays true while its informer lists, and only its own writes wait for it.
	kinds map[schema.GroupKind]func() bool
	// ctx and informers are Watch's, for the kinds watched later; watching serializes watchKinds
	// (a settings change and a write may both find a kind unwatched).
	ctx       context.Context
	informers cache.Informers
	watching  sync.Mutex
	missing   map[schema.GroupKind]bool // kinds found not installed (watching held)
	// topoMissing are the optional topology kinds not watched yet (not installed), by group/kind.
	topoMissing map[schema.GroupKind]optionalTopoKind
	// appliedCh is closed (and cleared) when the next event is applied: AwaitCaught waits on it.
	appliedCh chan struct{}
	// versions reads the resourceVersion of an object the state holds, by observedKind (the
	// informer's store's version), so other consumers of the same informers (the status reconciler)
	// can wait until the state has caught up with an event. It reads the stored objects themselves:
	// a map of every object's version beside them cost each event of the initial list a second
	// insert into a map as large as the cluster, under a key concatenated for it.
	versions map[string]func(types.NamespacedName) (string, bool)
	// appliedRV is the highest resourceVersion applied per kind (observedKind): an informer delivers
	// one kind's events in resourceVersion order, so an object the state does not hold whose version
	// is not above it was applied and since deleted; the state is past its event. Each informer's
	// handler holds its kind's counter.
	appliedRV map[string]*uint64

	profiles // what the profiles' write paths read besides policies (profiles.go)
	// derived are the caches profiles derive from the state (Derive), by key.
	derived map[string]*derived
	// foreground is set for a state that does no work in the background (NewForeground).
	foreground bool
	// reserved are the sizes of the lists to come by group/kind (Reserve), for the maps of
	// policies made when a kind is watched.
	reserved map[schema.GroupKind]int
}

// built is a snapshot with the generations it was built from, and the view of each policy object
// it holds (nil for one that does not read), for the next build to reuse.
type built struct {
	snap      *effective.Snapshot
	kind      policy.Kind
	graph     *topology.Graph
	policyGen uint64
	views     map[*unstructured.Unstructured]*policy.Policy
}

// serves reports whether b is the snapshot of kind k with cond over graph g and the policies of
// generation pgen (false for nil).
func (b *built) serves(k policy.Kind, cond *cel.Evaluator, g *topology.Graph, pgen uint64) bool {
	return b != nil && b.graph == g && b.policyGen == pgen && b.snap.Cond == cond && b.kind.Equal(k)
}

// New returns an empty state; Watch fills it.
func New(log logr.Logger) *State {
	return &State{
		log:         log,
		classes:     map[string]*gwv1.GatewayClass{},
		gateways:    map[types.NamespacedName]*gwv1.Gateway{},
		httpRoutes:  map[types.NamespacedName]*gwv1.HTTPRoute{},
		grpcRoutes:  map[types.NamespacedName]*gwv1.GRPCRoute{},
		lsets:       map[types.NamespacedName]*gwv1.ListenerSet{},
		tlsRoutes:   map[types.NamespacedName]*gwv1.TLSRoute{},
		tcpRoutes:   map[types.NamespacedName]*gwv1.TCPRoute{},
		udpRoutes:   map[types.NamespacedName]*gwv1.UDPRoute{},
		topoMissing: map[schema.GroupKind]optionalTopoKind{},
		nsLabels:    map[string]map[string]string{},
		nsVersions:  map[string]string{},
		policies:    map[schema.GroupKind]map[types.NamespacedName]*unstructured.Unstructured{},
		policyGen:   map[schema.GroupKind]uint64{},
		snaps:       map[schema.GroupKind]*built{},
		kinds:       map[schema.GroupKind]func() bool{},
		missing:     map[schema.GroupKind]bool{},
		evals:       map[uint64]*cel.Evaluator{},
		topoGen:     1,
		kick:        make(chan struct{}, 1),
		refold:      make(chan struct{}, 1),
		profiles:    newProfiles(),
		versions:    map[string]func(types.NamespacedName) (string, bool){},
		appliedRV:   map[string]*uint64{},
		derived:     map[string]*derived{},
	}
}

// NewForeground returns an empty state that does no work in the background: no builder, no
// refolder; what an event does not bring forward is built by the request that needs it. It is for a
// state fed in one go from memory (package memory), where no request waits on another and every
// fold ahead of time would be work for nothing.
func NewForeground(log logr.Logger) *State {
	s := New(log)
	s.foreground = true
	return s
}

// Watch registers event handlers on the cache's informers for the topology, the namespaces and the
// policy kinds. A policy kind whose CRD is not installed is skipped (and logged); WatchKinds tries
// it again (Register calls it every InstallRetry).
func (s *State) Watch(ctx context.Context, c cache.Informers, kinds []policy.Kind) error {
	s.mu.Lock()
	s.ctx, s.informers = ctx, c
	s.mu.Unlock()
	if !s.foreground {
		go s.builder(ctx)
		go s.refolder(ctx)
	}
	s.watching.Lock()
	for _, t := range s.topology() {
		if err := s.watchTopology(ctx, c, t, nil, true); err != nil {
			s.watching.Unlock()
			return err
		}
	}
	for _, t := range s.optionalTopology() {
		if err := s.watchTopology(ctx, c, t.topoKind, &t, true); err != nil {
			s.watching.Unlock()
			return err
		}
	}
	s.watching.Unlock()
	return s.watchKinds(kinds, true)
}

// watch is handleWith for an informer the state needs from the start (Synced waits for it).
func (s *State) watch(ctx context.Context, c cache.Informers, obj client.Object, gk schema.GroupKind, st store, bump func(), next func(client.Object, bool) func()) error {
	synced, err := s.handleWith(ctx, c, obj, gk, false, st, bump, next)
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.synced = append(s.synced, synced)
	s.allSynced.Store(false)
	s.mu.Unlock()
	return nil
}

// Managed says which kinds the settings manage now. The snapshots of the others are dropped and no
// longer kept when built, so the background builder stops rebuilding them (a kind removed from the
// settings: nothing asks for it any more); a kind managed again is built by its next request, as at
// the start.
func (s *State) Managed(kinds []policy.Kind) {
	m := make(map[schema.GroupKind]bool, len(kinds))
	for _, k := range kinds {
		m[k.GVK.GroupKind()] = true
	}
	s.mu.Lock()
	s.managed = m
	for gk := range s.snaps {
		if !m[gk] {
			delete(s.snaps, gk)
		}
	}
	s.mu.Unlock()
}

// WatchKinds watches the policies of the kinds not watched yet, for a kind that became managed
// after Watch (its writes wait until its informer has listed: KindSynced). A kind whose CRD is not
// installed is skipped (and logged).
func (s *State) WatchKinds(kinds []policy.Kind) error { return s.watchKinds(kinds, false) }

func (s *State) watchKinds(kinds []policy.Kind, initial bool) error {
	s.watching.Lock()
	defer s.watching.Unlock()
	s.mu.Lock()
	ctx, c := s.ctx, s.informers
	s.mu.Unlock()
	if c == nil {
		return errors.New("the state watches nothing yet: Watch first")
	}
	if !initial {
		for _, t := range s.topoMissing {
			if err := s.watchTopology(ctx, c, t.topoKind, &t, false); err != nil {
				return err
			}
		}
	}
	for _, k := range kinds {
		gk := k.GVK.GroupKind()
		s.mu.Lock()
		_, done := s.kinds[gk]
		if !done && s.policies[gk] == nil {
			s.policies[gk] = make(map[types.NamespacedName]*unstructured.Unstructured, s.reserved[gk])
		}
		s.mu.Unlock()
		if done {
			continue
		}
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(k.GVK)
		bump := func() { s.policyGen[gk]++; s.kickBuild() }
		synced, err := s.handleWith(ctx, c, u, gk, false, s.policyStore(gk), bump, func(o client.Object, deleted bool) func() {
			return s.nextPolicy(gk, o, deleted)
		})
		if err != nil {
			if meta.IsNoMatchError(err) {
				if !s.missing[gk] { // looked for again every InstallRetry: said once
					s.log.Info("policy kind not installed: watched once its CRD is", "kind", k.GVK.Kind)
				}
				s.missing[gk] = true
				continue
			}
			return err
		}
		if s.missing[gk] {
			s.log.Info("policy kind installed: watching its policies", "kind", k.GVK.Kind)
			delete(s.missing, gk)
		}
		s.mu.Lock()
		s.kinds[gk] = synced
		if initial {
			s.synced = append(s.synced, synced)
			s.allSynced.Store(false)
		}
		s.mu.Unlock()
		if !initial {
			s.log.Info("watching the policies of a newly managed kind", "kind", k.GVK.Kind)
		}
	}
	return nil
}

// KindSynced reports whether the policies of kind gk are watched and listed. A kind whose CRD is not
// installed is never watched: its writes cannot reach the webhook either.
func (s *State) KindSynced(gk schema.GroupKind) bool {
	s.mu.Lock()
	f, ok := s.kinds[gk]
	s.mu.Unlock()
	return ok && f()
}

// store is how the state keeps the objects of one informer: set stores an object (added or
// updated), del forgets one, and version is the resourceVersion of the one stored under a key
// (Caught).
type store struct {
	set     func(client.Object)
	del     func(types.NamespacedName)
	version func(types.NamespacedName) (string, bool)
}

// objectStore is the store of objects kept whole in m (mu held when called), by namespace and name.
func objectStore[T client.Object](m map[types.NamespacedName]T) store {
	return store{
		set: func(o client.Object) {
			if t, ok := o.(T); ok {
				m[key(o)] = t
			}
		},
		del:     func(n types.NamespacedName) { delete(m, n) },
		version: func(n types.NamespacedName) (string, bool) { return versionIn(m, n) },
	}
}

// versionIn is the resourceVersion of the object of m under k.
func versionIn[K comparable, T client.Object](m map[K]T, k K) (string, bool) {
	o, ok := m[k]
	if !ok {
		return "", false
	}
	return o.GetResourceVersion(), true
}

// policyStore is the store of the policies of kind gk (those of a kind profiles read too), in
// s.policies[gk].
func (s *State) policyStore(gk schema.GroupKind) store {
	return store{
		set:     func(o client.Object) { s.policies[gk][key(o)] = o.(*unstructured.Unstructured) },
		del:     func(n types.NamespacedName) { delete(s.policies[gk], n) },
		version: func(n types.NamespacedName) (string, bool) { return versionIn(s.policies[gk], n) },
	}
}

// handleWith registers the event handlers of one informer, of objects of kind gk (a topology kind
// when topo) kept in st, and returns its HasSynced. An event that changes a spec also brings the
// built graph, snapshots and derived values forward: next (may be nil) and the derivations that
// read the event (nextDerived) compute their next versions (building held, mu not: readers go on
// with the current ones) and return what publishes them, which runs with mu held, with the event
// stored and bumped, so a request sees the event and the versions that follow it together. next
// may return nil: the generation bumped, the next request builds (as before anything is built).
func (s *State) handleWith(ctx context.Context, c cache.Informers, obj client.Object, gk schema.GroupKind, topo bool, st store, bump func(), next func(o client.Object, deleted bool) func()) (func() bool, error) {
	inf, err := c.GetInformer(ctx, obj, cache.BlockUntilSynced(false))
	if err != nil {
		return nil, fmt.Errorf("watching %T: %w", obj, err)
	}
	// The informer's objects are all of obj's form and kind: their observedKind is obj's, made once
	// (a typed kind's is its Go type's name, which fmt formats anew at every call), and so is the
	// kind's high-water mark.
	okind := observedKind(obj)
	s.mu.Lock()
	s.versions[okind] = st.version
	high := s.appliedRV[okind]
	if high == nil {
		high = new(uint64)
		s.appliedRV[okind] = high
	}
	s.mu.Unlock()
	event := func(co, old client.Object, changed, deleted bool) {
		var publish, publishDerived func()
		if changed {
			e := Event{GroupKind: gk, Object: co, Old: old, Deleted: deleted, Topology: topo}
			if next != nil || s.derives(e) {
				s.building.Lock()
				defer s.building.Unlock()
				if next != nil {
					publish = next(co, deleted)
				}
				publishDerived = s.nextDerived(e)
			}
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		if deleted {
			st.del(key(co))
		} else {
			st.set(co)
		}
		if rv, err := strconv.ParseUint(co.GetResourceVersion(), 10, 64); err == nil && rv > *high {
			*high = rv
		}
		if changed {
			bump()
			if publish != nil {
				publish()
			}
			if publishDerived != nil {
				publishDerived()
			}
		}
		s.applied()
	}
	reg, err := inf.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
		AddFunc: func(o interface{}) {
			if co, ok := o.(client.Object); ok {
				event(co, nil, true, false)
			}
		},
		UpdateFunc: func(old, o interface{}) {
			if co, ok := o.(client.Object); ok {
				prev, _ := old.(client.Object)
				event(co, prev, !sameSpec(old, co), false)
			}
		},
		DeleteFunc: func(o interface{}) {
			if d, ok := o.(toolscache.DeletedFinalStateUnknown); ok {
				o = d.Obj
			}
			if co, ok := o.(client.Object); ok {
				event(co, nil, true, true)
			}
		},
	})
	if err != nil {
		return nil, fmt.Errorf("watching %T: %w", obj, err)
	}
	return reg.HasSynced, nil
}

// sameSpec reports whether an update left the spec and the labels alone: same metadata.generation,
// which the API server bumps on spec changes only (status writes, such as the reconciler's, keep
// it), and the same labels, which it does not bump on but which select (a Kuma policy's mesh and
// role, a Dataplane or MeshService selected by labels). The snapshots depend on spec, so such
// updates need no rebuild. Objects without a generation (the Namespaces, whose labels matter)
// always count as changed.
func sameSpec(old interface{}, o client.Object) bool {
	prev, ok := old.(client.Object)
	return ok && o.GetGeneration() > 0 && prev.GetGeneration() == o.GetGeneration() && maps.Equal(prev.GetLabels(), o.GetLabels())
}

// applied tells the readers waiting in AwaitCaught that an event has been applied (mu held).
func (s *State) applied() {
	if s.appliedCh != nil {
		close(s.appliedCh)
		s.appliedCh = nil
	}
}

// AwaitCaught waits until the state has applied an event on obj (Caught), woken by each event the
// state applies rather than polling, or until ctx ends; it reports whether the event was caught.
func (s *State) AwaitCaught(ctx context.Context, obj client.Object, deleted bool) bool {
	for {
		s.mu.Lock()
		if s.caught(obj, deleted) {
			s.mu.Unlock()
			return true
		}
		if s.appliedCh == nil {
			s.appliedCh = make(chan struct{})
		}
		ch := s.appliedCh
		s.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return false
		}
	}
}

// Caught reports whether the state has applied an event on obj: its version is the one applied,
// or, for a deletion, the object is gone.
func (s *State) Caught(obj client.Object, deleted bool) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.caught(obj, deleted)
}

// caught is Caught with mu held.
func (s *State) caught(obj client.Object, deleted bool) bool {
	okind := observedKind(obj)
	rv, ok := "", false
	if version := s.versions[okind]; version != nil {
		rv, ok = version(key(obj))
	}
	if deleted {
		return !ok
	}
	if !ok {
		// Applied and deleted since (a create the state has already seen deleted, under churn), or
		// not applied yet: the kind's high-water mark tells them apart.
		want, err := strconv.ParseUint(obj.GetResourceVersion(), 10, 64)
		high := s.appliedRV[okind]
		return err == nil && want > 0 && high != nil && want <= *high
	}
	// The state may already be past this event (its handler runs ahead of the caller's): that counts.
	have, err1 := strconv.ParseUint(rv, 10, 64)
	want, err2 := strconv.ParseUint(obj.GetResourceVersion(), 10, 64)
	if err1 == nil && err2 == nil {
		return have >= want
	}
	return rv == obj.GetResourceVersion()
}

// observedKind names the informer an object comes from: its Go type for a typed object, its
// group/kind for an unstructured one.
func observedKind(o client.Object) string {
	if u, ok := o.(*unstructured.Unstructured); ok {
		return u.GroupVersionKind().GroupKind().String()
	}
	return fmt.Sprintf("%T", o)
}

// Synced reports whether every watched informer has delivered its initial list.
func (s *State) Synced() bool {
	if s.allSynced.Load() { // an informer that has listed stays listed: every request asks this
		return true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, f := range s.synced {
		if !f() {
			return false
		}
	}
	s.allSynced.Store(len(s.synced) > 0)
	return len(s.synced) > 0
}

// Evaluator returns the CEL evaluator for a cost limit, shared across requests (its program cache
// too).
func (s *State) Evaluator(costLimit uint64) (*cel.Evaluator, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e, ok := s.evals[costLimit]; ok {
		return e, nil
	}
	e, err := cel.New(costLimit)
	if err != nil {
		return nil, err
	}
	s.evals[costLimit] = e
	return e, nil
}

// Snapshot returns the snapshot of kind k, built from every event the state had applied when the
// call came in: the one in store when nothing changed since it was built (the usual case: the
// background builder rebuilds after changes), else built now.
func (s *State) Snapshot(k policy.Kind, cond *cel.Evaluator) *effective.Snapshot {
	if snap := s.Fresh(k, cond); snap != nil {
		return snap
	}
	s.building.Lock()
	defer s.building.Unlock()
	return s.build(k, cond)
}

// Fresh returns the stored snapshot of kind k when it is built from every event applied so far, else
// nil; it never builds.
func (s *State) Fresh(k policy.Kind, cond *cel.Evaluator) *effective.Snapshot {
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.snaps[k.GVK.GroupKind()]
	if s.graph != nil && s.graphGen == s.topoGen && b.serves(k, cond, s.graph, s.policyGen[k.GVK.GroupKind()]) {
		return b.snap
	}
	return nil
}

// build brings the graph and the snapshot of kind k up to the generations current when it starts
// (building held): at the start, or when events found nothing built to bring forward. The work runs
// without mu, so requests on other kinds do not wait for it: topology.Build over ten thousand routes
// takes a tenth of a second. Policies are
// read (policy.View) once per object version: the views of the objects unchanged since the last
// build are reused.
func (s *State) build(k policy.Kind, cond *cel.Evaluator) *effective.Snapshot {
	gk := k.GVK.GroupKind()
	s.mu.Lock()
	g, gen := s.graph, s.topoGen
	stale := g == nil || s.graphGen != gen
	var refs topology.Objects
	if stale {
		refs = s.topoRefs()
	}
	pgen := s.policyGen[gk]
	objs := s.policyObjects(gk)
	prev := s.snaps[gk]
	s.mu.Unlock()

	if stale {
		g = topology.BuildObjects(refs)
		s.mu.Lock()
		s.graph, s.graphGen = g, gen
		s.mu.Unlock()
	}
	if prev.serves(k, cond, g, pgen) {
		return prev.snap
	}
	if prev != nil && prev.kind.Equal(k) && prev.snap.Cond == cond && prev.policyGen == pgen {
		// The policies are those of prev: only the graph is new (built anew, see nextTopology).
		b := &built{snap: prev.snap.Rebase(g), kind: k, graph: g, policyGen: pgen, views: prev.views}
		s.keep(gk, b)
		return b.snap
	}
	sameKind := prev != nil && prev.kind.Equal(k)
	views := make(map[*unstructured.Unstructured]*policy.Policy, len(objs))
	list := make([]*policy.Policy, 0, len(objs))
	for _, u := range objs {
		p, ok := (*policy.Policy)(nil), false
		if sameKind {
			p, ok = prev.views[u]
		}
		if !ok {
			p, _ = policy.View(k, u)
		}
		views[u] = p
		if p != nil {
			list = append(list, p)
		}
	}
	b := &built{snap: effective.NewSnapshot(k, g, list, cond), kind: k, graph: g, policyGen: pgen, views: views}
	s.keep(gk, b)
	return b.snap
}

// keep stores snapshot b of kind gk, unless the settings no longer manage the kind (a write that came
// as the settings dropped its kind is served, not kept).
func (s *State) keep(gk schema.GroupKind, b *built) {
	s.mu.Lock()
	if s.managed == nil || s.managed[gk] {
		s.snaps[gk] = b
	}
	s.mu.Unlock()
}

// Settling of the background builder: it builds once no change came for settleQuiet, or settleMax
// after the first change of a burst, whichever is first.
const (
	settleQuiet = 50 * time.Millisecond
	settleMax   = time.Second
)

// kickBuild wakes the background builder (mu held, or not: it only sends without blocking).
func (s *State) kickBuild() {
	select {
	case s.kick <- struct{}{}:
	default: // a wake-up is pending already
	}
}

// builder rebuilds, after changes, what the events did not bring forward themselves (the graph and
// snapshots when an event found them unbuilt, the derived caches their events did not bring forward), so the next
// request finds them built instead of building them while the API server waits. A burst of changes
// (a GitOps sync applying hundreds of objects) costs one build once it settles. A request that comes
// before the build builds itself, as Snapshot says.
func (s *State) builder(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.kick:
		}
		deadline := time.Now().Add(settleMax)
		for quiet := time.NewTimer(settleQuiet); ; {
			select {
			case <-ctx.Done():
				quiet.Stop()
				return
			case <-s.kick:
				if wait := time.Until(deadline); wait > 0 {
					quiet.Reset(min(settleQuiet, wait))
					continue
				}
				quiet.Stop()
			case <-quiet.C:
			}
			break
		}
		if !s.Synced() {
			continue // still listing: the first request builds, from the whole lists
		}
		s.mu.Lock()
		wanted := make([]*built, 0, len(s.snaps))
		for _, b := range s.snaps { // the managed kinds' only (Managed, build)
			wanted = append(wanted, b)
		}
		s.mu.Unlock()
		for _, b := range wanted {
			s.Snapshot(b.kind, b.snap.Cond)
		}
		s.rebuildDerived()
	}
}

// policyObjects lists the stored policies of kind gk in address order (values; mu held). Informer
// objects are never modified, so they can be read after mu is released.
func (s *State) policyObjects(gk schema.GroupKind) []*unstructured.Unstructured {
	return values(s.policies[gk])
}

// topoRefs lists the topology objects (mu held). Informer objects are never modified, so they
// can be read (and built from, by reference) after mu is released.
func (s *State) topoRefs() topology.Objects {
	r := topology.Objects{
		GatewayClasses:  values(s.classes),
		Gateways:        values(s.gateways),
		HTTPRoutes:      values(s.httpRoutes),
		GRPCRoutes:      values(s.grpcRoutes),
		ListenerSets:    values(s.lsets),
		TLSRoutes:       values(s.tlsRoutes),
		TCPRoutes:       values(s.tcpRoutes),
		UDPRoutes:       values(s.udpRoutes),
		NamespaceLabels: make(map[string]map[string]string, len(s.nsLabels)),
	}
	for n, l := range s.nsLabels {
		r.NamespaceLabels[n] = l
	}
	return r
}

func key(o client.Object) types.NamespacedName {
	return types.NamespacedName{Namespace: o.GetNamespace(), Name: o.GetName()}
}

// namespaceMeta is a metadata-only Namespace: the labels are all the topology needs.
func namespaceMeta() *metav1.PartialObjectMetadata {
	m := &metav1.PartialObjectMetadata{}
	m.SetGroupVersionKind(schema.GroupVersionKind{Version: "v1", Kind: "Namespace"})
	return m
}

// PrepareSnapshots builds the graph and the snapshot of each kind of kinds, with the evaluator of
// costLimit, and (but in a foreground state) folds every path the kind's policies reach, so the first admissions of a freshly
// started replica find them built and folded instead of building them while the API server waits.
// The engine-backed profiles call it from their Prepare, once the informers have listed.
func (s *State) PrepareSnapshots(kinds []policy.Kind, costLimit uint64) error {
	if !s.Synced() {
		return errors.New("the policy cache is not synced yet")
	}
	cond, err := s.Evaluator(costLimit)
	if err != nil {
		return err
	}
	for _, k := range kinds {
		if !s.KindSynced(k.GVK.GroupKind()) {
			continue // not installed (or not watched yet): nothing to build
		}
		snap := s.Snapshot(k, cond)
		if s.foreground {
			continue // no request waits: each folds what it reads
		}
		for _, i := range snap.Reached(nil) {
			snap.ComputePath(i)
		}
	}
	return nil
}

// MarkPrepared records that every profile has prepared its caches: the replica may report ready.
func (s *State) MarkPrepared() { s.prepared.Store(true) }

// Prepared reports whether Prepare has run to the end.
func (s *State) Prepared() bool { return s.prepared.Load() }
