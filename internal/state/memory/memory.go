package memory

import (
	"context"
	"fmt"
	"reflect"
	"sort"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/state"
	"github.com/precedent-dev/precedent/internal/topology"
)

// Source is a state fed from objects in memory. Remove and Add change it as a delete or create in
// the cluster would, through the same event handlers.
type Source struct {
	*state.State
	inf *informers
}

// Options say what the state watches besides the topology: the managed kinds, the kinds the
// profiles own, and the Backend kind.
type Options struct {
	Kinds   []policy.Kind
	Own     []schema.GroupKind
	Backend schema.GroupKind
	// Converted holds objects of objs already converted to a typed form (by the caller's own
	// check of them), used instead of converting the object again; each must be of the scheme's
	// type for its kind (New's error otherwise: the caller may have released the fields it
	// converted, as validate does).
	Converted map[*unstructured.Unstructured]runtime.Object
	// Typed are objects given in their typed form only (the caller keeps no decoded form of them,
	// as validate does for the Gateway API objects no profile reads whole): each informer of their
	// kind delivers them as it delivers the others, made from the typed object. Add, Remove and Try
	// do not change them.
	Typed []Typed
}

// Typed is an object of gvk in its typed form (the scheme's type for gvk).
type Typed struct {
	GVK    schema.GroupVersionKind
	Object runtime.Object
}

// New returns a synced state holding objs. A kind counts as installed when objects of it are in
// objs or it is a managed kind (as in a cluster where its CRD is installed). Each informer the state
// asks for delivers the objects of its group/kind in its form, as a cluster's would: typed (the
// Gateway API kinds, in the version the state watches), metadata only, or unstructured; an object
// that does not convert to its typed form is an error. Each object is converted once. The state
// does no work in the background (state.NewForeground): nothing here waits on a request.
func New(ctx context.Context, objs []*unstructured.Unstructured, o Options) (*Source, error) {
	scheme, err := state.NewScheme()
	if err != nil {
		return nil, err
	}
	// The lists' sizes are known: the maps here and the state's are made at their size.
	counts, typedCounts := map[schema.GroupKind]int{}, map[schema.GroupKind]int{}
	for _, u := range objs {
		counts[u.GroupVersionKind().GroupKind()]++
	}
	for _, t := range o.Typed {
		typedCounts[t.GVK.GroupKind()]++
	}
	inf := &informers{scheme: scheme, byKind: map[informerKey]*informer{}, objs: make(map[schema.GroupKind]map[client.ObjectKey]*unstructured.Unstructured, len(counts)),
		typedOnly: make(map[schema.GroupKind]map[client.ObjectKey]client.Object, len(typedCounts))}
	gatewayAPI := 0 // the objects converted to a typed form, mostly
	for gk, n := range counts {
		inf.objs[gk] = make(map[client.ObjectKey]*unstructured.Unstructured, n)
		if gk.Group == topology.Group {
			gatewayAPI += n
		}
	}
	inf.typed = make(map[*unstructured.Unstructured]client.Object, gatewayAPI)
	installed := make([]schema.GroupVersionKind, 0, len(o.Kinds))
	for _, k := range o.Kinds {
		installed = append(installed, k.GVK)
	}
	seen := map[schema.GroupVersionKind]bool{} // the versions of installed, each once
	known := scheme.AllKnownTypes()
	for gk, n := range typedCounts {
		inf.typedOnly[gk] = make(map[client.ObjectKey]client.Object, n)
		counts[gk] += n
	}
	for _, t := range o.Typed {
		co, ok := converted(known, t.Object, t.GVK)
		if !ok {
			return nil, fmt.Errorf("%s: the typed object is a %T, not the scheme's type of its kind", t.GVK.Kind, t.Object)
		}
		gk := t.GVK.GroupKind()
		k := client.ObjectKeyFromObject(co)
		if _, dup := inf.typedOnly[gk][k]; dup {
			return nil, fmt.Errorf("%s %s: given twice", t.GVK.Kind, k)
		}
		inf.typedOnly[gk][k] = co
		if !seen[t.GVK] {
			seen[t.GVK] = true
			installed = append(installed, t.GVK)
		}
	}
	for _, u := range objs {
		gvk := u.GroupVersionKind()
		co, ok := converted(known, o.Converted[u], gvk)
		if !ok && o.Converted[u] != nil {
			return nil, fmt.Errorf("%s %s: the converted object is a %T, not the scheme's type of its kind", gvk.Kind, client.ObjectKeyFromObject(u), o.Converted[u])
		}
		if !ok {
			if co, err = typed(scheme, u, gvk); err != nil {
				return nil, err
			}
		}
		if co != client.Object(u) {
			inf.typed[u] = co
		}
		if !seen[gvk] {
			seen[gvk] = true
			installed = append(installed, gvk)
		}
		inf.set(u)
	}
	src := &Source{State: state.NewForeground(logr.Discard()), inf: inf}
	src.State.Reserve(counts)
	if err := src.State.Watch(ctx, inf, o.Kinds); err != nil {
		return nil, err
	}
	if err := src.State.WatchProfiles(ctx, inf, restMapper(installed), o.Own, o.Backend); err != nil {
		return nil, err
	}
	return src, nil
}

// Remove takes u out, as its delete would.
func (s *Source) Remove(u *unstructured.Unstructured) error {
	s.inf.unset(u)
	return s.inf.deliver(u, true)
}

// Add puts u in, as its create would.
func (s *Source) Add(u *unstructured.Unstructured) error {
	s.inf.set(u)
	return s.inf.deliver(u, false)
}

// Change is one write of a trial: Out taken out (when not nil), then In put in (when not nil), as
// their delete and create would; both policies (objects of kinds the state keeps as policies).
type Change struct {
	Out, In *unstructured.Unstructured
}

// Try applies the changes in order, runs f on the state they leave, then puts the state back as it
// was before them: by state.State.Revert, at the cost of the write's own events only, when the
// objects are policies (state.State.Revertible), else by the opposite events (a topology object,
// which a profile may review too). Trials nest: f may try further changes.
func (s *Source) Try(changes []Change, f func()) error {
	var puts []state.Put
	seen := map[informerKey]bool{}
	for _, c := range changes {
		for _, u := range []*unstructured.Unstructured{c.Out, c.In} {
			if u == nil {
				continue
			}
			gk := u.GroupVersionKind().GroupKind()
			k := client.ObjectKeyFromObject(u)
			if id := (informerKey{gk: gk, key: k}); !seen[id] {
				seen[id] = true
				puts = append(puts, state.Put{GroupKind: gk, Key: k, Object: s.inf.objs[gk][k]})
			}
		}
	}
	revert := true // else the opposite events put the objects back
	for _, p := range puts {
		revert = revert && s.State.Revertible(p.GroupKind)
	}
	m := s.State.Mark()
	var err error
	for _, c := range changes {
		if err = s.swap(c); err != nil {
			break
		}
	}
	if err == nil {
		f()
	}
	if !revert {
		for i := len(changes) - 1; i >= 0; i-- {
			if rerr := s.swap(Change{Out: changes[i].In, In: changes[i].Out}); err == nil {
				err = rerr
			}
		}
		return err
	}
	for _, p := range puts { // the objects as the informers list them
		if p.Object == nil {
			delete(s.inf.objs[p.GroupKind], p.Key)
		} else {
			s.inf.set(p.Object)
		}
	}
	if rerr := s.State.Revert(m, puts); err == nil {
		err = rerr
	}
	return err
}

// swap applies one change.
func (s *Source) swap(c Change) error {
	if c.Out != nil {
		if err := s.Remove(c.Out); err != nil {
			return err
		}
	}
	if c.In != nil {
		return s.Add(c.In)
	}
	return nil
}

// form is how an informer delivers objects: typed, metadata only, or unstructured.
type form int

const (
	typedForm form = iota
	metadataForm
	unstructuredForm
)

func formOf(obj client.Object) form {
	switch obj.(type) {
	case *unstructured.Unstructured:
		return unstructuredForm
	case *metav1.PartialObjectMetadata:
		return metadataForm
	}
	return typedForm
}

// convert is u as an informer of gvk in form f delivers it.
func convert(scheme *runtime.Scheme, u *unstructured.Unstructured, gvk schema.GroupVersionKind, f form) (client.Object, error) {
	switch f {
	case metadataForm:
		return metadataOf(u, gvk), nil
	case typedForm:
		return typed(scheme, u, gvk)
	}
	return u, nil
}

// converted is obj, an object of gvk converted by the caller, as typed gives it; ok is false when
// obj is nil or not of the type typed would convert to.
func converted(known map[schema.GroupVersionKind]reflect.Type, obj runtime.Object, gvk schema.GroupVersionKind) (client.Object, bool) {
	co, ok := obj.(client.Object)
	if !ok {
		return nil, false
	}
	if gvk.Group == topology.Group {
		gvk.Version = "v1" // as typed converts it
	}
	if t := reflect.TypeOf(co); t.Kind() != reflect.Pointer || known[gvk] != t.Elem() {
		return nil, false
	}
	co.GetObjectKind().SetGroupVersionKind(gvk)
	return co, true
}

// typed is u converted to the typed object of gvk (the scheme's); u itself when the scheme does not
// know gvk.
func typed(scheme *runtime.Scheme, u *unstructured.Unstructured, gvk schema.GroupVersionKind) (client.Object, error) {
	if u.GroupVersionKind().Group == topology.Group {
		gvk.Version = "v1" // the version the state watches; the fields it reads are the same
	}
	if !scheme.Recognizes(gvk) {
		return u, nil
	}
	obj, err := scheme.New(gvk)
	if err != nil {
		return nil, err
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, obj); err != nil {
		return nil, fmt.Errorf("%s %s: %w", gvk.Kind, client.ObjectKeyFromObject(u), err)
	}
	co := obj.(client.Object)
	co.GetObjectKind().SetGroupVersionKind(gvk)
	return co, nil
}

// informers hands out one synced informer per group/kind and form, each delivering the objects of
// its group/kind to every handler added (as an informer's initial list does) and then each change.
// It implements what the state asks of a cache, and nothing else.
type informers struct {
	scheme *runtime.Scheme
	byKind map[informerKey]*informer
	objs   map[schema.GroupKind]map[client.ObjectKey]*unstructured.Unstructured
	// typed holds each object of a typed kind converted (the one conversion of each).
	typed map[*unstructured.Unstructured]client.Object
	// typedOnly are the objects given typed only (Options.Typed), by group/kind and key.
	typedOnly map[schema.GroupKind]map[client.ObjectKey]client.Object
}

// informerKey names one informer (group/kind and form), or one object (group/kind and key).
type informerKey struct {
	gk   schema.GroupKind
	form form
	key  client.ObjectKey
}

var _ cache.Informers = (*informers)(nil)

func (f *informers) GetInformer(_ context.Context, obj client.Object, _ ...cache.InformerGetOption) (cache.Informer, error) {
	gvk, err := apiutil.GVKForObject(obj, f.scheme)
	if err != nil {
		return nil, err
	}
	return f.forKind(gvk, formOf(obj)), nil
}

func (f *informers) GetInformerForKind(_ context.Context, gvk schema.GroupVersionKind, _ ...cache.InformerGetOption) (cache.Informer, error) {
	return f.forKind(gvk, unstructuredForm), nil
}

func (f *informers) RemoveInformer(context.Context, client.Object) error { return nil }

func (f *informers) Start(ctx context.Context) error {
	<-ctx.Done()
	return nil
}

func (f *informers) WaitForCacheSync(context.Context) bool { return true }

func (f *informers) IndexField(context.Context, client.Object, string, client.IndexerFunc) error {
	return nil
}

func (f *informers) forKind(gvk schema.GroupVersionKind, fm form) *informer {
	k := informerKey{gk: gvk.GroupKind(), form: fm}
	inf, ok := f.byKind[k]
	if !ok {
		inf = &informer{parent: f, gvk: gvk, form: fm}
		f.byKind[k] = inf
	}
	return inf
}

func (f *informers) set(u *unstructured.Unstructured) {
	gk := u.GroupVersionKind().GroupKind()
	if f.objs[gk] == nil {
		f.objs[gk] = map[client.ObjectKey]*unstructured.Unstructured{}
	}
	f.objs[gk][client.ObjectKeyFromObject(u)] = u
}

func (f *informers) unset(u *unstructured.Unstructured) {
	delete(f.objs[u.GroupVersionKind().GroupKind()], client.ObjectKeyFromObject(u))
}

// metadataOf is o as a metadata-only informer of gvk delivers it.
func metadataOf(o metav1.Object, gvk schema.GroupVersionKind) *metav1.PartialObjectMetadata {
	m := &metav1.PartialObjectMetadata{}
	m.SetGroupVersionKind(gvk)
	m.ObjectMeta = metav1.ObjectMeta{Name: o.GetName(), Namespace: o.GetNamespace(), Labels: o.GetLabels(), Annotations: o.GetAnnotations(),
		UID: o.GetUID(), Generation: o.GetGeneration(), ResourceVersion: o.GetResourceVersion(), CreationTimestamp: o.GetCreationTimestamp()}
	return m
}

// fromTyped is co, an object given typed only, as an informer of gvk in form fm delivers it.
func fromTyped(co client.Object, gvk schema.GroupVersionKind, fm form) (client.Object, error) {
	switch fm {
	case metadataForm:
		return metadataOf(co, gvk), nil
	case unstructuredForm:
		m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(co)
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", gvk.Kind, client.ObjectKeyFromObject(co), err)
		}
		u := &unstructured.Unstructured{Object: m}
		u.SetGroupVersionKind(gvk)
		return u, nil
	}
	return co, nil
}

// convert is u as an informer of gvk in form fm delivers it.
func (f *informers) convert(u *unstructured.Unstructured, gvk schema.GroupVersionKind, fm form) (client.Object, error) {
	if fm == typedForm {
		if co, ok := f.typed[u]; ok && co.GetObjectKind().GroupVersionKind().GroupKind() == gvk.GroupKind() {
			return co, nil
		}
	}
	return convert(f.scheme, u, gvk, fm)
}

// deliver sends u, as each informer of its group/kind delivers it, to their handlers: as a delete
// when deleted, else as a create.
func (f *informers) deliver(u *unstructured.Unstructured, deleted bool) error {
	gk := u.GroupVersionKind().GroupKind()
	for _, fm := range []form{typedForm, metadataForm, unstructuredForm} {
		inf, ok := f.byKind[informerKey{gk: gk, form: fm}]
		if !ok {
			continue
		}
		co, err := f.convert(u, inf.gvk, fm)
		if err != nil {
			return err
		}
		for _, h := range inf.handlers {
			if deleted {
				h.OnDelete(co)
			} else {
				h.OnAdd(co, false)
			}
		}
	}
	return nil
}

// informer is a synced informer of one group/kind and form that lists its objects to each handler
// added, in key order, and then delivers the changes deliver sends.
type informer struct {
	parent   *informers
	gvk      schema.GroupVersionKind
	form     form
	handlers []toolscache.ResourceEventHandler
}

var _ cache.Informer = (*informer)(nil)

func (i *informer) AddEventHandler(h toolscache.ResourceEventHandler) (toolscache.ResourceEventHandlerRegistration, error) {
	objs, typedOnly := i.parent.objs[i.gvk.GroupKind()], i.parent.typedOnly[i.gvk.GroupKind()]
	type named struct {
		key  client.ObjectKey
		name string // key.String(), made once: the order of the list
	}
	keys := make([]named, 0, len(objs)+len(typedOnly))
	for k := range objs {
		keys = append(keys, named{k, k.String()})
	}
	for k := range typedOnly {
		if _, both := objs[k]; !both { // an object added since under the same key replaced it
			keys = append(keys, named{k, k.String()})
		}
	}
	sort.Slice(keys, func(a, b int) bool { return keys[a].name < keys[b].name })
	for _, k := range keys {
		var co client.Object
		var err error
		if u, ok := objs[k.key]; ok {
			co, err = i.parent.convert(u, i.gvk, i.form)
		} else {
			co, err = fromTyped(typedOnly[k.key], i.gvk, i.form)
		}
		if err != nil {
			return nil, err
		}
		h.OnAdd(co, true)
	}
	i.handlers = append(i.handlers, h)
	return listed{}, nil
}

func (i *informer) AddEventHandlerWithResyncPeriod(h toolscache.ResourceEventHandler, _ time.Duration) (toolscache.ResourceEventHandlerRegistration, error) {
	return i.AddEventHandler(h)
}

func (i *informer) AddEventHandlerWithOptions(h toolscache.ResourceEventHandler, _ toolscache.HandlerOptions) (toolscache.ResourceEventHandlerRegistration, error) {
	return i.AddEventHandler(h)
}

func (i *informer) RemoveEventHandler(toolscache.ResourceEventHandlerRegistration) error { return nil }

func (i *informer) AddIndexers(toolscache.Indexers) error { return nil }

func (i *informer) HasSynced() bool { return true }

func (i *informer) HasSyncedChecker() toolscache.DoneChecker { return listed{} }

func (i *informer) IsStopped() bool { return false }

// listed is a handler registration, and the check of an informer, that has listed: every object
// is delivered before AddEventHandler returns.
type listed struct{}

func (listed) HasSynced() bool                          { return true }
func (listed) HasSyncedChecker() toolscache.DoneChecker { return listed{} }
func (listed) Name() string                             { return "memory" }
func (listed) Done() <-chan struct{}                    { return closed }

// closed is a closed channel: done.
var closed = func() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}()

// restMapper maps the group/kinds of installed to their versions, the first given of each winning.
func restMapper(installed []schema.GroupVersionKind) meta.RESTMapper {
	var gvs []schema.GroupVersion
	seen := map[schema.GroupVersion]bool{}
	for _, gvk := range installed {
		if gv := gvk.GroupVersion(); !seen[gv] {
			seen[gv] = true
			gvs = append(gvs, gv)
		}
	}
	m := meta.NewDefaultRESTMapper(gvs)
	for _, gvk := range installed {
		m.Add(gvk, meta.RESTScopeNamespace)
	}
	return m
}
