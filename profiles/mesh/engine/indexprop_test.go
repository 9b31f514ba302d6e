package engine

import (
	"flag"
	"fmt"
	"math/rand"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

var (
	indexSeeds = flag.Int("index.seeds", 12, "seeds of TestIndexEventsAgreeWithFreshIndex, per kind")
	indexSteps = flag.Int("index.steps", 40, "events per seed of TestIndexEventsAgreeWithFreshIndex")
)

// meshWorld generates random Dataplanes and policies of one index kind in a small mesh (few
// services, tags, names and labels), so that random events often touch the same classes, sources
// and groups.
type meshWorld struct {
	tb   testing.TB
	kind string // index kind, Kind.group
	rng  *rand.Rand
	tops map[string]string // policy name → its last targetRef, reused by some updates
	ns   string            // meshPolicy's namespace, kuma-system when ""
}

func (w *meshWorld) pick(list ...string) string { return list[w.rng.Intn(len(list))] }

func (w *meshWorld) chance(pct int) bool { return w.rng.Intn(100) < pct }

// dataplane returns a random Dataplane of one of 12 keys: 0 to 2 inbounds (service and optional
// version and zone), outbounds to some services, maybe an app label, rarely a gateway.
func (w *meshWorld) dataplane() Dataplane {
	i := w.rng.Intn(12)
	dp := Dataplane{Namespace: []string{"kong-mesh-demo", "other"}[i/8], Name: fmt.Sprintf("dp-%d", i%8)}
	for n := w.rng.Intn(3); n > 0 || (dp.Inbound == nil && w.chance(80)); n-- {
		in := map[string]string{ServiceTag: w.pick("svc-0", "svc-1", "svc-2", "svc-3", "svc-4")}
		if w.chance(60) {
			in["version"] = w.pick("v0", "v1", "v2")
		}
		if w.chance(40) {
			in["zone"] = w.pick("z0", "z1")
		}
		dp.Inbound = append(dp.Inbound, in)
	}
	for n := w.rng.Intn(5); n > 0; n-- {
		dp.Outbound = append(dp.Outbound, map[string]string{ServiceTag: w.pick("svc-0", "svc-1", "svc-2", "svc-3", "svc-4", "svc-5")})
	}
	if w.chance(60) {
		dp.Labels = map[string]string{"app": w.pick("a", "b")}
	}
	dp.Gateway = w.chance(10)
	return dp
}

// policy returns a random valid policy of the world's kind named p-0 … p-6 (or name when set).
func (w *meshWorld) policy(name string) Policy {
	if name == "" {
		name = fmt.Sprintf("p-%d", w.rng.Intn(7))
	}
	kind, group, _ := strings.Cut(w.kind, ".")
	ns := "kuma-system"
	if group == KumaGroup && name[len(name)-1]%2 == 1 {
		ns = "kong-mesh-demo"
	}
	top := w.tops[name]
	if top == "" || w.chance(50) {
		top = w.top(group == KumaGroup)
		w.tops[name] = top
	}
	var spec []string
	if top != "" {
		spec = append(spec, "targetRef: "+top)
	}
	spec = append(spec, w.elements(kind, ns, group == KumaGroup)...)
	doc := fmt.Sprintf("apiVersion: %s/v1alpha1\nkind: %s\nmetadata: {name: %s, namespace: %s, labels: {kuma.io/mesh: default}}\nspec: {%s}\n",
		group, kind, name, ns, strings.Join(spec, ", "))
	p, errs := Parse(obj(w.tb, doc))
	if len(errs) > 0 {
		w.tb.Fatalf("generated policy is invalid: %v\n%s", errs.ToAggregate(), doc)
	}
	return p
}

func (w *meshWorld) top(kuma bool) string {
	svc := w.pick("svc-0", "svc-1", "svc-2", "svc-3")
	if kuma {
		return w.pick("", "{kind: Mesh}", "{kind: MeshSubset, tags: {version: v1}}", "{kind: MeshSubset, tags: {zone: z0}}",
			"{kind: MeshService, name: "+svc+"}", "{kind: MeshServiceSubset, name: "+svc+", tags: {version: v0}}",
			"{kind: Dataplane, labels: {app: a}}", "{kind: Dataplane, name: dp-1}", "{kind: Mesh, proxyTypes: [Sidecar]}")
	}
	return w.pick("{kind: Mesh}", "{kind: MeshSubset, tags: {version: v1}}", "{kind: MeshSubset, tags: {zone: z1}}",
		"{kind: Service, name: "+svc+"}", "{kind: ServiceSubset, name: "+svc+", tags: {version: v2}}", "{kind: Proxy, name: dp-2}")
}

// elements returns the spec's to, from and rules fields: at least one element.
func (w *meshWorld) elements(kind, ns string, kuma bool) []string {
	var out []string
	svc := func() string { return w.pick("svc-0", "svc-1", "svc-2", "svc-3", "svc-5") }
	list := func(n int, item func() string) string {
		var items []string
		for ; n > 0; n-- {
			items = append(items, item())
		}
		return "[" + strings.Join(items, ", ") + "]"
	}
	timeout := func() string {
		fields := []string{"connectTimeout: 1s", "http: {requestTimeout: 2s}", "http: {idleTimeout: 3s, requestTimeout: 4s}", "connectTimeout: 5s, http: {idleTimeout: 6s}"}
		if kuma {
			fields = []string{"connectionTimeout: 1s", "http: {requestTimeout: 2s}", "idleTimeout: 3s, http: {requestTimeout: 4s}", "connectionTimeout: 5s, idleTimeout: 6s"}
		}
		f := w.pick(fields...)
		if kuma {
			return "default: {" + f + "}"
		}
		return f
	}
	action := func() string {
		if kuma {
			return "default: {action: " + w.pick("Allow", "Deny", "AllowWithShadowDeny") + "}"
		}
		return "action: " + w.pick("ALLOW", "DENY")
	}
	fromRef := func() string {
		switch {
		case kuma && kind == KindMeshTimeout:
			return "{kind: Mesh}"
		case kuma:
			return w.pick("{kind: Mesh}", "{kind: MeshService, name: "+svc()+"}", "{kind: MeshSubset, tags: {zone: z0}}",
				"{kind: MeshServiceSubset, name: "+svc()+", tags: {version: v1}}")
		}
		return w.pick("{kind: Mesh}", "{kind: Service, name: "+svc()+"}", "{kind: ServiceSubset, name: "+svc()+", tags: {version: v1}}",
			"{kind: MeshSubset, tags: {zone: z1}}")
	}
	conf := timeout
	if kind == KindMeshTrafficPermission {
		conf = action
	}
	// Kuma's validators: rules exclude to and from; outside kuma-system a policy does not mix to
	// and from, nor Mesh and MeshService to items.
	system := ns == "kuma-system"
	if kuma && w.chance(35) {
		return append(out, "rules: "+list(1+w.rng.Intn(2), func() string { return w.rule(kind) }))
	}
	if kind == KindMeshTimeout && w.chance(70) {
		toRef := w.pick("Mesh", "Service")
		out = append(out, "to: "+list(1+w.rng.Intn(3), func() string {
			ref := w.pick("{kind: Mesh}", "{kind: Service, name: "+svc()+"}")
			if kuma {
				ref = w.pick("{kind: Mesh}", "{kind: MeshService, name: "+svc()+"}")
				if !system && toRef == "Mesh" {
					ref = "{kind: Mesh}"
				} else if !system {
					ref = "{kind: MeshService, name: " + svc() + "}"
				}
			}
			return "{targetRef: " + ref + ", " + timeout() + "}"
		}))
		if kuma && !system {
			return out
		}
	}
	if len(out) == 0 || w.chance(50) {
		out = append(out, "from: "+list(1+w.rng.Intn(3), func() string { return "{targetRef: " + fromRef() + ", " + conf() + "}" }))
	}
	return out
}

// rule returns a Kuma rules item: for MeshTrafficPermission lists of SPIFFE ID matches, for
// MeshTimeout a catch-all default.
func (w *meshWorld) rule(kind string) string {
	if kind == KindMeshTimeout {
		return "{default: {idleTimeout: " + w.pick("1s", "2s") + ", http: {requestTimeout: 3s}}}"
	}
	match := func() string {
		return w.pick(`{spiffeID: {type: Prefix, value: "spiffe://td"}}`, `{spiffeID: {type: Prefix, value: "spiffe://td/ns/a"}}`,
			`{spiffeID: {type: Exact, value: "spiffe://td/ns/a/sa/x"}}`, `{spiffeID: {type: Exact, value: "spiffe://td/ns/b/sa/y"}}`)
	}
	var lists []string
	for _, name := range []string{"deny", "allow", "allowWithShadowDeny"} {
		if w.chance(50) {
			lists = append(lists, name+": ["+match()+"]")
		}
	}
	if len(lists) == 0 {
		lists = append(lists, "allow: ["+match()+"]")
	}
	return "{default: {" + strings.Join(lists, ", ") + "}}"
}

// answers is what an index answers: the warnings of each probe write, and the whole mesh's.
type answers struct {
	Probes map[string][]string
	Whole  []string
}

func answer(x *Index, probes []Policy) answers {
	a := answers{Probes: map[string][]string{}, Whole: wholeWarnings(x)}
	for i, p := range probes {
		a.Probes[fmt.Sprintf("%d %s", i, p.ID())] = x.WriteWarnings(p, false)
	}
	return a
}

// wholeWarnings renders Shadowed's warnings as the index's sums give them, for every policy.
func wholeWarnings(x *Index) []string {
	agg := map[*Policy]map[elemKey]*counts{}
	touched := map[*Policy]bool{}
	for it := x.agg.Iterator(); !it.Done(); {
		p, m, _ := it.Next()
		agg[p], touched[p] = m, true
	}
	ws := collect(stats(agg, touched, nil))
	if x.perms {
		sums := map[permissionKey]*permCount{}
		for it := x.perm.Iterator(); !it.Done(); {
			k, a, _ := it.Next()
			sums[k] = a
		}
		ws = append(ws, permWarnings(sums, nil)...)
	}
	return warningLines(ws)
}

func warningLines(ws []Warning) []string {
	out := make([]string, 0, len(ws))
	for _, w := range ws {
		out = append(out, w.String())
	}
	sort.Strings(out)
	return out
}

// TestIndexEventsAgreeWithFreshIndex applies random sequences of Dataplane and policy events
// (creates, updates that change tags, outbounds and targetRefs, moves between classes and groups,
// deletes) with WithDataplane and WithPolicy. After every event the index must answer, for probe
// writes (every policy rewritten as it is, and new ones) and for the whole mesh, what NewIndex over
// the same lists answers and what the plain analysis answers; and the version before the event
// must still answer what it answered.
func TestIndexEventsAgreeWithFreshIndex(t *testing.T) {
	kinds := []string{KindMeshTimeout + "." + PrecedentGroup, KindMeshTrafficPermission + "." + PrecedentGroup, kumaTimeout, kumaPermission}
	for _, kind := range kinds {
		warned := 0
		for seed := 1; seed <= *indexSeeds; seed++ {
			t.Run(fmt.Sprintf("%s/seed=%d", kind, seed), func(t *testing.T) {
				warned += runEvents(t, kind, int64(seed), *indexSteps)
			})
		}
		if warned == 0 {
			t.Errorf("%s: no probe write was warned: the comparisons say nothing", kind)
		}
	}
}

// runEvents runs one seed's events and returns how many warnings the probe writes got.
func runEvents(t *testing.T, kind string, seed int64, steps int) (warned int) {
	w := &meshWorld{tb: t, kind: kind, rng: rand.New(rand.NewSource(seed)), tops: map[string]string{}}
	policies := map[string]Policy{}
	dps := map[string]Dataplane{}
	x := NewIndex(kind, nil, nil)
	var prev *Index
	var prevAnswers answers
	var prevProbes []Policy
	for step := 0; step < steps; step++ {
		var event string
		switch r := w.rng.Intn(100); {
		case r < 40:
			dp := w.dataplane()
			key := DataplaneKey(&dp)
			dps[key] = dp
			x = x.WithDataplane(key, &dp)
			event = fmt.Sprintf("upsert Dataplane %s %v out %v", key, dp.Inbound, dp.Outbound)
		case r < 50:
			dp := w.dataplane()
			key := DataplaneKey(&dp)
			delete(dps, key)
			x = x.WithDataplane(key, nil)
			event = "delete Dataplane " + key
		case r < 88:
			p := w.policy("")
			policies[p.ID()] = p
			x = x.WithPolicy(p.ID(), &p)
			event = "upsert policy " + p.ID()
		default:
			p := w.policy("")
			delete(policies, p.ID())
			x = x.WithPolicy(p.ID(), nil)
			event = "delete policy " + p.ID()
		}
		pl, dl := lists(policies, dps)
		probes := append(append([]Policy(nil), pl...), w.policy("probe"), w.policy(""))
		got := answer(x, probes)
		fx := NewIndex(kind, pl, dl)
		fresh := answer(fx, probes)
		if diff := cmp.Diff(fresh, got, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("step %d (%s): updated index differs from a fresh one (-fresh +updated):\n%s", step, event, diff)
		}
		if diff := cmp.Diff(headSums(fx), headSums(x), cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("step %d (%s): the heads' sums differ from a fresh index's (-fresh +updated):\n%s", step, event, diff)
		}
		if diff := cmp.Diff(outClasses(fx), outClasses(x), cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("step %d (%s): the classes by outbound service differ from a fresh index's (-fresh +updated):\n%s", step, event, diff)
		}
		plain := answers{Probes: map[string][]string{}, Whole: warningLines(Shadowed(pl, dl))}
		for i, p := range probes {
			plain.Probes[fmt.Sprintf("%d %s", i, p.ID())] = WriteWarnings(p, pl, dl, false)
		}
		if diff := cmp.Diff(plain, got, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("step %d (%s): updated index differs from the plain analysis (-plain +updated):\n%s", step, event, diff)
		}
		if prev != nil {
			if diff := cmp.Diff(prevAnswers, answer(prev, prevProbes), cmpopts.EquateEmpty()); diff != "" {
				t.Fatalf("step %d (%s): the previous version changed (-before +after):\n%s", step, event, diff)
			}
		}
		for _, lines := range got.Probes {
			warned += len(lines)
		}
		prev, prevAnswers, prevProbes = x, got, probes
	}
	return warned
}

// outClasses is the index's classes by outbound service, each class named by its policies' IDs
// (slots differ between an updated index and a fresh one), checked against the classes' outbounds.
func outClasses(x *Index) map[string][]string {
	out := map[string][]string{}
	for it := x.outCls.Iterator(); !it.Done(); {
		s, set, _ := it.Next()
		for si := set.Iterator(); !si.Done(); {
			sig, _, _ := si.Next()
			c, ok := x.classes.Get(sig)
			var ids []string
			for _, p := range c.ordered {
				ids = append(ids, p.ID())
			}
			name := strings.Join(ids, ",")
			if !ok || c.outbounds[s] <= 0 {
				name = "no such class or outbound: " + name
			}
			out[s] = append(out[s], name)
		}
		sort.Strings(out[s])
	}
	for it := x.classes.Iterator(); !it.Done(); {
		sig, c, _ := it.Next()
		for s := range c.outbounds {
			if set, _ := x.outCls.Get(s); !has(set, sig) {
				out[s] = append(out[s], "missing: "+sig)
			}
		}
	}
	return out
}

// headSums are the index's sums of the heads (heads.go) with the variants named by their policies'
// IDs and the elements by ID and path: the shapes' counts (to and from shapes apart), and per
// variant ("" for every class) the cells of each element and policy with their counts (the from
// cells among them), the buckets and the number of heads lists; and the Dataplanes per namespace.
func headSums(x *Index) map[string]interface{} {
	ids := map[int]string{}
	for it := x.pols.Iterator(); !it.Done(); {
		id, e, _ := it.Next()
		ids[e.slot] = id
	}
	variant := func(v string) string {
		var names []string
		for i := 0; i+4 <= len(v); i += 4 {
			names = append(names, ids[int(v[i])<<24|int(v[i+1])<<16|int(v[i+2])<<8|int(v[i+3])])
		}
		sort.Strings(names)
		return "[" + strings.Join(names, ",") + "]"
	}
	elem := func(k elemKey) string {
		name := k.p.ID() + " " + ElementPath(k.d, k.i)
		if e, _ := x.pols.Get(k.p.ID()); e.p != k.p {
			name += " (not the indexed version)"
		}
		return name
	}
	index := func(ix claimIndex) map[string]interface{} {
		cells := map[string]map[string]int{}
		for it := ix.elems.cells.Iterator(); !it.Done(); {
			k, c, _ := it.Next()
			cells[elem(k)] = c
		}
		for it := ix.pols.cells.Iterator(); !it.Done(); {
			p, c, _ := it.Next()
			cells[p.ID()] = c
		}
		buckets := map[string][]string{}
		for it := ix.elems.buckets.Iterator(); !it.Done(); {
			sig, b, _ := it.Next()
			for mi := b.members.Iterator(); !mi.Done(); {
				k, _, _ := mi.Next()
				buckets[sig] = append(buckets[sig], elem(k))
			}
		}
		for it := ix.pols.buckets.Iterator(); !it.Done(); {
			sig, b, _ := it.Next()
			for mi := b.members.Iterator(); !mi.Done(); {
				p, _, _ := mi.Next()
				buckets["policies "+sig] = append(buckets["policies "+sig], p.ID())
			}
		}
		return map[string]interface{}{"cells": cells, "buckets": buckets, "lists": ix.n}
	}
	shapes := map[string]int{}
	for it := x.shapes.Iterator(); !it.Done(); {
		_, sc, _ := it.Next()
		dir := "to "
		if sc.from {
			dir = "from "
		}
		shapes[dir+variant(sc.variant)+" "+strings.Join(sc.cells, ",")] += sc.n
	}
	inNs := map[string]int{}
	for it := x.inNs.Iterator(); !it.Done(); {
		ns, n, _ := it.Next()
		inNs[ns] = n
	}
	out := map[string]interface{}{"shapes": shapes, "": index(x.claims), "withRules": x.withRules, "inNs": inNs}
	for it := x.variants.Iterator(); !it.Done(); {
		v, ix, _ := it.Next()
		out[variant(v)] = index(ix)
	}
	return out
}

// lists returns the policies and Dataplanes in key order.
func lists(policies map[string]Policy, dps map[string]Dataplane) ([]Policy, []Dataplane) {
	var pl []Policy
	var dl []Dataplane
	for _, k := range keysOf(policies) {
		pl = append(pl, policies[k])
	}
	for _, k := range keysOf(dps) {
		dl = append(dl, dps[k])
	}
	return pl, dl
}

func keysOf[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// TestIndexVersionsStayUnchanged: readers of a version, concurrent with the events that derive
// the next ones from it (run with -race), keep getting its answers.
func TestIndexVersionsStayUnchanged(t *testing.T) {
	w := &meshWorld{tb: t, kind: KindMeshTimeout + "." + PrecedentGroup, rng: rand.New(rand.NewSource(7)), tops: map[string]string{}}
	x0 := NewIndex(w.kind, nil, nil)
	for i := 0; i < 30; i++ {
		dp := w.dataplane()
		x0 = x0.WithDataplane(DataplaneKey(&dp), &dp)
		p := w.policy("")
		x0 = x0.WithPolicy(p.ID(), &p)
	}
	probes := []Policy{w.policy("p-1"), w.policy("p-2"), w.policy("probe"), w.meshPolicy("a-new", 0, 0)}
	if _, ok := x0.meshWrite(&probes[3], nil, false); !ok {
		t.Fatal("the Mesh-level probe is not answered by meshWrite: the readers do not read the heads")
	}
	want := answer(x0, probes)
	done := make(chan answers)
	for r := 0; r < 2; r++ {
		go func() {
			var last answers
			for i := 0; i < 20; i++ {
				last = answer(x0, probes)
			}
			done <- last
		}()
	}
	x := x0
	for i := 0; i < 100; i++ {
		if i%2 == 0 {
			dp := w.dataplane()
			x = x.WithDataplane(DataplaneKey(&dp), &dp)
		} else {
			p := w.policy("")
			x = x.WithPolicy(p.ID(), &p)
		}
		if i%10 == 0 {
			dp := w.dataplane()
			x = x.WithDataplane(DataplaneKey(&dp), nil)
			p := w.policy("")
			x = x.WithPolicy(p.ID(), nil)
		}
	}
	for r := 0; r < 2; r++ {
		if diff := cmp.Diff(want, <-done, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("a reader of the first version saw it change (-before +during):\n%s", diff)
		}
	}
	if diff := cmp.Diff(want, answer(x0, probes), cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("the first version changed (-before +after):\n%s", diff)
	}
	if len(want.Whole) == 0 {
		t.Error("the first version warns of nothing: the comparison says nothing")
	}
}

// stats turns the summed counts of the policies in touched (but skip) into Shadowed's per-element
// state, the way ShadowedAt's simulation leaves it, for collect.
func stats(agg map[*Policy]map[elemKey]*counts, touched map[*Policy]bool, skip *Policy) map[elemKey]*elemStat {
	out := map[elemKey]*elemStat{}
	for p := range touched {
		if p == skip {
			continue
		}
		for k, c := range agg[p] {
			if c.selected <= 0 {
				continue
			}
			s := &elemStat{selected: true, effective: c.effective > 0, by: map[elemKey]bool{}}
			for b, n := range c.by {
				if n > 0 {
					s.by[b] = true
				}
			}
			out[k] = s
		}
	}
	return out
}

func has(set keySet, k string) bool {
	_, ok := set.Get(k)
	return ok
}
