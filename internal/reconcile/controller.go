package reconcile

import (
	"context"
	"fmt"
	"maps"
	"reflect"
	"sync"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/events"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/precedent-dev/precedent/cel"
	"github.com/precedent-dev/precedent/internal/effective"
	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/settings"
	"github.com/precedent-dev/precedent/internal/topology"
)

// ControllerName is written in PolicyAncestorStatus entries.
const ControllerName = "policy.precedent.dev/precedent"

// awaitSettings waits until the live settings have read the PrecedentConfig version rv: both follow
// the same informer, in no particular order, and the live settings first tell their listeners
// (which may set up watches and controllers for newly managed kinds). A PrecedentConfig the live
// settings refuse never comes into force: after settingsWait the caller goes on with those in force.
func (r *Reconciler) awaitSettings(ctx context.Context, rv string) {
	ctx, cancel := context.WithTimeout(ctx, settingsWait)
	defer cancel()
	r.Settings.AwaitVersion(ctx, rv)
}

// notSyncedRequeue is when a policy reconciled before the source has listed everything is tried again.
const notSyncedRequeue = 500 * time.Millisecond

// settingsWait bounds awaitSettings.
const settingsWait = 10 * time.Second

// Source gives the reconciler the same snapshots the webhook reads (state.State implements it).
type Source interface {
	Snapshot(k policy.Kind, cond *cel.Evaluator) *effective.Snapshot
	Evaluator(costLimit uint64) (*cel.Evaluator, error)
	// KindSynced reports whether the source has listed the policies of gk.
	KindSynced(gk schema.GroupKind) bool
	// AwaitCaught waits until the source has applied an event on obj (deleted: its deletion), woken
	// by the source as it applies events, or until ctx ends.
	AwaitCaught(ctx context.Context, obj client.Object, deleted bool) bool
}

// Settings gives the settings in force and tells of changes (liveconfig.Live implements it).
type Settings interface {
	Current() settings.Settings
	// OnChange calls f with new settings before they are in force.
	OnChange(f func(settings.Settings))
	// AwaitVersion waits until the settings in force were read from the PrecedentConfig of
	// resourceVersion rv, or until ctx ends.
	AwaitVersion(ctx context.Context, rv string) bool
}

// Reconciler keeps the status of the policies of one kind true.
type Reconciler struct {
	// Client writes status (and reads, when Reader is nil).
	Client client.Client
	// Reader reads policies, Gateways and the PrecedentConfig: the manager's cache, which the
	// webhook's state already fills, so a reconcile costs no API call until it writes.
	Reader   client.Reader
	Kind     policy.Kind
	Source   Source
	Settings Settings
	Recorder events.EventRecorder
	Log      logr.Logger

	// pruned, written, views, holdings and acceptance are shared by the kind's controllers (the Affected one copies the
	// Reconciler).
	pruned     *pruning
	written    *ownWrites
	views      *views
	holdings   *holdings
	acceptance *acceptance
}

// Controllers sets up the status controllers of the managed kinds, one controller per kind, on one
// manager at a time: a replica runs them only while it leads, on a manager of their own per term
// (package assembly), so a lost lease stops them and leaves the informers and the webhooks alone.
// The live settings are followed once for every term: a kind managed later gets its controllers in
// the term under way, with no restart, and a kind whose CRD is not installed yet at a later look,
// every installRetry.
type Controllers struct {
	src          Source
	live         Settings
	installRetry time.Duration
	log          logr.Logger

	mu  sync.Mutex
	cur *setup // the term's; nil between terms
}

// NewControllers follows live for the terms to come; installRetry must be positive.
func NewControllers(src Source, live Settings, installRetry time.Duration, log logr.Logger) (*Controllers, error) {
	if installRetry <= 0 {
		return nil, fmt.Errorf("install retry %s: want a positive period", installRetry)
	}
	c := &Controllers{src: src, live: live, installRetry: installRetry, log: log}
	live.OnChange(func(cs settings.Settings) {
		if s := c.term(); s != nil {
			if err := s.kinds(cs.Registry().Kinds()); err != nil {
				log.Error(err, "setting up the status controllers of the managed kinds")
			}
		}
	})
	return c, nil
}

// term is the setup of the term under way, if any.
func (c *Controllers) term() *setup {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cur
}

// SetupWithManager registers the controllers of the managed kinds on mgr, a manager that runs for
// one term: they start with it and stop with it, and the next term's manager gets new ones (with
// fresh queues and memories of their own writes, as a new process would).
func (c *Controllers) SetupWithManager(mgr ctrl.Manager) error {
	s := &setup{mgr: mgr, src: c.src, live: c.live, log: c.log, done: map[schema.GroupKind]bool{}, missing: map[schema.GroupKind]bool{}}
	// The term's setup is known to the settings listener first: settings that change meanwhile
	// reach it either way.
	c.mu.Lock()
	c.cur = s
	c.mu.Unlock()
	if err := s.kinds(c.live.Current().Registry().Kinds()); err != nil {
		return err
	}
	// A managed kind whose CRD is installed later (after the start, or after the settings change that
	// made it managed) gets its controllers at the next look, once the source has listed its
	// policies: a status computed without them would be wrong.
	return mgr.Add(manager.RunnableFunc(func(ctx context.Context) error {
		_ = wait.PollUntilContextCancel(ctx, c.installRetry, false, func(context.Context) (bool, error) {
			if err := s.kinds(c.live.Current().Registry().Kinds()); err != nil {
				c.log.Error(err, "setting up the status controllers of the managed kinds")
			}
			return false, nil // until the term ends
		})
		c.mu.Lock()
		if c.cur == s {
			c.cur = nil
		}
		c.mu.Unlock()
		return nil
	}))
}

// setup adds the controllers of each managed kind once.
type setup struct {
	mgr  ctrl.Manager
	src  Source
	live Settings
	log  logr.Logger

	mu      sync.Mutex
	done    map[schema.GroupKind]bool
	missing map[schema.GroupKind]bool // kinds found not installed, or not listed by the source yet
}

// kinds sets up the kinds not set up yet. A kind whose CRD is not installed is skipped (and logged
// once): the next look (installRetry), settings change or restart tries again. A kind found missing
// before is set up only once the source has listed its policies.
func (s *setup) kinds(ks []policy.Kind) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, k := range ks {
		gk := k.GVK.GroupKind()
		if s.done[gk] {
			continue
		}
		if _, err := s.mgr.GetRESTMapper().RESTMapping(gk, k.GVK.Version); err != nil {
			if !s.missing[gk] {
				s.log.Info("policy kind not installed: reconciled once its CRD is", "kind", k.GVK.Kind)
			}
			s.missing[gk] = true
			continue
		}
		if s.missing[gk] && !s.src.KindSynced(gk) {
			continue // installed, but the source has not listed its policies yet
		}
		if s.missing[gk] {
			s.log.Info("policy kind installed: reconciling its policies", "kind", k.GVK.Kind)
			delete(s.missing, gk)
		}
		r := &Reconciler{Client: s.mgr.GetClient(), Reader: s.mgr.GetCache(), Kind: k, Source: s.src, Settings: s.live,
			Recorder: s.mgr.GetEventRecorder("precedent"), Log: s.log.WithValues("kind", k.GVK.Kind)}
		if err := r.setup(s.mgr); err != nil {
			return fmt.Errorf("setting up the %s status controller: %w", k.GVK.Kind, err)
		}
		if err := setupAffected(s.mgr, r, r.Log.WithName("affected")); err != nil {
			return fmt.Errorf("setting up the %s Affected controller: %w", k.GVK.Kind, err)
		}
		s.done[gk] = true
	}
	return nil
}

// name names the kind's controllers: its Kind, and for a configured kind, whose Kind may be a shipped
// kind's in another group, its group too (controller names are unique in a manager).
func (r *Reconciler) name() string {
	if r.Kind.GVK.Group == policy.Group {
		return r.Kind.GVK.Kind
	}
	return r.Kind.GVK.Kind + "." + r.Kind.GVK.Group
}

func (r *Reconciler) newObject() *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(r.Kind.GVK)
	return u
}

func (r *Reconciler) setup(mgr ctrl.Manager) error {
	if r.pruned == nil {
		r.pruned = &pruning{}
	}
	if r.written == nil {
		r.written = &ownWrites{last: map[types.NamespacedName]writeMark{}}
	}
	if r.views == nil {
		r.views = &views{m: map[types.NamespacedName]viewEntry{}}
	}
	if r.holdings == nil {
		r.holdings = &holdings{}
	}
	if r.acceptance == nil {
		r.acceptance = &acceptance{}
	}
	b := ctrl.NewControllerManagedBy(mgr)
	if _, err := mgr.GetRESTMapper().RESTMapping(settings.GVK.GroupKind(), settings.GVK.Version); err == nil {
		b = b.WatchesRawSource(r.settingsSource(mgr, r.policyRequests))
	}
	// The optional topology kinds, when their CRDs are installed at the start.
	for _, o := range []client.Object{&gwv1.ListenerSet{}, &gwv1.TLSRoute{}, &gwv1.TCPRoute{}, &gwv1.UDPRoute{}} {
		kind := reflect.TypeOf(o).Elem().Name()
		if _, err := mgr.GetRESTMapper().RESTMapping(schema.GroupKind{Group: topology.Group, Kind: kind}, "v1"); err == nil {
			b = b.Watches(o, r.after(r.byTopology(kind)))
		}
	}
	return b.
		Named("status-"+r.name()).
		Watches(r.newObject(), r.afterPolicy(r.selfAndNeighbours, r.self)).
		Watches(&gwv1.Gateway{}, r.after(r.byTopology("Gateway"))).
		Watches(&gwv1.HTTPRoute{}, r.after(r.byTopology("HTTPRoute"))).
		Watches(&gwv1.GRPCRoute{}, r.after(r.byTopology("GRPCRoute"))).
		Complete(r)
}

// reader is where reconciles read: the cache, or the client when none is set.
func (r *Reconciler) reader() client.Reader {
	if r.Reader != nil {
		return r.Reader
	}
	return r.Client
}

// settingsSource re-reconciles what all lists when the PrecedentConfig changes: the unset switch
// or one-policy-per-target change what Accepted means, and a kind's status mode may change
// (none → full: its statuses are written from then on). Rare, so listing from the cache is fine.
// The reconciles are asked for once the settings read from the new PrecedentConfig are in force
// (the live settings follow the same informer, in no particular order, and tell their listeners
// before they put new settings in force): a reconcile asked for earlier would compute the old
// meaning and nothing would ask again. Only the new object of an update is waited for.
func (r *Reconciler) settingsSource(mgr ctrl.Manager, all func(context.Context) []reconcile.Request) source.TypedSource[reconcile.Request] {
	cfg := &unstructured.Unstructured{}
	cfg.SetGroupVersionKind(settings.GVK)
	enqueue := func(ctx context.Context, rv string, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
		r.awaitSettings(ctx, rv)
		if !r.writes() {
			return
		}
		for _, req := range all(ctx) {
			q.Add(req)
		}
	}
	return source.Kind(mgr.GetCache(), client.Object(cfg), handler.Funcs{
		CreateFunc: func(ctx context.Context, e event.CreateEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			enqueue(ctx, e.Object.GetResourceVersion(), q)
		},
		UpdateFunc: func(ctx context.Context, e event.UpdateEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			enqueue(ctx, e.ObjectNew.GetResourceVersion(), q)
		},
		DeleteFunc: func(ctx context.Context, e event.DeleteEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			enqueue(ctx, "", q) // the defaults, which the live settings read from no object
		},
	})
}

// policyRequests lists every policy of the kind (from the cache).
func (r *Reconciler) policyRequests(ctx context.Context) []reconcile.Request {
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(r.Kind.GVK.GroupVersion().WithKind(r.Kind.GVK.Kind + "List"))
	if err := r.reader().List(ctx, list); err != nil {
		r.Log.Error(err, "listing policies after a settings change")
		return nil
	}
	out := make([]reconcile.Request, 0, len(list.Items))
	for i := range list.Items {
		out = append(out, reconcile.Request{NamespacedName: types.NamespacedName{Namespace: list.Items[i].GetNamespace(), Name: list.Items[i].GetName()}})
	}
	return out
}

// current returns the kind as the settings in force configure it, and whether they manage it. A
// kind removed from the settings keeps its controllers (controller-runtime cannot remove one) until
// a restart, but they leave its statuses alone; they resume if the kind is managed again.
func (r *Reconciler) current() (policy.Kind, bool) {
	return r.Settings.Current().Registry().Lookup(r.Kind.GVK.GroupKind())
}

// writes reports whether the settings in force have the reconciler write the kind's status: the
// kind is managed and its status mode is full. With status none (the kuadrant profile's default:
// Kuadrant's operator owns those statuses) the kind's controllers do nothing at all.
func (r *Reconciler) writes() bool {
	k, ok := r.current()
	return ok && k.WritesStatus()
}

func (r *Reconciler) snapshot() (*effective.Snapshot, settings.Settings, error) {
	s := r.Settings.Current()
	ev, err := r.Source.Evaluator(s.CELCostLimit)
	if err != nil {
		return nil, s, err
	}
	k := r.Kind
	if kk, ok := s.Registry().Lookup(r.Kind.GVK.GroupKind()); ok {
		k = kk
	}
	return r.Source.Snapshot(k, ev), s, nil
}

// after maps events to requests only once the shared state has applied them: the state and this
// controller follow the same informers in no particular order, and a reconcile that read the state
// before the event would compute yesterday's status and never be asked again.
func (r *Reconciler) after(mapper handler.MapFunc) handler.EventHandler {
	return r.afterPolicy(mapper, nil)
}

// afterPolicy is after, with onStatus mapping the updates that leave the spec alone (same
// generation): a policy's status write changes no other policy's status, so only the policy itself
// is looked at again (nil onStatus: such updates map like the others). The update that is the
// reconciler's own last write is not looked at again unless a reconcile waited for it (writes).
func (r *Reconciler) afterPolicy(mapper, onStatus handler.MapFunc) handler.EventHandler {
	enqueue := func(ctx context.Context, obj client.Object, deleted, news bool, mapper handler.MapFunc, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
		if !r.writes() {
			return // status none (or the kind no longer managed): no work at all
		}
		wctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		r.Source.AwaitCaught(wctx, obj, deleted)
		cancel()
		self := reconcile.Request{NamespacedName: client.ObjectKeyFromObject(obj)}
		addRequests(q, mapper(ctx, obj), self, news && onStatus != nil)
	}
	return handler.Funcs{
		CreateFunc: func(ctx context.Context, e event.CreateEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			enqueue(ctx, e.Object, false, !e.IsInInitialList, mapper, q)
		},
		UpdateFunc: func(ctx context.Context, e event.UpdateEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			m := mapper
			if onStatus != nil && e.ObjectOld.GetGeneration() == e.ObjectNew.GetGeneration() && e.ObjectNew.GetGeneration() > 0 {
				if own, waited := r.written.caught(e.ObjectNew); own && !waited {
					return // our own write, which nothing waited for: the status is what we computed
				}
				m = onStatus
			}
			enqueue(ctx, e.ObjectNew, false, e.ObjectOld.GetResourceVersion() != e.ObjectNew.GetResourceVersion(), m, q)
		},
		DeleteFunc: func(ctx context.Context, e event.DeleteEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			r.written.forget(client.ObjectKeyFromObject(e.Object))
			r.views.forget(client.ObjectKeyFromObject(e.Object))
			enqueue(ctx, e.Object, true, true, mapper, q)
		},
		GenericFunc: func(ctx context.Context, e event.GenericEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			enqueue(ctx, e.Object, false, false, mapper, q)
		},
	}
}

// selfPriority is the priority of a policy's own request when its write is news (not a relist): it
// goes ahead of the neighbour requests that earlier writes queued, so a policy created under a
// stream of writes beside a big policy gets its status in the time of one reconcile, not after the
// queue (controller-runtime's priority queue; relists stay at handler.LowPriority).
const selfPriority = 10

// addRequests adds reqs to q; with self first, when ahead, at selfPriority on a priority queue.
func addRequests(q workqueue.TypedRateLimitingInterface[reconcile.Request], reqs []reconcile.Request, self reconcile.Request, ahead bool) {
	pq, ok := q.(priorityqueue.PriorityQueue[reconcile.Request])
	for _, req := range reqs {
		if ok && ahead && req == self {
			pq.AddWithOpts(priorityqueue.AddOpts{Priority: ptr.To(selfPriority)}, req)
			continue
		}
		q.Add(req)
	}
}

// self maps a policy event to the policy alone.
func (r *Reconciler) self(_ context.Context, obj client.Object) []reconcile.Request {
	return []reconcile.Request{{NamespacedName: client.ObjectKeyFromObject(obj)}}
}

// selfAndNeighbours maps a policy event to the policy and the other policies on the paths it
// reaches: their Enforced condition may change with it. The work is bounded by those paths.
func (r *Reconciler) selfAndNeighbours(_ context.Context, obj client.Object) []reconcile.Request {
	self := reconcile.Request{NamespacedName: types.NamespacedName{Namespace: obj.GetNamespace(), Name: obj.GetName()}}
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return []reconcile.Request{self}
	}
	snap, _, err := r.snapshot()
	if err != nil {
		return []reconcile.Request{self}
	}
	p, _ := policy.View(snap.Kind, u)
	return append(requests(snap, snap.PathsOf(p), p.Ref), self)
}

// byTopology maps a Gateway or route event to the policies on its paths.
func (r *Reconciler) byTopology(kind string) handler.MapFunc {
	return func(_ context.Context, obj client.Object) []reconcile.Request {
		snap, _, err := r.snapshot()
		if err != nil {
			return nil
		}
		t := topology.Target{Kind: kind, Namespace: obj.GetNamespace(), Name: obj.GetName()}
		reqs := requests(snap, snap.Graph.PathsFor(t), policy.Ref{})
		// Policies that target the object directly, even when it has no paths (TargetNotFound → Accepted).
		for _, p := range snap.At(t) {
			reqs = append(reqs, reconcile.Request{NamespacedName: types.NamespacedName{Namespace: p.Ref.Namespace, Name: p.Ref.Name}})
		}
		return reqs
	}
}

func requests(snap *effective.Snapshot, paths []int, skip policy.Ref) []reconcile.Request {
	seen := map[policy.Ref]bool{skip: true}
	var out []reconcile.Request
	for _, i := range paths {
		for _, lv := range snap.Levels(snap.Graph.Paths[i]) {
			for _, p := range lv.Policies {
				if !seen[p.Ref] {
					seen[p.Ref] = true
					out = append(out, reconcile.Request{NamespacedName: types.NamespacedName{Namespace: p.Ref.Namespace, Name: p.Ref.Name}})
				}
			}
		}
	}
	return out
}

// Reconcile computes the status of one policy and writes Precedent's part of it when its meaning
// changed. The policy is read from the cache; the write goes to the API server, with the read's
// resourceVersion (a conflict is retried after the cache caught up).
func (r *Reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	k, ok := r.current()
	if !ok || !k.WritesStatus() {
		return reconcile.Result{}, nil
	}
	// Judge only a whole picture: before every informer has listed, a policy looks overridden or
	// its target missing, and the Events of that would contradict the final state.
	if s, ok := r.Source.(interface{ Synced() bool }); ok && !s.Synced() {
		return reconcile.Result{RequeueAfter: notSyncedRequeue}, nil
	}
	// The cache's own object, not a copy: a copy of a policy of thousands of rules was most of the
	// cost of a reconcile, once per change of any policy on its paths. Read only: the status write
	// below goes through a top-level map of its own.
	u := r.newObject()
	if err := r.reader().Get(ctx, req.NamespacedName, u, client.UnsafeDisableDeepCopy); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	if r.written.behind(u) {
		return reconcile.Result{}, nil // the cache has not seen our last write yet; its event brings us back
	}
	snap, s, err := r.snapshot()
	if err != nil {
		return reconcile.Result{}, err
	}
	p, viewErrs := r.views.view(k, u)
	invalid := append(viewErrs, Invalid(snap, p, s)...)
	st := compute(snap, p, invalid, s, r.holdings, func() *effective.Snapshot {
		return r.acceptance.foldsFor(snap, p, s, r.viewErrors(ctx, k))
	})

	status, _ := u.Object["status"].(map[string]interface{})
	skip := r.pruned.skip()
	newStatus, changed, err := mergeStatus(status, st, skip, metav1.Now())
	if err != nil {
		return reconcile.Result{}, err
	}
	if !changed {
		skippedWrites.WithLabelValues(r.Kind.GVK.Kind).Inc()
		return reconcile.Result{}, nil
	}
	oldConds := conditionsOf(u)
	u = &unstructured.Unstructured{Object: maps.Clone(u.Object)} // the write's response replaces its Object
	u.SetGroupVersionKind(r.Kind.GVK)                            // as a copying Get sets it
	u.Object["status"] = newStatus
	if err := r.Client.Status().Update(ctx, u); err != nil {
		switch {
		case apierrors.IsConflict(err):
			return reconcile.Result{Requeue: true}, nil
		case apierrors.IsNotFound(err):
			return reconcile.Result{}, nil
		}
		return reconcile.Result{}, err
	}
	statusWrites.WithLabelValues(r.Kind.GVK.Kind).Inc()
	r.written.mark(u)
	stored, _ := u.Object["status"].(map[string]interface{})
	if lost := r.pruned.learn(stored, st, skip); len(lost) > 0 {
		r.Log.Info("the kind's status schema does not keep these fields: no longer written", "fields", lost)
	}
	r.Log.V(1).Info("status written", "policy", klog.KObj(u))
	r.events(u, oldConds, conditionsOf(u))
	return reconcile.Result{}, nil
}

// viewErrors gives the errors reading a policy's object found, from the cache (none when the
// cache no longer holds it: the snapshot's policy was read from it).
func (r *Reconciler) viewErrors(ctx context.Context, k policy.Kind) viewErrors {
	return func(p *policy.Policy) field.ErrorList {
		u := r.newObject()
		if err := r.reader().Get(ctx, types.NamespacedName{Namespace: p.Ref.Namespace, Name: p.Ref.Name}, u, client.UnsafeDisableDeepCopy); err != nil {
			return nil
		}
		_, errs := r.views.view(k, u)
		return errs
	}
}

// badReasons are the condition reasons an Event is recorded for when a policy comes to them
// (Warning), and again when it leaves them for a good state (Normal: the recovery).
var badReasons = []struct{ t, reason string }{{TypeEnforced, ReasonOverridden}, {TypeAccepted, ReasonInvalid}, {TypeAccepted, ReasonConflicted}}

// events records a Kubernetes Event when a policy becomes overridden or invalid, and a Normal one
// when it recovers (e.g. Overridden → Enforced).
func (r *Reconciler) events(u *unstructured.Unstructured, before, after []metav1.Condition) {
	if r.Recorder == nil {
		return
	}
	for _, e := range transitions(before, after) {
		r.Recorder.Eventf(u, nil, e.kind, e.reason, "Reconcile", "%s", e.message)
	}
}

// eventRecord is one Event to record.
type eventRecord struct{ kind, reason, message string }

// transitions are the Events a change of conditions from before to after calls for.
func transitions(before, after []metav1.Condition) []eventRecord {
	var out []eventRecord
	for _, c := range badReasons {
		now, was := meta.FindStatusCondition(after, c.t), meta.FindStatusCondition(before, c.t)
		wasBad := was != nil && was.Reason == c.reason
		switch {
		case now != nil && now.Reason == c.reason && !wasBad:
			out = append(out, eventRecord{corev1.EventTypeWarning, now.Reason, now.Message})
		case now != nil && wasBad && now.Reason != c.reason && now.Status == metav1.ConditionTrue:
			out = append(out, eventRecord{corev1.EventTypeNormal, now.Reason, now.Message})
		}
	}
	return out
}

func conditionsOf(u *unstructured.Unstructured) []metav1.Condition {
	raw, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	var out []metav1.Condition
	for _, item := range raw {
		m, ok := item.(map[string]interface{})
		if !ok {
			continue
		}
		var c metav1.Condition
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(m, &c); err == nil {
			out = append(out, c)
		}
	}
	return out
}
