package source

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/precedent-dev/precedent/cel"
	"github.com/precedent-dev/precedent/internal/effective"
	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/topology"
)

// Object is a stored Kubernetes object (what controller-runtime calls client.Object).
type Object interface {
	metav1.Object
	runtime.Object
}

// Labeled is a topology object with its labels, what label selectors select.
type Labeled struct {
	Kind, Namespace, Name string
	Labels                map[string]string
}

// A profile keeps its own caches derived from the source (the access grants, the mesh indexes, Envoy
// Gateway's snapshot) as Derivations: the source stores each value with the versions of what it was
// built from, brings it forward with each event it reads when the profile says how (Next), and
// builds it whole otherwise, on the next use or off the request path.

// Event is one change the state applies, as a derived cache's Next sees it.
type Event struct {
	// GroupKind is the kind of Object.
	GroupKind schema.GroupKind
	// Object is the object as stored after the change; for a delete, as last known. Informer objects
	// are shared: read only.
	Object Object
	// Old is the object before an update, nil for an add or a delete.
	Old Object
	// Deleted is true when Object was deleted.
	Deleted bool
	// Topology is true for an event of the Gateway API topology (GatewayClass, Gateway, ListenerSet,
	// a route) or of a Namespace: an event that changes the graph.
	Topology bool
	// Graph is, for a topology event, the graph after it when the state brings its graph forward
	// with the event (nil otherwise): what a Next that reads the topology steps onto.
	Graph *topology.Graph
}

// Derivation is one cache a profile derives from the state, and how to keep it.
type Derivation struct {
	// Key names the cache: calls with one key share one value.
	Key string
	// Kinds are the kinds whose objects the value reads (policies, the kinds a profile reads or the
	// state watches for it), not the topology's: an event of one of them changes it.
	Kinds []schema.GroupKind
	// Topology says the value reads the topology as well (Graph, Labeled, HTTPTopology): every
	// topology event changes it.
	Topology bool
	// Params is what else the value depends on (settings), compared with ==, so it must be comparable;
	// nil for nothing. A call with other Params builds the value anew and keeps that one.
	Params any
	// Build computes the value whole. It runs without the state's locks and may read the state
	// (Objects, Graph, Labeled, HTTPTopology, other derived values).
	Build func() any
	// Next, when set, brings a value current before event e forward to the version after it: e is of
	// one of Kinds, or a topology event when Topology is set. It runs while the state applies e, with
	// the state's build lock held and the state's lock not (requests go on reading prev), and its
	// result is published with the event: a request sees both or neither. It returns nil when it
	// cannot: the value is built whole on its next use. Next must not call Derive, Graph, Snapshot or
	// PrepareSnapshots; prev is shared: return a new value, never modify prev.
	Next func(prev any, e Event) any
}

// Source is the cluster as a profile reads it. Every read is of the events applied so far; the
// objects returned are shared: read only.
type Source interface {
	// Evaluator returns the CEL evaluator of the cost limit, compiled once per limit.
	Evaluator(costLimit uint64) (*cel.Evaluator, error)
	// Snapshot returns the engine's snapshot of kind k under cond, current with the events applied.
	Snapshot(k policy.Kind, cond *cel.Evaluator) *effective.Snapshot
	// PrepareSnapshots builds the snapshots of kinds before a replica reports ready.
	PrepareSnapshots(kinds []policy.Kind, costLimit uint64) error
	// KindSynced reports whether the policies of gk are watched and listed.
	KindSynced(gk schema.GroupKind) bool
	// WatchKinds watches the policies of kinds not watched yet.
	WatchKinds(kinds []policy.Kind) error
	// WatchRead watches the objects of gk, a kind a profile reads, from its first use; ready
	// reports whether they are listed, or that gk is not installed.
	WatchRead(gk schema.GroupKind) (ready bool, err error)
	// Watched reports whether the objects of gk are watched.
	Watched(gk schema.GroupKind) bool
	// Objects returns the stored objects of a watched kind, in no order.
	Objects(gk schema.GroupKind) []*unstructured.Unstructured
	// Graph returns the Gateway API topology graph.
	Graph() *topology.Graph
	// Labeled lists the Gateways and routes with their labels, and the labels of each namespace.
	Labeled() ([]Labeled, map[string]map[string]string)
	// HTTPTopology lists the Gateways and HTTPRoutes, and the labels of each namespace.
	HTTPTopology() ([]*gwv1.Gateway, []*gwv1.HTTPRoute, map[string]map[string]string)
	// GatewayExists reports whether the Gateway n exists.
	GatewayExists(n types.NamespacedName) bool
	// BackendExists reports whether the Backend n of kind gk exists, and whether that is known.
	BackendExists(gk schema.GroupKind, n types.NamespacedName) (exists, known bool)
	// Derive returns the value of the derived cache d, kept current with the events it reads.
	Derive(d Derivation) any
}
