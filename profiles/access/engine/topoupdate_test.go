package engine

import (
	"flag"
	"fmt"
	"maps"
	"math/rand"
	"reflect"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// Sizes of the property test: seeds × steps, each step compared with a full build. Run longer with
// go test ./access -run Incremental -incremental-seeds 2000.
var incrementalSeeds = flag.Int("incremental-seeds", 80, "seeds of TestIncrementalMatchesFullBuild")

const incrementalSteps = 40

// TestIncrementalMatchesFullBuild applies seeded random sequences of Gateway, HTTPRoute, Namespace
// and policy creates, updates and deletes with Topology.With*, Grants.WithTopology and Grants.Update.
// After every step it compares the topology (and the link counts it keeps), the Gateways reported
// changed, the grants behind every Gateway and the warnings of probe writes and deletes with a fresh
// TopologyOf and NewGrants over the same objects; and checks that the versions before the step
// still answer as they did.
func TestIncrementalMatchesFullBuild(t *testing.T) {
	kinds := map[string]int{}
	changes, warned, linked := 0, 0, 0 // steps that changed some Gateway's Backends, probe answers with warnings, links
	for seed := int64(0); seed < int64(*incrementalSeeds); seed++ {
		w := newWorld(rand.New(rand.NewSource(seed)), seed%3 != 2)
		s := DefaultSettings()
		if seed%2 == 1 {
			s = withCombine(AllAllow)
		}
		fresh := w.topology(s)
		topo := &fresh
		g := NewGrants(w.ps, topo, s)
		for step := 0; step < incrementalSteps; step++ {
			probes := probeWrites(w.r, w.ps, w.gatewayNames)
			prevTopo, prevG, prevPs := dumpTopology(topo), g, slices.Clone(w.ps)
			prevAnswers := answers(g, probes, prevPs)
			oldTopo := topo

			kind := w.step()
			kinds[kind]++
			var changed []string
			switch kind {
			case "gateway":
				topo, changed = topo.WithGateway(w.lastKey, w.gws[w.lastKey])
			case "route":
				topo, changed = topo.WithHTTPRoute(w.lastKey, w.routes[w.lastKey])
			case "namespace":
				labels, ok := w.ns[w.lastKey]
				if ok && labels == nil {
					labels = map[string]string{}
				}
				topo, changed = topo.WithNamespace(w.lastKey, labels)
			}
			if kind == "policy" {
				g = g.Update(w.lastKey, w.lastPolicy)
			} else {
				g = g.WithTopology(topo, changed)
			}

			at := fmt.Sprintf("seed %d step %d (%s %s)", seed, step, kind, w.lastKey)
			if diff := diffIfUnequal(prevTopo, dumpTopology(oldTopo)); diff != "" {
				t.Fatalf("%s: the topology before the step changed (-before +after):\n%s", at, diff)
			}
			if diff := diffIfUnequal(prevAnswers, answers(prevG, probes, prevPs)); diff != "" {
				t.Fatalf("%s: the grants before the step changed (-before +after):\n%s", at, diff)
			}
			got := dumpTopology(topo)
			if diff := diffIfUnequal(changedGateways(prevTopo, got), changed); diff != "" {
				t.Fatalf("%s: Gateways reported changed (-want +got):\n%s", at, diff)
			}
			ref := w.topology(s)
			if diff := diffIfUnequal(dumpTopology(&ref), got); diff != "" {
				t.Fatalf("%s: topology (-full build +incremental):\n%s", at, diff)
			}
			full := NewGrants(w.ps, &ref, s)
			if diff := diffIfUnequal(dumpGrants(full), dumpGrants(g)); diff != "" {
				t.Fatalf("%s: grants behind the Gateways (-full build +incremental):\n%s", at, diff)
			}
			probes = probeWrites(w.r, w.ps, w.gatewayNames)
			want := answers(full, probes, w.ps)
			if diff := diffIfUnequal(want, answers(g, probes, w.ps)); diff != "" {
				t.Fatalf("%s: warnings (-full build +incremental):\n%s", at, diff)
			}
			if diff := diffIfUnequal(referenceAnswers(w.ps, &ref, s, probes), want); diff != "" {
				t.Fatalf("%s: warnings (-ProjectWrite/ProjectDelete +Grants):\n%s", at, diff)
			}
			if len(changed) > 0 {
				changes++
			}
			for _, ws := range want {
				if len(ws) > 0 {
					warned++
				}
			}
			linked += len(got.Links)
		}
	}
	steps := *incrementalSeeds * incrementalSteps
	t.Logf("%d seeds × %d steps: %v; %d steps changed a Gateway's Backends, %d probe answers warned, %.1f links a step",
		*incrementalSeeds, incrementalSteps, kinds, changes, warned, float64(linked)/float64(steps))
	if changes < steps/8 || warned < steps || linked < 3*steps {
		t.Errorf("the random worlds are too quiet to compare: %d changes, %d warnings, %d links over %d steps", changes, warned, linked, steps)
	}
}

// referenceAnswers are answers computed by ProjectWrite and ProjectDelete over ps and topo.
func referenceAnswers(ps []Policy, topo *Topology, s Settings, probes []Policy) [][]string {
	var out [][]string
	for _, w := range probes {
		out = append(out, ProjectWrite(w, ps, topo, s, 5))
	}
	for _, d := range ps {
		out = append(out, ProjectDelete(d, ps, topo, s, 5))
	}
	return out
}

// TestWithLeavesOldVersion: each With* leaves the topology it is called on as it was.
func TestWithLeavesOldVersion(t *testing.T) {
	gw := &gatewayv1.Gateway{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "gw-a"}, Spec: gatewayv1.GatewaySpec{
		Listeners: []gatewayv1.Listener{{Name: "l", Port: 80, Protocol: gatewayv1.HTTPProtocolType, AllowedRoutes: &gatewayv1.AllowedRoutes{
			Namespaces: &gatewayv1.RouteNamespaces{From: ptr.To(gatewayv1.NamespacesFromSelector), Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"env": "prod"}}}}}}}}
	route := func(ns, backend string) *gatewayv1.HTTPRoute {
		return &gatewayv1.HTTPRoute{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "r"}, Spec: gatewayv1.HTTPRouteSpec{
			CommonRouteSpec: gatewayv1.CommonRouteSpec{ParentRefs: []gatewayv1.ParentReference{{Name: "gw-a", Namespace: ptr.To(gatewayv1.Namespace("ns"))}}},
			Rules: []gatewayv1.HTTPRouteRule{{BackendRefs: []gatewayv1.HTTPBackendRef{{BackendRef: gatewayv1.BackendRef{BackendObjectReference: gatewayv1.BackendObjectReference{
				Group: ptr.To(gatewayv1.Group(DefaultBackendGroup)), Kind: ptr.To(gatewayv1.Kind(DefaultBackendKind)), Name: gatewayv1.ObjectName(backend), Namespace: ptr.To(gatewayv1.Namespace("ns"))}}}}}}}}
	}
	base := TopologyOf([]*gatewayv1.Gateway{gw}, []*gatewayv1.HTTPRoute{route("apps", "be-0")}, map[string]map[string]string{"apps": {"env": "prod"}}, DefaultSettings())
	want := dumpTopology(&base)
	if len(want.Backends["ns/gw-a"]) != 1 {
		t.Fatalf("the base topology links nothing: %+v", want)
	}
	for name, with := range map[string]func(*Topology) (*Topology, []string){
		"gateway changed": func(t *Topology) (*Topology, []string) {
			closed := gw.DeepCopy()
			closed.Spec.Listeners[0].Protocol = gatewayv1.TCPProtocolType
			return t.WithGateway("ns/gw-a", closed)
		},
		"route deleted": func(t *Topology) (*Topology, []string) { return t.WithHTTPRoute("apps/r", nil) },
		"route moved":   func(t *Topology) (*Topology, []string) { return t.WithHTTPRoute("apps/r", route("apps", "be-1")) },
		"route added":   func(t *Topology) (*Topology, []string) { return t.WithHTTPRoute("apps/r2", route("apps", "be-2")) },
		"namespace relabeled": func(t *Topology) (*Topology, []string) {
			return t.WithNamespace("apps", map[string]string{"env": "dev"})
		},
	} {
		next, changed := with(&base)
		if diff := cmp.Diff(want, dumpTopology(&base)); diff != "" {
			t.Errorf("%s: the old version changed (-before +after):\n%s", name, diff)
		}
		if diff := cmp.Diff([]string{"ns/gw-a"}, changed); diff != "" {
			t.Errorf("%s: changed (-want +got):\n%s", name, diff)
		}
		if cmp.Equal(want, dumpTopology(next)) {
			t.Errorf("%s: the new version is the old one", name)
		}
	}
}

// diffIfUnequal is cmp.Diff, skipped when the values are deeply equal (the usual case, and faster).
func diffIfUnequal[T any](want, got T, opts ...cmp.Option) string {
	if reflect.DeepEqual(want, got) {
		return ""
	}
	return cmp.Diff(want, got, opts...)
}

// topoDump is a topology's links as plain maps, for comparing.
type topoDump struct {
	Backends, Gateways map[string][]string
	Links              map[string]int32
}

func dumpTopology(t *Topology) topoDump {
	return topoDump{Backends: contents(t.backends), Gateways: contents(t.gateways), Links: contents(t.links)}
}

// changedGateways are the Gateways whose Backends differ between two dumps, sorted.
func changedGateways(a, b topoDump) []string {
	var out []string
	for gw, l := range a.Backends {
		if !slices.Equal(l, b.Backends[gw]) {
			out = append(out, gw)
		}
	}
	for gw := range b.Backends {
		if _, ok := a.Backends[gw]; !ok {
			out = append(out, gw)
		}
	}
	slices.Sort(out)
	return out
}

// grantsView is the grants behind one Gateway in plain values: every grant in order, and per
// source (and tool) the counts and Backends the indexes hold.
type grantsView struct {
	Total   int
	Order   []string
	Sources map[string]string
}

func dumpGrants(g *Grants) map[string]grantsView {
	out := map[string]grantsView{}
	for gw, gg := range entries(&g.behind) {
		v := grantsView{Total: gg.total, Sources: map[string]string{}}
		for b, c := range inOrder(&gg.chunks) {
			for _, o := range c.order {
				v.Order = append(v.Order, fmt.Sprintf("%s %s %v %q %v", b, o.policy, o.source, o.tool, o.any))
			}
		}
		for k, sg := range entries(&gg.sources) {
			d := fmt.Sprintf("inline %d at %v, any %d at %v, tools", sg.inline, keysOf(sg.inlineAt), sg.any, keysOf(sg.anyAt))
			tools := contents(sg.tools)
			for _, t := range slices.Sorted(maps.Keys(tools)) {
				d += fmt.Sprintf(" %s: %d at %v", t, tools[t].count, keysOf(tools[t].at))
			}
			v.Sources[k] = d
		}
		out[gw] = v
	}
	return out
}

func keysOf(m ordered[struct{}]) []string {
	var out []string
	for k := range inOrder(&m) {
		out = append(out, k)
	}
	return out
}

func contents[V any](m keyed[V]) map[string]V {
	return maps.Collect(entries(&m))
}

// world is the objects of a random cluster, changed one at a time by step.
type world struct {
	r            *rand.Rand
	known        bool // namespace labels known (else TopologyOf gets nil until a namespace event)
	gws          map[string]*gatewayv1.Gateway
	routes       map[string]*gatewayv1.HTTPRoute
	ns           map[string]map[string]string
	ps           []Policy // sorted by key
	gatewayNames []string // the Gateways policies target, in namespace ns
	lastKey      string
	lastPolicy   *Policy
}

var (
	worldNamespaces = []string{"ns", "ns-x", "ns-y"}
	worldGateways   = []string{"gw-a", "gw-b", "gw-c", "gw-d"} // gw-d is never created
)

func newWorld(r *rand.Rand, known bool) *world {
	w := &world{r: r, known: known, gws: map[string]*gatewayv1.Gateway{}, routes: map[string]*gatewayv1.HTTPRoute{},
		ns: map[string]map[string]string{}, gatewayNames: []string{"gw-a", "gw-b", "gw-c"}}
	if known {
		for _, n := range worldNamespaces {
			w.ns[n] = randomLabels(r)
		}
	}
	for _, name := range worldGateways[:3] {
		w.gws["ns/"+name] = randomGateway(r, name)
	}
	for i := 0; i < 4+r.Intn(8); i++ {
		rt := randomRoute(r, worldNamespaces[r.Intn(len(worldNamespaces))], fmt.Sprintf("r-%d", i))
		w.routes[rt.Namespace+"/"+rt.Name] = rt
	}
	for i, n := 0, 2+r.Intn(6); i < n; i++ {
		w.ps = append(w.ps, randomPolicy(r, fmt.Sprintf("ns/gp-%d", i), true, w.gatewayNames, 6))
	}
	for i, n := 0, 2+r.Intn(10); i < n; i++ {
		w.ps = append(w.ps, randomPolicy(r, fmt.Sprintf("ns/bp-%d", i), false, w.gatewayNames, 6))
	}
	sortByKey(w.ps)
	return w
}

// topology is the full build over w's objects.
func (w *world) topology(s Settings) Topology {
	var nsLabels map[string]map[string]string
	if w.known {
		nsLabels = w.ns
	}
	return TopologyOf(slices.Collect(maps.Values(w.gws)), slices.Collect(maps.Values(w.routes)), nsLabels, s)
}

// step changes one object at random and returns its kind; lastKey names it.
func (w *world) step() string {
	r := w.r
	switch k := r.Intn(20); {
	case k < 5:
		name := worldGateways[r.Intn(3)]
		w.lastKey = "ns/" + name
		if r.Intn(5) == 0 {
			delete(w.gws, w.lastKey)
		} else {
			w.gws[w.lastKey] = randomGateway(r, name)
		}
		return "gateway"
	case k < 12:
		rt := randomRoute(r, worldNamespaces[r.Intn(len(worldNamespaces))], fmt.Sprintf("r-%d", r.Intn(12)))
		w.lastKey = rt.Namespace + "/" + rt.Name
		if r.Intn(4) == 0 {
			delete(w.routes, w.lastKey)
		} else {
			w.routes[w.lastKey] = rt
		}
		return "route"
	case k < 15:
		w.lastKey = worldNamespaces[r.Intn(len(worldNamespaces))]
		w.known = true
		if r.Intn(5) == 0 {
			delete(w.ns, w.lastKey)
		} else {
			w.ns[w.lastKey] = randomLabels(r)
		}
		return "namespace"
	}
	w.lastKey = fmt.Sprintf("ns/p-%d", r.Intn(12))
	if r.Intn(2) == 0 && len(w.ps) > 0 {
		w.lastKey = w.ps[r.Intn(len(w.ps))].Key()
	}
	w.ps = slices.DeleteFunc(slices.Clone(w.ps), func(q Policy) bool { return q.Key() == w.lastKey })
	w.lastPolicy = nil
	if r.Intn(4) != 0 {
		q := randomPolicy(r, w.lastKey, r.Intn(2) == 0, w.gatewayNames, 6)
		w.lastPolicy = &q
		w.ps = append(w.ps, q)
		sortByKey(w.ps)
	}
	return "policy"
}
