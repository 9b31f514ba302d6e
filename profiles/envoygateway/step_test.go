package envoygateway

import (
	"context"
	"fmt"
	"math/rand"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/precedent-dev/precedent/internal/effective"
	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/profile"
	"github.com/precedent-dev/precedent/internal/source"
	"github.com/precedent-dev/precedent/internal/state"
	"github.com/precedent-dev/precedent/internal/state/statetest"
	engine "github.com/precedent-dev/precedent/profiles/envoygateway/engine"
)

// TestWorldStepsMatchWholeBuild applies seeded random sequences of events through the State's
// informer handlers: SecurityPolicy and BackendTrafficPolicy creates, updates and deletes (targets,
// sections, selectors, mergeType, age), now and then a route or Gateway change. After every event it
// checks that a policy event was stepped (the world is not built again), and compares the world the
// events brought forward with one built whole from the same state: the effective items of each kind,
// and the projection of a write or delete of every stored policy and of probe policies.
func TestWorldStepsMatchWholeBuild(t *testing.T) {
	compared := 0
	for seed := int64(1); seed <= 8; seed++ {
		compared += checkWorldChurn(t, seed, 40)
	}
	t.Logf("%d events compared, each stepped", compared)
}

// churn is the state of one sequence: the informers, the kinds, and what has been delivered.
type churn struct {
	t        *testing.T
	r        *rand.Rand
	st       *state.State
	inf      *statetest.Informers
	reg      *policy.Registry
	policies map[string]*unstructured.Unstructured
	routes   map[string]*gwv1.HTTPRoute
	gateways map[string]*gwv1.Gateway
	lsets    map[string]*gwv1.ListenerSet
	classes  map[string]*gwv1.GatewayClass
	others   map[string]client.Object // the objects of the namespaces' test, by kind and name
}

var stepKinds = []string{engine.SecurityPolicy, engine.BackendTrafficPolicy, engine.ClientTrafficPolicy}

// newChurn is a churn over a state whose profile reads are those mapper maps (none: the world reads
// only the topology and the policies).
func newChurn(t *testing.T, seed int64, mapper meta.RESTMapper) *churn {
	kinds := []policy.Kind{kind(engine.SecurityPolicy, nil), kind(engine.BackendTrafficPolicy, nil), kind(engine.ClientTrafficPolicy, nil)}
	c := &churn{t: t, r: rand.New(rand.NewSource(seed)), st: state.New(logr.Discard()), inf: statetest.New(t), reg: policy.NewRegistry(kinds...),
		policies: map[string]*unstructured.Unstructured{}, routes: map[string]*gwv1.HTTPRoute{}, gateways: map[string]*gwv1.Gateway{},
		lsets: map[string]*gwv1.ListenerSet{}, classes: map[string]*gwv1.GatewayClass{}, others: map[string]client.Object{}}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	if err := c.st.Watch(ctx, c.inf, kinds); err != nil {
		t.Fatal(err)
	}
	// The kinds the profile reads besides the topology are not installed but for those of mapper (the
	// fake informers would hand the typed ListenerSets to an unstructured watch): WithObject has its
	// own test.
	if err := c.st.WatchProfiles(ctx, c.inf, mapper, nil, schema.GroupKind{}); err != nil {
		t.Fatal(err)
	}
	if err := profile.Listed(c.st, Name, c.reg, reads...); err != nil {
		t.Fatal(err)
	}
	c.deliverClass("eg", engine.ControllerName)
	c.deliverClass("other", "example.com/other")
	for g := 0; g < 3; g++ {
		c.deliverGateway(fmt.Sprintf("gw-%d", g))
	}
	c.deliverListenerSet("ls-0", false)
	for i := 0; i < 6; i++ {
		c.deliverRoute(fmt.Sprintf("r-%d", i))
	}
	for i := 0; i < 6; i++ {
		c.deliverPolicy(fmt.Sprintf("p-%d", i), false)
	}
	return c
}

// deliverGateway adds or updates Gateway name: class eg (gw-2: other), listeners http and https, or
// http alone.
func (c *churn) deliverGateway(name string) {
	class := "eg"
	if name == "gw-2" {
		class = "other"
	}
	ls := []gwv1.Listener{{Name: "http", Port: 80, Protocol: gwv1.HTTPProtocolType}}
	if c.r.Intn(3) > 0 { // on port 80 too, sometimes: a ClientTrafficPolicy on one of them is Invalid
		ls = append(ls, gwv1.Listener{Name: "https", Port: []gwv1.PortNumber{80, 443}[c.r.Intn(2)], Protocol: gwv1.HTTPProtocolType, Hostname: ptr.To(gwv1.Hostname("*.example.com"))})
	}
	gw := &gwv1.Gateway{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: name, Generation: 1, Labels: map[string]string{"tier": []string{"front", "back"}[c.r.Intn(2)]}},
		Spec: gwv1.GatewaySpec{GatewayClassName: gwv1.ObjectName(class), Listeners: ls}}
	if c.r.Intn(3) > 0 {
		gw.Spec.AllowedListeners = &gwv1.AllowedListeners{Namespaces: &gwv1.ListenerNamespaces{From: ptr.To(gwv1.NamespacesFromSame)}}
	}
	old, ok := c.gateways[name]
	c.deliver(gw, old, ok)
	c.gateways[name] = gw
}

// deliverClass adds or updates GatewayClass name with controller ctrl.
func (c *churn) deliverClass(name, ctrl string) {
	gc := &gwv1.GatewayClass{ObjectMeta: metav1.ObjectMeta{Name: name, Generation: 1}, Spec: gwv1.GatewayClassSpec{ControllerName: gwv1.GatewayController(ctrl)}}
	old, ok := c.classes[name]
	c.deliver(gc, old, ok)
	c.classes[name] = gc
}

// deliverListenerSet adds, updates or (del) deletes ListenerSet name: on gw-0 or gw-1, with
// listener extra, and team-http sometimes, labelled by tier.
func (c *churn) deliverListenerSet(name string, del bool) {
	old, ok := c.lsets[name]
	if del {
		if ok {
			c.inf.Delete(c.t, old)
			delete(c.lsets, name)
		}
		return
	}
	ls := &gwv1.ListenerSet{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: name, Generation: 1, Labels: map[string]string{"tier": []string{"front", "back"}[c.r.Intn(2)]}}}
	ls.Spec.ParentRef = gwv1.ParentGatewayReference{Name: gwv1.ObjectName(fmt.Sprintf("gw-%d", c.r.Intn(2)))}
	ls.Spec.Listeners = []gwv1.ListenerEntry{{Name: "extra", Port: []gwv1.PortNumber{80, 8080}[c.r.Intn(2)], Protocol: gwv1.HTTPProtocolType}}
	if c.r.Intn(2) == 0 {
		ls.Spec.Listeners = append(ls.Spec.Listeners, gwv1.ListenerEntry{Name: "team-http", Port: 8081, Protocol: gwv1.HTTPProtocolType})
	}
	c.deliver(ls, old, ok)
	c.lsets[name] = ls
}

// deleteRoute deletes HTTPRoute name, if there.
func (c *churn) deleteRoute(name string) {
	if old, ok := c.routes[name]; ok {
		c.inf.Delete(c.t, old)
		delete(c.routes, name)
	}
}

// deliverRoute adds or updates HTTPRoute name: on one or two Gateways (a listener of one, sometimes),
// with rules a and b, labelled by tier.
func (c *churn) deliverRoute(name string) {
	rt := &gwv1.HTTPRoute{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: name, Generation: 1, Labels: map[string]string{"tier": []string{"front", "back"}[c.r.Intn(2)]}}}
	for g := 0; g < 3; g++ {
		if c.r.Intn(2) == 0 {
			pr := gwv1.ParentReference{Name: gwv1.ObjectName(fmt.Sprintf("gw-%d", g))}
			if c.r.Intn(3) == 0 {
				pr.SectionName = ptr.To(gwv1.SectionName("http"))
			}
			if c.r.Intn(4) == 0 {
				pr = gwv1.ParentReference{Kind: ptr.To(gwv1.Kind("ListenerSet")), Name: gwv1.ObjectName(fmt.Sprintf("ls-%d", g%2))}
			}
			rt.Spec.ParentRefs = append(rt.Spec.ParentRefs, pr)
		}
	}
	rt.Spec.Hostnames = []gwv1.Hostname{"shop.example.com"}
	rt.Spec.Rules = []gwv1.HTTPRouteRule{{Name: ptr.To(gwv1.SectionName("a"))}, {Name: ptr.To(gwv1.SectionName("b"))}}
	old, ok := c.routes[name]
	c.deliver(rt, old, ok)
	c.routes[name] = rt
}

// deliver adds cur, or updates old to cur (a new generation).
func (c *churn) deliver(cur, old client.Object, exists bool) {
	if !exists {
		c.inf.Add(c.t, cur)
		return
	}
	cur.SetGeneration(old.GetGeneration() + 1)
	c.inf.Update(c.t, old, cur)
}

// deliverPolicy creates, updates or (del) deletes policy name: SecurityPolicies, BackendTrafficPolicies
// and ClientTrafficPolicies by the name's number mod 3, created at one of three times (ties ordered by name).
func (c *churn) deliverPolicy(name string, del bool) {
	old := c.policies[name]
	if del {
		c.inf.Delete(c.t, old)
		delete(c.policies, name)
		return
	}
	u := c.randomPolicy(name)
	if old != nil {
		u.SetCreationTimestamp(old.GetCreationTimestamp())
		c.inf.Update(c.t, old, u)
	} else {
		c.inf.Add(c.t, u)
	}
	c.policies[name] = u
}

func (c *churn) randomPolicy(name string) *unstructured.Unstructured {
	var n int
	fmt.Sscanf(name, "p-%d", &n)
	k := stepKinds[n%3]
	spec := map[string]interface{}{}
	routeOnly := true
	var refs []interface{}
	for i := c.r.Intn(2) + 1; i > 0; i-- {
		ref := map[string]interface{}{"group": gwv1.GroupName}
		switch c.r.Intn(5) {
		case 0:
			ref["kind"], ref["name"] = "Gateway", fmt.Sprintf("gw-%d", c.r.Intn(4)) // gw-3: missing
			routeOnly = false
			if c.r.Intn(2) == 0 {
				ref["sectionName"] = []string{"http", "https"}[c.r.Intn(2)]
			}
		default:
			ref["kind"], ref["name"] = "HTTPRoute", fmt.Sprintf("r-%d", c.r.Intn(7)) // r-6: missing
			if c.r.Intn(3) == 0 {
				ref["sectionName"] = []string{"a", "b", "c"}[c.r.Intn(3)]
			}
		}
		refs = append(refs, ref)
	}
	if k == engine.ClientTrafficPolicy {
		refs, routeOnly = c.listenerRefs(), false
	}
	spec["targetRefs"] = refs
	if c.r.Intn(5) == 0 {
		spec["targetSelectors"] = []interface{}{map[string]interface{}{"group": gwv1.GroupName, "kind": []string{"HTTPRoute", "Gateway", "ListenerSet"}[c.r.Intn(3)],
			"matchLabels": map[string]interface{}{"tier": []string{"front", "back"}[c.r.Intn(2)]}}}
	}
	if routeOnly && c.r.Intn(2) == 0 {
		spec["mergeType"] = []string{"StrategicMerge", "JSONMerge"}[c.r.Intn(2)]
	}
	v := c.r.Intn(3)
	switch k {
	case engine.ClientTrafficPolicy:
		spec["timeout"] = map[string]interface{}{"http": map[string]interface{}{"idleTimeout": fmt.Sprintf("%ds", 1+v)}}
	case engine.SecurityPolicy:
		spec["cors"] = map[string]interface{}{"allowOrigins": []interface{}{fmt.Sprintf("https://v%d.example.com", v)}}
		if c.r.Intn(2) == 0 {
			spec["authorization"] = map[string]interface{}{"defaultAction": []string{"Allow", "Deny"}[c.r.Intn(2)]}
		}
	default:
		spec["timeout"] = map[string]interface{}{"http": map[string]interface{}{"requestTimeout": fmt.Sprintf("%ds", 1+v)}}
		if c.r.Intn(2) == 0 {
			spec["retry"] = map[string]interface{}{"numRetries": int64(1 + c.r.Intn(3))}
		}
	}
	u := &unstructured.Unstructured{Object: map[string]interface{}{"apiVersion": engine.Group + "/v1alpha1", "kind": k,
		"metadata": map[string]interface{}{"namespace": "shop", "name": name}, "spec": spec}}
	u.SetCreationTimestamp(metav1.NewTime(time.Date(2025, 1, 1, c.r.Intn(3), 0, 0, 0, time.UTC)))
	return u
}

// randomEvent delivers one random event and names its kind: mostly policies, now and then a route,
// Gateway, ListenerSet or GatewayClass.
func (c *churn) randomEvent() string {
	switch x := c.r.Intn(14); {
	case x == 0:
		c.deliverRoute(fmt.Sprintf("r-%d", c.r.Intn(6)))
		return "HTTPRoute"
	case x == 1:
		c.deleteRoute(fmt.Sprintf("r-%d", c.r.Intn(6)))
		c.deliverRoute(fmt.Sprintf("r-%d", c.r.Intn(6)))
		return "HTTPRoute delete"
	case x == 2:
		c.deliverGateway(fmt.Sprintf("gw-%d", c.r.Intn(3)))
		return "Gateway"
	case x == 3:
		c.deliverListenerSet("ls-"+fmt.Sprint(c.r.Intn(2)), c.r.Intn(3) == 0)
		return "ListenerSet"
	case x == 4:
		c.deliverClass("other", []string{"example.com/other", engine.ControllerName}[c.r.Intn(2)])
		return "GatewayClass"
	default:
		name := fmt.Sprintf("p-%d", c.r.Intn(10))
		c.deliverPolicy(name, c.policies[name] != nil && c.r.Intn(4) == 0)
		return "policy"
	}
}

// listenerRefs are a ClientTrafficPolicy's targets: a Gateway, one of its listeners, or a
// ListenerSet's listener.
func (c *churn) listenerRefs() []interface{} {
	ref := map[string]interface{}{"group": gwv1.GroupName, "kind": "Gateway", "name": fmt.Sprintf("gw-%d", c.r.Intn(3))}
	switch c.r.Intn(3) {
	case 0:
		ref["sectionName"] = []string{"http", "https"}[c.r.Intn(2)]
	case 1:
		ref["kind"], ref["name"], ref["sectionName"] = "ListenerSet", fmt.Sprintf("ls-%d", c.r.Intn(2)), "extra"
	}
	return []interface{}{ref}
}

// checkWorldChurn runs one seeded sequence of steps events, each of which the world must follow with
// a step; it returns how many were compared.
func checkWorldChurn(t *testing.T, seed int64, steps int) (compared int) {
	return newChurn(t, seed, meta.NewDefaultRESTMapper(nil)).check(seed, steps, (*churn).randomEvent)
}

// check delivers steps events of randomEvent, each of which the world must follow with a step, and
// compares it with a whole build after each; it returns how many were compared.
func (c *churn) check(seed int64, steps int, randomEvent func(*churn) string) (compared int) {
	t := c.t
	kinds, gks, controllers := worldKinds(c.reg)
	Profile{}.world(c.st, c.reg) // built once: the policy events after it step it
	for step := 0; step < steps; step++ {
		event := randomEvent(c)
		// Stepped: the world current with the event is there, Build is not called.
		c.st.Derive(source.Derivation{Key: string(Name), Kinds: gks, Topology: true, Params: strings.Join(controllers, " "), Build: func() any {
			t.Fatalf("seed %d step %d: the %s event was not stepped: the world is built whole", seed, step, event)
			return nil
		}})
		inc, full := Profile{}.world(c.st, c.reg), buildWorld(c.st, gks, kinds, controllers)
		if want, got := worldAnswers(t, c, full), worldAnswers(t, c, inc); !reflect.DeepEqual(want, got) { // cmp.Diff only to show a difference: it is slow
			t.Fatalf("seed %d step %d (-whole +stepped):\n%s", seed, step, cmp.Diff(want, got))
		}
		compared++
	}
	return compared
}

// answers are what a world says: the effective items of each kind, and the projections of writes.
type answers struct {
	Items       map[string][]effective.Item
	Projections map[string]projection
}

// projection is a Projection as plain values: its results and what it says.
type projection struct {
	Before, After []result
	Warnings      []string
	Errors        []string
}

type result struct {
	Path               engine.Path
	Holder, Parent     string
	Scope, ParentScope engine.Scope
	Spec               map[string]interface{}
	Sources            map[string]string
	Replaced           []string
	Skipped            string
}

// worldAnswers asks w for the items of each kind and the projections of a delete and a rewrite of
// every stored policy, and of writes of new policies (seeded by the policies' names, so that both
// worlds are asked the same).
func worldAnswers(t *testing.T, c *churn, w *world) answers {
	a := answers{Items: map[string][]effective.Item{}, Projections: map[string]projection{}}
	for _, k := range stepKinds {
		a.Items[k] = w.snap.Items(k)
	}
	probe := rand.New(rand.NewSource(int64(len(c.policies))))
	for name, u := range c.policies {
		p, errs := engine.Read(u)
		if len(errs) > 0 {
			t.Fatalf("reading %s: %v", name, errs)
		}
		old, _ := w.snap.Policy(p.Kind, p.Ref)
		if old == nil {
			a.Projections["stored "+name] = projection{Warnings: []string{"not held"}}
			continue
		}
		a.Projections["delete "+name] = project(w, engine.Write{Old: old})
		a.Projections["rewrite "+name] = project(w, engine.Write{Old: old, New: p})
	}
	saved := c.r
	c.r = probe
	for i := 0; i < 4; i++ {
		name := fmt.Sprintf("p-%d", 10+i)
		p, errs := engine.Read(c.randomPolicy(name))
		if len(errs) > 0 {
			t.Fatalf("reading probe %s: %v", name, errs)
		}
		a.Projections["write "+name] = project(w, engine.Write{New: p})
	}
	c.r = saved
	return a
}

func project(w *world, wr engine.Write) projection {
	pr := w.snap.Project(wr)
	out := projection{Warnings: pr.Warnings()}
	for _, e := range engine.CheckProjection(pr) {
		out.Errors = append(out.Errors, e.Error())
	}
	for _, r := range pr.Before {
		out.Before = append(out.Before, plain(r))
	}
	for _, r := range pr.After {
		out.After = append(out.After, plain(r))
	}
	return out
}

func plain(r engine.Result) result {
	name := func(p *engine.Policy) string {
		if p == nil {
			return ""
		}
		return p.Ref.String()
	}
	out := result{Path: r.Path, Holder: name(r.Holder), Parent: name(r.Parent), Scope: r.Scope, ParentScope: r.ParentScope, Spec: r.Spec, Sources: r.Sources}
	for _, pl := range r.Replaced {
		out.Replaced = append(out.Replaced, name(pl.Policy)+" "+pl.Scope.String())
	}
	if r.Skipped != nil {
		out.Skipped = name(r.Skipped.Policy) + " " + r.Skipped.Scope.String()
	}
	return out
}
