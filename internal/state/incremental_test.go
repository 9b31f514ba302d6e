package state_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/go-logr/logr"
	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/precedent-dev/precedent/cel"
	"github.com/precedent-dev/precedent/internal/effective"
	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/settings"
	"github.com/precedent-dev/precedent/internal/state"
	"github.com/precedent-dev/precedent/internal/state/statetest"
	"github.com/precedent-dev/precedent/internal/topology"
	"github.com/precedent-dev/precedent/test/gen"
	"github.com/precedent-dev/precedent/validate"
)

// The reference check of the incremental state: random changes reach a State through its informer
// event handlers, and after every change what the State's snapshot answers is compared with a
// snapshot built from scratch over the same objects.
const (
	referenceSeeds = 30
	referenceSteps = 120
)

// TestIncrementalMatchesFullBuild runs referenceSeeds churns of referenceSteps changes each (3,600
// changes, each compared with a full build).
func TestIncrementalMatchesFullBuild(t *testing.T) {
	for seed := int64(1); seed <= referenceSeeds; seed++ {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) { checkChurn(t, seed, referenceSteps) })
	}
}

// FuzzIncremental is the reference check over any seed, for longer runs (`make fuzz`).
func FuzzIncremental(f *testing.F) {
	for seed := int64(100); seed < 104; seed++ {
		f.Add(seed, uint8(60))
	}
	f.Fuzz(func(t *testing.T, seed int64, steps uint8) { checkChurn(t, seed, int(steps)) })
}

// cluster is the objects a churn has made so far, by kind and namespace/name.
type cluster map[string]client.Object

func objectKey(o client.Object) string {
	return fmt.Sprintf("%T/%s/%s", o, o.GetNamespace(), o.GetName())
}

// TestIncrementalMatchesFullBuildListenerSets is the reference check with ListenerSets, TLS, TCP
// and UDP routes in the churn (and policies on them).
func TestIncrementalMatchesFullBuildListenerSets(t *testing.T) {
	for seed := int64(1); seed <= referenceSeeds/2; seed++ {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) { checkChurnWith(t, seed, referenceSteps, true, false) })
	}
}

// checkChurn applies steps changes of the churn of seed and compares after each.
func checkChurn(t *testing.T, seed int64, steps int) { checkChurnWith(t, seed, steps, false, false) }

// TestIncrementalMatchesFullBuildReserved is the reference check with ListenerSets on a state whose
// maps were sized before Watch (Reserve, as package memory does), and Reserve called again after
// it (which must leave the maps the handlers write alone).
func TestIncrementalMatchesFullBuildReserved(t *testing.T) {
	for seed := int64(1); seed <= 5; seed++ {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) { checkChurnWith(t, seed, referenceSteps, true, true) })
	}
}

// checkChurnWith is checkChurn, with ListenerSets and L4 routes in the churn when listenerSets, and
// the state's maps reserved before and after Watch when reserve.
func checkChurnWith(t *testing.T, seed int64, steps int, listenerSets, reserve bool) {
	kind := settings.Defaults().Registry().Kinds()
	var k policy.Kind
	for _, x := range kind {
		if x.GVK == policy.Builtin()[1].GVK {
			k = x
		}
	}
	inf := statetest.New(t)
	st := state.New(logr.Discard())
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	counts := map[schema.GroupKind]int{k.GVK.GroupKind(): 40, {Kind: "Namespace"}: 10}
	for _, kind := range []string{"GatewayClass", "Gateway", "HTTPRoute", "GRPCRoute", "ListenerSet", "TLSRoute", "TCPRoute", "UDPRoute"} {
		counts[schema.GroupKind{Group: topology.Group, Kind: kind}] = 40
	}
	if reserve {
		st.Reserve(counts)
	}
	if err := st.Watch(ctx, inf, []policy.Kind{k}); err != nil {
		t.Fatal(err)
	}
	if reserve {
		st.Reserve(counts)
	}
	cond, err := cel.New(0)
	if err != nil {
		t.Fatal(err)
	}
	st.Snapshot(k, cond) // built once: every change after brings it forward
	churn := gen.NewChurn(seed, k)
	churn.ListenerSets = listenerSets
	have := cluster{}
	for step := 0; step < steps; step++ {
		ch := churn.Next()
		id := objectKey(ch.Object)
		old, exists := have[id]
		switch {
		case ch.Delete && exists:
			inf.Delete(t, old)
			delete(have, id)
		case ch.Delete:
			continue // nothing to delete
		case exists:
			inf.Update(t, old, ch.Object)
			have[id] = ch.Object
		default:
			inf.Add(t, ch.Object)
			have[id] = ch.Object
		}
		got := st.Fresh(k, cond)
		if got == nil {
			t.Fatalf("step %d: the snapshot was not brought forward by the change", step)
		}
		want := have.snapshot(k, cond)
		probe := churn.Policy()
		if diff := cmp.Diff(answers(want, probe), answers(got, probe)); diff != "" {
			t.Fatalf("seed %d step %d (%s delete=%v): the incremental state differs from a full build (-full +incremental):\n%s", seed, step, id, ch.Delete, diff)
		}
	}
}

// snapshot builds the snapshot of kind k over the cluster from scratch.
func (c cluster) snapshot(k policy.Kind, cond *cel.Evaluator) *effective.Snapshot {
	in := topology.Input{NamespaceLabels: map[string]map[string]string{}}
	var ps []*policy.Policy
	for _, o := range c {
		switch x := o.(type) {
		case *gwv1.Gateway:
			in.Gateways = append(in.Gateways, *x)
		case *gwv1.HTTPRoute:
			in.HTTPRoutes = append(in.HTTPRoutes, *x)
		case *gwv1.GRPCRoute:
			in.GRPCRoutes = append(in.GRPCRoutes, *x)
		case *gwv1.ListenerSet:
			in.ListenerSets = append(in.ListenerSets, *x)
		case *gwv1.TLSRoute:
			in.TLSRoutes = append(in.TLSRoutes, *x)
		case *gwv1.TCPRoute:
			in.TCPRoutes = append(in.TCPRoutes, *x)
		case *gwv1.UDPRoute:
			in.UDPRoutes = append(in.UDPRoutes, *x)
		case *metav1.PartialObjectMetadata:
			in.NamespaceLabels[x.Name] = x.Labels
		case *unstructured.Unstructured:
			if p, _ := policy.View(k, x); p != nil {
				ps = append(ps, p)
			}
		}
	}
	return effective.NewSnapshot(k, topology.Build(in), ps, cond)
}

// pathAnswer is the effective policy of one path and the events of its fold.
type pathAnswer struct {
	Path   topology.Path
	Rules  map[string]string
	Events []effective.Event
}

// answer is everything compared: the effective policy of every path (in path order), the items the
// CLI prints, and what a write of the probe policy, a delete of it and a delete of each policy
// warn or deny.
type answer struct {
	Paths    []pathAnswer
	Items    []effective.Item
	Write    []string
	Stateful []string
	Deletes  map[string][]string
}

func answers(s *effective.Snapshot, probe *policy.Policy) answer {
	var a answer
	for _, i := range s.Graph.PathIndexes() {
		r := s.ComputePath(i)
		pa := pathAnswer{Path: s.Graph.Paths[i], Rules: map[string]string{}, Events: r.Events}
		for id, e := range r.Rules {
			pa.Rules[id] = fmt.Sprintf("%s %s %v", e.Source, e.Block, e.Body)
		}
		a.Paths = append(a.Paths, pa)
	}
	a.Items = s.Items(s.Reached(nil))
	a.Write = validate.Project(s, probe.Ref, probe)
	errs, warns := validate.Stateful(s, probe, settings.Defaults())
	a.Stateful = append(warns, fmt.Sprint(errs))
	a.Deletes = map[string][]string{}
	for _, p := range s.Policies() {
		a.Deletes[p.Ref.String()] = validate.Project(s, p.Ref, nil)
	}
	return a
}

// TestReadsDuringChanges: requests read snapshots and project writes while changes are applied
// (run with -race: readers share the versions the writer makes from), and the state the changes
// leave is that of a full build.
func TestReadsDuringChanges(t *testing.T) {
	var k policy.Kind
	for _, x := range settings.Defaults().Registry().Kinds() {
		if x.GVK == policy.Builtin()[1].GVK {
			k = x
		}
	}
	st, inf := watching(t, k)
	cond, err := cel.New(0)
	if err != nil {
		t.Fatal(err)
	}
	st.Snapshot(k, cond)
	done := make(chan struct{})
	read := make(chan int)
	for r := 0; r < 2; r++ {
		go func(r int) {
			probes := gen.NewChurn(int64(1000+r), k)
			n := 0
			for {
				select {
				case <-done:
					read <- n
					return
				default:
				}
				s := st.Snapshot(k, cond)
				p := probes.Policy()
				validate.Project(s, p.Ref, p)
				s.Items(s.Reached(nil))
				n++
			}
		}(r)
	}
	churn := gen.NewChurn(7, k)
	have := cluster{}
	for step := 0; step < 300; step++ {
		ch := churn.Next()
		id := objectKey(ch.Object)
		switch old, exists := have[id]; {
		case ch.Delete && exists:
			inf.Delete(t, old)
			delete(have, id)
		case ch.Delete:
		case exists:
			inf.Update(t, old, ch.Object)
			have[id] = ch.Object
		default:
			inf.Add(t, ch.Object)
			have[id] = ch.Object
		}
	}
	close(done)
	<-read
	<-read
	probe := churn.Policy()
	if diff := cmp.Diff(answers(have.snapshot(k, cond), probe), answers(st.Snapshot(k, cond), probe)); diff != "" {
		t.Fatalf("after the changes, the state differs from a full build (-full +incremental):\n%s", diff)
	}
}

// watching is a State watching kind k through fake informers; its background work stops when the
// test ends.
func watching(t *testing.T, k policy.Kind) (*state.State, *statetest.Informers) {
	t.Helper()
	inf := statetest.New(t)
	st := state.New(logr.Discard())
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	if err := st.Watch(ctx, inf, []policy.Kind{k}); err != nil {
		t.Fatal(err)
	}
	return st, inf
}
