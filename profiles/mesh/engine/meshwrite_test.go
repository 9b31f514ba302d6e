package engine

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// meshPolicy returns a mesh-level policy of the world's kind named name whose to items target
// the Mesh or one service by name (the writes meshWrite answers), setting overlapping fields, so that it often
// blocks and is blocked by the others; with from items in fromPct cases in a hundred (on the Mesh,
// which meshWrite answers from the from shapes, or for Precedent's MeshTimeout now and then on a
// service, which leaves the write to the classes; Kuma's MeshTimeout gets catch-all rules instead
// of to items in some of those cases), and for Kuma's kinds with proxyTypes in restrictPct (a
// policy of one variant of the classes). A MeshTrafficPermission has from items only: on the
// Mesh, or now and then on a service.
func (w *meshWorld) meshPolicy(name string, fromPct, restrictPct int) Policy {
	kind, group, _ := strings.Cut(w.kind, ".")
	kuma := group == KumaGroup
	fields := []string{"connectTimeout: 1s", "http: {requestTimeout: 2s}", "http: {idleTimeout: 3s, requestTimeout: 4s}",
		"connectTimeout: 5s, http: {idleTimeout: 6s}", "http: {}"}
	if kuma {
		fields = []string{"default: {connectionTimeout: 1s}", "default: {http: {requestTimeout: 2s}}",
			"default: {idleTimeout: 3s, http: {requestTimeout: 4s}}", "default: {connectionTimeout: 5s, idleTimeout: 6s}"}
	}
	var items []string
	svcKind := "Service"
	if kuma {
		svcKind = "MeshService"
	}
	for n := 1 + w.rng.Intn(3); n > 0; n-- {
		ref := "{kind: Mesh}"
		if w.ns == "" && w.chance(40) { // in an app namespace, on the Mesh: a consumer policy
			ref = "{kind: " + svcKind + ", name: " + w.pick("svc-0", "svc-1", "svc-2", "svc-5") + "}"
		}
		items = append(items, "{targetRef: "+ref+", "+w.pick(fields...)+"}")
	}
	top := "{kind: Mesh}"
	if kuma && w.chance(restrictPct) {
		top = w.pick("{kind: Mesh, proxyTypes: [Sidecar]}", "{kind: Mesh, proxyTypes: [Gateway]}")
	}
	spec := "targetRef: " + top + ", to: [" + strings.Join(items, ", ") + "]"
	fromRef := "{kind: Mesh}"
	if (!kuma || kind == KindMeshTrafficPermission) && w.chance(15) { // Kuma's MeshTimeout: from Mesh only
		fromRef = "{kind: " + svcKind + ", name: " + w.pick("svc-0", "svc-1") + "}"
	}
	switch {
	case kind == KindMeshTrafficPermission && kuma && w.chance(20): // rules, which meshWrite leaves to the classes
		spec = "targetRef: {kind: Mesh}, rules: [" + w.rule(kind) + "]"
	case kind == KindMeshTrafficPermission: // inbound only
		action := func() string { return "action: " + w.pick("ALLOW", "DENY") }
		if kuma {
			action = func() string { return "default: {action: " + w.pick("Allow", "Deny", "AllowWithShadowDeny") + "}" }
		}
		var from []string
		for n := 1 + w.rng.Intn(2); n > 0; n-- {
			from = append(from, "{targetRef: "+fromRef+", "+action()+"}")
		}
		spec = "targetRef: {kind: Mesh}, from: [" + strings.Join(from, ", ") + "]"
	case !w.chance(fromPct):
	case kuma && w.chance(30):
		spec = "targetRef: " + top + ", rules: [{default: {" + w.pick("idleTimeout: 7s", "http: {requestTimeout: 3s}", "idleTimeout: 1s, http: {requestTimeout: 8s}") + "}}]"
	default:
		fields := []string{"connectTimeout: 7s", "http: {requestTimeout: 8s}", "connectTimeout: 5s, http: {idleTimeout: 6s}"}
		if kuma {
			fields = []string{"default: {idleTimeout: 7s}", "default: {connectionTimeout: 1s}", "default: {idleTimeout: 3s, http: {requestTimeout: 4s}}"}
		}
		var from []string
		for n := 1 + w.rng.Intn(2); n > 0; n-- {
			from = append(from, "{targetRef: "+fromRef+", "+w.pick(fields...)+"}")
		}
		spec += ", from: [" + strings.Join(from, ", ") + "]"
	}
	ns := w.ns
	if ns == "" {
		ns = "kuma-system"
	}
	doc := fmt.Sprintf("apiVersion: %s/v1alpha1\nkind: %s\nmetadata: {name: %s, namespace: %s, labels: {kuma.io/mesh: default}}\nspec: {%s}\n",
		group, kind, name, ns, spec)
	p, errs := Parse(obj(w.tb, doc))
	if len(errs) > 0 {
		w.tb.Fatalf("generated policy is invalid: %v\n%s", errs.ToAggregate(), doc)
	}
	return p
}

// rolePolicy is a mesh-level policy of meshPolicy named name in namespace ns, not Kuma's system
// namespace: a consumer policy (to items, all on the Mesh, no from items) or, for a
// MeshTrafficPermission, a workload-owner one (from items or rules only), which selects the
// Dataplanes of ns only.
func (w *meshWorld) rolePolicy(name, ns string) Policy {
	w.ns = ns
	defer func() { w.ns = "" }()
	return w.meshPolicy(name, 0, 30)
}

// otherPolicy is a random policy of meshWorld that does not keep every mesh-level write from
// meshWrite, except now and then.
func (w *meshWorld) otherPolicy() Policy {
	for {
		if p := w.policy(""); !meshLevel(&p) || tailReady(&p) || w.chance(5) {
			return p
		}
	}
}

// meshWriteCounts are how many probe writes meshWrite answered (named: with to items on named
// services in the written policy; from: with from entries, answered from the from shapes), and of
// their warning lines how many there were, how many counted blockers left out of their list ("and
// N more"), how many were about another policy that the write newly shadows, how many named a head
// through a to item on a service, and how many were about a from entry of the written policy;
// restricted: written policies with proxyTypes answered; fromService: with from items on a
// service answered, fromClaimed: of those, where heads claim something on some source (planFrom);
// role: with a namespace role (Kuma's consumer and workload-owner policies) answered.
type meshWriteCounts struct {
	fast, named, from, fromService, fromClaimed, restricted, role, lines, more, others, serviceItems, fromItems int
}

func (c *meshWriteCounts) add(d meshWriteCounts) {
	c.fast, c.named, c.lines, c.more, c.others = c.fast+d.fast, c.named+d.named, c.lines+d.lines, c.more+d.more, c.others+d.others
	c.serviceItems, c.from, c.fromItems = c.serviceItems+d.serviceItems, c.from+d.from, c.fromItems+d.fromItems
	c.restricted, c.fromService, c.fromClaimed = c.restricted+d.restricted, c.fromService+d.fromService, c.fromClaimed+d.fromClaimed
	c.role += d.role
}

// TestMeshWriteAgreesWithWholeRecomputation applies random events (Dataplanes, policies at every
// level, mesh-level policies; creates, updates, deletes) to an index and after each one compares,
// for writes of mesh-level policies (new ones with names on either side of the others, updates,
// and the others rewritten), what the index answers (meshWrite where it applies) with the
// recomputation of the classes the write changes (classWrite) and with the plain analysis of the
// whole mesh before and after the write (WriteWarningsAt), capped and uncapped.
// Writes with from entries on the Mesh are answered from the from shapes: every run must have
// some, and some warned about a from entry of the written policy; and, where from items on a
// service are generated, some writes with them answered, some where heads claim on sources. MeshTrafficPermission has from
// items only.
func TestMeshWriteAgreesWithWholeRecomputation(t *testing.T) {
	runs := []struct {
		kind string
		v    Version
	}{
		{KindMeshTimeout + "." + PrecedentGroup, Kuma30}, {kumaTimeout, Kuma30}, {kumaTimeout, Kuma214},
		{KindMeshTrafficPermission + "." + PrecedentGroup, Kuma30}, {kumaPermission, Kuma30}, {kumaPermission, Kuma214},
	}
	for _, r := range runs {
		var n meshWriteCounts
		for seed := 1; seed <= *indexSeeds; seed++ {
			t.Run(fmt.Sprintf("%s/%s/seed=%d", r.kind, r.v, seed), func(t *testing.T) {
				n.add(runMeshWrites(t, r.kind, r.v, int64(seed), *indexSteps))
			})
		}
		t.Logf("%s on %s: %+v", r.kind, r.v, n)
		if !strings.HasPrefix(r.kind, KindMeshTrafficPermission+".") && (n.fast == 0 || n.named == 0 || n.lines == 0 || n.more == 0 || n.others == 0 || n.serviceItems == 0) {
			t.Errorf("%s on %s: %+v: the comparisons say little", r.kind, r.v, n)
		}
		if n.from == 0 || n.fromItems == 0 || n.lines == 0 || n.others == 0 {
			t.Errorf("%s on %s: %+v: no write with from items on the Mesh was answered from the heads, or none warned", r.kind, r.v, n)
		}
		if r.kind != kumaTimeout && (n.fromService == 0 || n.fromClaimed == 0) { // Kuma's MeshTimeout: from Mesh only
			t.Errorf("%s on %s: %+v: no write with from items on a service was answered from the heads", r.kind, r.v, n)
		}
		if r.kind == kumaTimeout && n.restricted == 0 {
			t.Errorf("%s on %s: %+v: no write with proxyTypes was answered from the heads", r.kind, r.v, n)
		}
		if strings.HasSuffix(r.kind, "."+KumaGroup) && n.role == 0 {
			t.Errorf("%s on %s: %+v: no write with a namespace role was answered from the heads", r.kind, r.v, n)
		}
	}
}

// meshEvent applies one random event to the index and the lists, and says what it was.
func (w *meshWorld) meshEvent(x *Index, policies map[string]Policy, dps map[string]Dataplane, meshNames []string) (*Index, string) {
	switch r := w.rng.Intn(100); {
	case r < 35:
		dp := w.dataplane()
		key := DataplaneKey(&dp)
		dps[key] = dp
		return x.WithDataplane(key, &dp), "upsert Dataplane " + key
	case r < 42:
		dp := w.dataplane()
		key := DataplaneKey(&dp)
		delete(dps, key)
		return x.WithDataplane(key, nil), "delete Dataplane " + key
	case r < 65:
		p := w.otherPolicy()
		policies[p.ID()] = p
		return x.WithPolicy(p.ID(), &p), "upsert policy " + p.ID()
	case r < 90:
		p := w.meshPolicy(w.pick(meshNames...), 30, 30)
		policies[p.ID()] = p
		return x.WithPolicy(p.ID(), &p), "upsert mesh-level policy " + p.ID()
	}
	id := "kuma-system/" + w.pick(append(meshNames, "p-0", "p-2")...)
	delete(policies, id)
	return x.WithPolicy(id, nil), "delete policy " + id
}

// runMeshWrites runs one seed's events and probe writes.
func runMeshWrites(t *testing.T, kind string, v Version, seed int64, steps int) meshWriteCounts {
	w := &meshWorld{tb: t, kind: kind, rng: rand.New(rand.NewSource(seed)), tops: map[string]string{}}
	policies := map[string]Policy{}
	dps := map[string]Dataplane{}
	x := NewIndexAt(v, kind, nil, nil)
	meshNames := []string{"m-1", "m-3", "m-5"}
	var n meshWriteCounts
	for step := 0; step < steps; step++ {
		var event string
		x, event = w.meshEvent(x, policies, dps, meshNames)
		pl, dl := lists(policies, dps)
		probes := []Policy{w.meshPolicy("a-new", 25, 0), w.meshPolicy("n-new", 25, 30), w.meshPolicy("z-new", 25, 0), w.meshPolicy(w.pick(meshNames...), 25, 30)}
		if strings.HasSuffix(kind, "."+KumaGroup) { // namespace roles: some, every or no Dataplane
			probes = append(probes, w.rolePolicy(w.pick("r-new", "m-3"), w.pick("kong-mesh-demo", "other", "empty")))
		}
		for _, p := range pl {
			if meshLevel(&p) {
				probes = append(probes, p)
			}
		}
		for _, p := range probes {
			for _, capped := range []bool{false, true} {
				if err := compareMeshWrite(x, p, pl, dl, capped, &n); err != "" {
					t.Fatalf("step %d (%s), write of %s (capped %v): %s", step, event, p.ID(), capped, err)
				}
			}
		}
	}
	return n
}

// compareMeshWrite compares the index's answer to a write of p with its classes' recomputation
// and with the plain analysis, and counts it in n.
func compareMeshWrite(x *Index, p Policy, pl []Policy, dl []Dataplane, capped bool, n *meshWriteCounts) string {
	got := x.WriteWarnings(p, capped)
	classes := capLines(ruleAdvice(&p), capped)
	if len(dl) > 0 {
		classes = x.classWrite(p, ruleAdvice(&p), capped)
	}
	if diff := cmp.Diff(WriteWarningsAt(x.version, p, pl, dl, capped), got, cmpopts.EquateEmpty()); diff != "" {
		return "the index differs from the plain analysis (-plain +index):\n" + diff
	}
	if diff := cmp.Diff(classes, got, cmpopts.EquateEmpty()); diff != "" {
		return "the index differs from its classes' recomputation (-classes +index):\n" + diff
	}
	if _, ok := x.meshWrite(&p, ruleAdvice(&p), capped); !ok || capped || len(dl) == 0 {
		return ""
	}
	svc, from := n.countWrite(x, &p)
	for _, l := range got {
		for i := range svc {
			if strings.Contains(l, fmt.Sprintf("/%s: spec.to[%d] never", p.Name, i)) {
				n.serviceItems++
			}
		}
		if from && (strings.Contains(l, "/"+p.Name+": spec.from[") || strings.Contains(l, "/"+p.Name+": spec.rules[") || strings.Contains(l, "/"+p.Name+" never")) {
			n.fromItems++
		}
		n.lines++
		if strings.Contains(l, " more") {
			n.more++
		}
		if !strings.Contains(l, "/"+p.Name+":") && !strings.Contains(l, "/"+p.Name+" never") {
			n.others++
		}
	}
	return ""
}

// countWrite counts a write of p that meshWrite answered by its shape, and returns the indices of
// its to items on a service and whether it has from entries.
func (n *meshWriteCounts) countWrite(x *Index, p *Policy) (svc map[int]bool, from bool) {
	n.fast++
	svc = map[int]bool{}
	for i := range p.To {
		if p.To[i].TargetRef.Kind != Mesh {
			svc[i] = true
		}
	}
	if len(svc) > 0 {
		n.named++
	}
	if from = hasFrom([]*Policy{p}); from {
		n.from++
	}
	if len(fromServices(p)) > 0 {
		n.fromService++
		if !x.bareFrom() {
			n.fromClaimed++
		}
	}
	if len(p.TargetRef.ProxyTypes) > 0 {
		n.restricted++
	}
	if p.Role == RoleConsumer || p.Role == RoleWorkloadOwner {
		n.role++
	}
	return svc, from
}

// headCase is a case of TestMeshWriteHeads: a write of written over the heads and Dataplanes, and
// the warnings meshWrite must answer.
type headCase struct {
	name    string
	kind    string // KindMeshTimeout when ""
	heads   []Policy
	dps     []Dataplane
	written Policy
	want    []string
}

// fromHeadCases are TestMeshWriteHeads's cases for from entries on the Mesh: blocked where a head's
// from entries claim their fields on some source (one set of them, not every source), named from
// the buckets of from cells.
func fromHeadCases(t *testing.T) []headCase {
	obj := func(k string, v interface{}) map[string]interface{} { return map[string]interface{}{k: v} }
	// mt is a MeshTimeout in kuma-system on top with from items on the refs (the Mesh when "").
	mt := func(name string, top TargetRef, from ...interface{}) Policy {
		p := Policy{Kind: KindMeshTimeout, Namespace: "kuma-system", Name: name, TargetRef: top}
		for i := 0; i < len(from); i += 2 {
			ref := TargetRef{Kind: Mesh}
			if svc := from[i].(string); svc != "" {
				ref = TargetRef{Kind: Service, Name: svc}
			}
			p.From = append(p.From, NewElement(ref, from[i+1].(map[string]interface{})))
		}
		return p
	}
	svc := func(s string) TargetRef { return TargetRef{Kind: Service, Name: s} }
	mesh := TargetRef{Kind: Mesh}
	twoServices := []Dataplane{proxy("web-1", map[string]string{ServiceTag: "web"}, "backend"), proxy("api-1", map[string]string{ServiceTag: "api"})}
	// web's head claims connectTimeout on the sources of api with one policy and on those of web
	// with another, api's on every source.
	heads := []Policy{
		mt("web-from-api", svc("web"), "api", obj("connectTimeout", "1s")),
		mt("web-from-web", svc("web"), "web", obj("connectTimeout", "1s")),
		mt("api-from-all", svc("api"), "", obj("connectTimeout", "1s"), "", obj("http", obj("idleTimeout", "1s"))),
	}
	var many []Policy
	var manyServices []Dataplane
	for i := 0; i < 5; i++ {
		s := fmt.Sprintf("svc-%d", i)
		many = append(many, mt(s+"-from", svc(s), "", obj("http", "5s")))
		manyServices = append(manyServices, proxy(s+"-1", map[string]string{ServiceTag: s}))
	}
	rules := func(name, top, conf string) Policy {
		return policy(t, "apiVersion: kuma.io/v1alpha1\nkind: MeshTimeout\nmetadata: {name: "+name+", namespace: kuma-system}\nspec:\n  targetRef: "+top+
			"\n  rules:\n  - default: {"+conf+"}\n")
	}
	return []headCase{
		{
			// On web's Dataplanes only the sources of api are claimed: base's from[0] sets
			// connectTimeout on the others.
			name: "a from item claimed on some sources only takes effect on the others", heads: heads[:1], dps: twoServices,
			written: mt("base", mesh, "", obj("connectTimeout", "2s")),
		},
		{
			name: "a from field claimed on every source, by heads of some sources", heads: heads, dps: twoServices,
			written: mt("base", mesh, "", obj("connectTimeout", "2s")),
			want:    []string{"PRC-W014 MeshTimeout kuma-system/base never takes effect on any Dataplane: every field it sets is decided by kuma-system/web-from-web, kuma-system/web-from-api, kuma-system/api-from-all"},
		},
		{
			// from[0] is blocked by the three heads' claims of connectTimeout; from[1] sets
			// http.requestTimeout everywhere.
			name: "a from item blocked by the heads claiming its field, named by element", heads: heads, dps: twoServices,
			written: mt("base", mesh, "", obj("connectTimeout", "2s"), "", obj("http", obj("requestTimeout", "2s"))),
			want:    []string{"PRC-W014 MeshTimeout kuma-system/base: spec.from[0] never takes effect on any Dataplane: every field it sets is decided by spec.from[0] of kuma-system/web-from-web, spec.from[0] of kuma-system/web-from-api, spec.from[0] of kuma-system/api-from-all"},
		},
		{
			name: "the first three from heads named, the others counted", heads: many, dps: manyServices,
			written: mt("base", mesh, "", obj("http", obj("idleTimeout", "2s"))),
			want:    []string{"PRC-W014 MeshTimeout kuma-system/base never takes effect on any Dataplane: every field it sets is decided by kuma-system/svc-4-from, kuma-system/svc-3-from, kuma-system/svc-2-from and 2 more"},
		},
		{
			name: "a mesh-level from item newly shadowed by the write", heads: []Policy{mt("m-low", mesh, "", obj("connectTimeout", "3s"))},
			dps:     twoServices,
			written: mt("z-new", mesh, "", obj("connectTimeout", "1s")),
			want:    []string{"PRC-W014 MeshTimeout kuma-system/m-low never takes effect on any Dataplane: every field it sets is decided by kuma-system/z-new"},
		},
		{
			name: "a catch-all rule blocked by a head's catch-all rule", kind: kumaTimeout,
			heads:   []Policy{rules("web-rules", "{kind: MeshService, name: web}", "idleTimeout: 1s"), rules("api-rules", "{kind: MeshService, name: api}", "idleTimeout: 1s, connectionTimeout: 1s")},
			dps:     twoServices,
			written: rules("base", "{kind: Mesh}", "idleTimeout: 2s"),
			want:    []string{"PRC-W014 MeshTimeout kuma-system/base never takes effect on any Dataplane: every field it sets is decided by kuma-system/api-rules, kuma-system/web-rules"},
		},
		// No head claims anything on a source (bareFrom): a from item on a service meets every
		// class on that service's sources.
		{
			// z-new comes first (the later name) and claims connectTimeout on web's sources only.
			name: "a from item on a service leaves a mesh-level from item the other sources", heads: []Policy{mt("m-low", mesh, "", obj("connectTimeout", "3s"))},
			dps:     twoServices,
			written: mt("z-new", mesh, "web", obj("connectTimeout", "1s")),
		},
		{
			name: "a from item on a service blocked by a mesh-level from item on the Mesh", heads: []Policy{mt("z-high", mesh, "", obj("connectTimeout", "3s"))},
			dps:     twoServices,
			written: mt("a-new", mesh, "web", obj("connectTimeout", "1s")),
			want:    []string{"PRC-W014 MeshTimeout kuma-system/a-new never takes effect on any Dataplane: every field it sets is decided by kuma-system/z-high"},
		},
		{
			name: "a mesh-level from item newly shadowed by from items on each service", heads: []Policy{mt("m-low", mesh, "", obj("connectTimeout", "3s"))},
			dps:     twoServices,
			written: mt("z-new", mesh, "web", obj("connectTimeout", "1s"), "api", obj("connectTimeout", "2s")),
			want:    []string{"PRC-W014 MeshTimeout kuma-system/m-low never takes effect on any Dataplane: every field it sets is decided by kuma-system/z-new"},
		},
		// Heads that claim on some sources: the classes whose heads' from elements select the
		// sources of the named service are visited (planFrom), the others meet them without claims.
		{
			name: "a from item on a service blocked only by heads that claim on that service's sources",
			heads: []Policy{heads[0], mt("api-from-api", svc("api"), "api", obj("connectTimeout", "1s")),
				mt("api-from-web", svc("api"), "web", obj("connectTimeout", "1s"), "web", obj("http", obj("idleTimeout", "1s")))},
			dps:     twoServices,
			written: mt("base", mesh, "api", obj("connectTimeout", "2s")),
			want:    []string{"PRC-W014 MeshTimeout kuma-system/base never takes effect on any Dataplane: every field it sets is decided by kuma-system/web-from-api, kuma-system/api-from-api"},
		},
		{
			name: "a from item on a service claimed in some classes only takes effect in the others", heads: heads[:1], dps: twoServices,
			written: mt("base", mesh, "api", obj("connectTimeout", "2s")),
		},
		{
			name: "a from item on a service beside one on the Mesh, blocked by heads on the other sources", heads: heads[1:2], dps: twoServices,
			written: mt("base", mesh, "api", obj("http", obj("idleTimeout", "2s")), "", obj("connectTimeout", "2s")),
		},
		{
			name: "a from item on a service without sources", heads: []Policy{mt("m-low", mesh, "", obj("connectTimeout", "3s"))},
			dps:     twoServices,
			written: mt("z-new", mesh, "backend", obj("connectTimeout", "1s")),
		},
	}
}

// proxyTypeCases are TestMeshWriteHeads's cases for a written policy with proxyTypes: it joins the
// classes of the variants of its proxy type (those holding Kuma's default of that type), or every
// class when every Dataplane is of its type, or none when none is.
func proxyTypeCases(t *testing.T) []headCase {
	kmt := func(name, top, conf string) Policy {
		return policy(t, "apiVersion: kuma.io/v1alpha1\nkind: MeshTimeout\nmetadata: {name: "+name+", namespace: kuma-system}\nspec:\n  targetRef: "+top+
			"\n  to:\n  - {targetRef: {kind: Mesh}, default: {"+conf+"}}\n")
	}
	gateway := proxy("gw-1", map[string]string{ServiceTag: "gw"}, "backend")
	gateway.Gateway = true
	web := proxy("web-1", map[string]string{ServiceTag: "web"}, "backend")
	heads := []Policy{
		kmt("web-timeouts", "{kind: MeshService, name: web}", "connectionTimeout: 1s"),
		kmt("gw-timeouts", "{kind: MeshService, name: gw}", "connectionTimeout: 1s"),
	}
	defaults := append(heads[:2:2], kmt("mesh-timeout-all-default", "{kind: Mesh, proxyTypes: [Sidecar]}", "idleTimeout: 2s"),
		kmt("mesh-gateways-timeout-all-default", "{kind: Mesh, proxyTypes: [Gateway]}", "idleTimeout: 2s"))
	return []headCase{
		{
			name: "a policy of one proxy type blocked by the heads of that type's variant only", kind: kumaTimeout,
			heads: defaults, dps: []Dataplane{web, gateway},
			written: kmt("a-new", "{kind: Mesh, proxyTypes: [Gateway]}", "connectionTimeout: 3s"),
			want:    []string{"PRC-W014 MeshTimeout kuma-system/a-new never takes effect on any Dataplane: every field it sets is decided by kuma-system/gw-timeouts"},
		},
		{
			name: "a policy of one proxy type newly shadowing that type's default", kind: kumaTimeout,
			heads: defaults, dps: []Dataplane{web, gateway},
			written: kmt("a-new", "{kind: Mesh, proxyTypes: [Sidecar]}", "idleTimeout: 3s"),
			want:    []string{"PRC-W014 MeshTimeout kuma-system/mesh-timeout-all-default never takes effect on any Dataplane: every field it sets is decided by kuma-system/a-new"},
		},
		{
			name: "a policy of sidecars in a mesh of sidecars only", kind: kumaTimeout, heads: heads, dps: []Dataplane{web},
			written: kmt("a-new", "{kind: Mesh, proxyTypes: [Sidecar]}", "connectionTimeout: 3s"),
			want:    []string{"PRC-W014 MeshTimeout kuma-system/a-new never takes effect on any Dataplane: every field it sets is decided by kuma-system/web-timeouts"},
		},
		{
			name: "a policy of gateways in a mesh of sidecars only", kind: kumaTimeout, heads: heads, dps: []Dataplane{web},
			written: kmt("a-new", "{kind: Mesh, proxyTypes: [Gateway]}", "connectionTimeout: 3s"),
		},
	}
}

// roleCases are TestMeshWriteHeads's cases for a written policy with a namespace role (a Kuma
// consumer MeshTimeout in an app namespace): it joins every class when every Dataplane is in its
// namespace, none when none is.
func roleCases(t *testing.T) []headCase {
	kmt := func(ns, name, top, conf string) Policy {
		return policy(t, "apiVersion: kuma.io/v1alpha1\nkind: MeshTimeout\nmetadata: {name: "+name+", namespace: "+ns+"}\nspec:\n  targetRef: "+top+
			"\n  to:\n  - {targetRef: {kind: Mesh}, default: {"+conf+"}}\n")
	}
	web := proxy("web-1", map[string]string{ServiceTag: "web"}, "backend")
	api := proxy("api-1", map[string]string{ServiceTag: "api"}, "backend")
	web.Namespace, api.Namespace = "kuma-demo", "kuma-demo"
	heads := []Policy{
		kmt("kuma-system", "web-timeouts", "{kind: MeshService, name: web}", "connectionTimeout: 1s"),
		kmt("kuma-system", "mesh-timeout-all-default", "{kind: Mesh}", "idleTimeout: 2s"),
	}
	return []headCase{
		{
			name: "a consumer policy of the namespace of every Dataplane blocked by the heads", kind: kumaTimeout,
			heads: heads, dps: []Dataplane{web},
			written: kmt("kuma-demo", "a-new", "{kind: Mesh}", "connectionTimeout: 3s"),
			want:    []string{"PRC-W014 MeshTimeout kuma-demo/a-new never takes effect on any Dataplane: every field it sets is decided by kuma-system/web-timeouts"},
		},
		{
			name: "a consumer policy of the namespace of every Dataplane newly shadowing Kuma's default", kind: kumaTimeout,
			heads: heads, dps: []Dataplane{web, api},
			written: kmt("kuma-demo", "a-new", "{kind: Mesh}", "idleTimeout: 3s"),
			want:    []string{"PRC-W014 MeshTimeout kuma-system/mesh-timeout-all-default never takes effect on any Dataplane: every field it sets is decided by kuma-demo/a-new"},
		},
		{
			name: "a consumer policy of a namespace without Dataplanes", kind: kumaTimeout,
			heads: heads, dps: []Dataplane{web, api},
			written: kmt("other", "a-new", "{kind: Mesh}", "idleTimeout: 3s"),
		},
	}
}

// kumaMTP is Kuma's MeshTrafficPermission name in kuma-system on top with spec's from or rules.
func kumaMTP(t *testing.T, name, top, spec string) Policy {
	return policy(t, "apiVersion: kuma.io/v1alpha1\nkind: MeshTrafficPermission\nmetadata: {name: "+name+", namespace: kuma-system}\nspec:\n  targetRef: "+top+
		"\n  "+spec+"\n")
}

// kumaPermissionCases are TestMeshWriteHeads's cases for Kuma's MeshTrafficPermission (Kuma 3.0,
// which merges the from items with the rules): its most common write, a mesh-wide allow, is
// answered from the from shapes like any from entries.
func kumaPermissionCases(t *testing.T) []headCase {
	allowAll := "from: [{targetRef: {kind: Mesh}, default: {action: Allow}}]"
	fromPrev := func(svc string) string {
		return "from: [{targetRef: {kind: MeshService, name: " + svc + "}, default: {action: Deny}}, {targetRef: {kind: Mesh}, default: {action: Allow}}]"
	}
	dps := []Dataplane{proxy("web-1", map[string]string{ServiceTag: "web"}, "api"), proxy("api-1", map[string]string{ServiceTag: "api"}, "web")}
	perService := []Policy{
		kumaMTP(t, "web-permission", "{kind: MeshService, name: web}", fromPrev("api")),
		kumaMTP(t, "api-permission", "{kind: MeshService, name: api}", fromPrev("web")),
	}
	return []headCase{
		{
			name: "a mesh-wide allow decided on every source by the services' permissions", kind: kumaPermission,
			heads: perService, dps: dps,
			written: kumaMTP(t, "allow-all", "{kind: Mesh}", allowAll),
			want:    []string{"PRC-W014 MeshTrafficPermission kuma-system/allow-all never takes effect on any Dataplane: every field it sets is decided by kuma-system/api-permission, kuma-system/web-permission"},
		},
		{
			// The smaller display name wins between two Mesh-level policies.
			name: "a mesh-wide allow newly shadowing Kuma's allow-all", kind: kumaPermission,
			heads: []Policy{kumaMTP(t, "allow-all", "{kind: Mesh}", allowAll)}, dps: dps,
			written: kumaMTP(t, "a-new", "{kind: Mesh}", "from: [{targetRef: {kind: Mesh}, default: {action: Deny}}]"),
			want:    []string{"PRC-W014 MeshTrafficPermission kuma-system/allow-all never takes effect on any Dataplane: every field it sets is decided by kuma-system/a-new"},
		},
		{
			// On 3.0 web's rules replace no from item: the write allows api's sources on web.
			name: "a mesh-wide allow beside rules, which replace nothing on 3.0", kind: kumaPermission,
			heads: []Policy{perService[1], kumaMTP(t, "web-rules", "{kind: MeshService, name: web}",
				`rules: [{default: {deny: [{spiffeID: {type: Prefix, value: "spiffe://td"}}]}}]`)},
			dps:     dps,
			written: kumaMTP(t, "allow-all", "{kind: Mesh}", allowAll),
		},
	}
}

// TestMeshWriteLeavesKumaRulesToClasses: in an index of Kuma's MeshTrafficPermissions, meshWrite
// leaves to the classes a written policy with rules, and on Kuma 2.14 (where rules replace the
// from items) any write once some indexed policy has rules; the index still answers as the plain
// analysis does.
func TestMeshWriteLeavesKumaRulesToClasses(t *testing.T) {
	dps := []Dataplane{proxy("web-1", map[string]string{ServiceTag: "web"}, "api"), proxy("api-1", map[string]string{ServiceTag: "api"}, "web")}
	rules := kumaMTP(t, "web-rules", "{kind: Mesh}", `rules: [{default: {allow: [{spiffeID: {type: Prefix, value: "spiffe://td"}}]}}]`)
	allow := kumaMTP(t, "allow-all", "{kind: Mesh}", "from: [{targetRef: {kind: Mesh}, default: {action: Allow}}]")
	tests := []struct {
		name    string
		v       Version
		heads   []Policy
		written Policy
		fast    bool
	}{
		{"a written policy with rules", Kuma30, nil, rules, false},
		{"from items beside rules on 3.0", Kuma30, []Policy{rules}, allow, true},
		{"from items beside rules on 2.14", Kuma214, []Policy{rules}, allow, false},
		{"from items without rules on 2.14", Kuma214, nil, allow, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := NewIndexAt(tt.v, kumaPermission, tt.heads, dps)
			if _, ok := x.meshWrite(&tt.written, nil, false); ok != tt.fast {
				t.Errorf("meshWrite answered: %v, want %v", ok, tt.fast)
			}
			if diff := cmp.Diff(WriteWarningsAt(tt.v, tt.written, tt.heads, dps, false), x.WriteWarnings(tt.written, false), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("the index differs from the plain analysis (-plain +index):\n%s", diff)
			}
		})
	}
}

// TestMeshWriteHeads: a mesh-level element is blocked where a head set a leaf at a prefix of its
// field, or a leaf below it (an object at its path), and a warning names the first heads and counts
// the others; meshWrite says what the plain analysis says. Parse's schemas have no fields that are
// both a leaf and an object, so the policies are built here.
func TestMeshWriteHeads(t *testing.T) {
	mt := func(name string, top TargetRef, confs ...map[string]interface{}) Policy {
		p := Policy{Kind: KindMeshTimeout, Namespace: "kuma-system", Name: name, TargetRef: top}
		for _, c := range confs {
			p.To = append(p.To, NewElement(TargetRef{Kind: Mesh}, c))
		}
		return p
	}
	obj := func(k string, v interface{}) map[string]interface{} { return map[string]interface{}{k: v} }
	cells := []Policy{
		mt("web-http-leaf", TargetRef{Kind: Service, Name: "web"}, obj("http", "5s")),
		mt("api-http-object", TargetRef{Kind: Service, Name: "api"}, obj("http", obj("idleTimeout", "1s"))),
	}
	twoServices := []Dataplane{proxy("web-1", map[string]string{ServiceTag: "web"}, "backend"), proxy("api-1", map[string]string{ServiceTag: "api"}, "backend")}
	var many []Policy
	var manyServices []Dataplane
	for i := 0; i < 5; i++ {
		svc := fmt.Sprintf("svc-%d", i)
		many = append(many, mt(svc+"-timeouts", TargetRef{Kind: Service, Name: svc}, obj("connectTimeout", "1s")))
		manyServices = append(manyServices, proxy(svc+"-1", map[string]string{ServiceTag: svc}, "backend"))
	}
	var withFrom []Policy
	for _, h := range many {
		h.From = []Element{NewElement(TargetRef{Kind: Mesh}, obj("connectTimeout", "1s"))}
		withFrom = append(withFrom, h)
	}
	lowWithFrom := mt("m-low", TargetRef{Kind: Mesh}, obj("connectTimeout", "3s"), obj("http", obj("idleTimeout", "3s")))
	lowWithFrom.From = []Element{NewElement(TargetRef{Kind: Mesh}, obj("connectTimeout", "3s"))}
	kmt := func(name, top, conf string) Policy {
		return policy(t, "apiVersion: kuma.io/v1alpha1\nkind: MeshTimeout\nmetadata: {name: "+name+", namespace: kuma-system}\nspec:\n  targetRef: "+top+
			"\n  to:\n  - {targetRef: {kind: Mesh}, default: {"+conf+"}}\n")
	}
	// to items on the service backend, of policies on the Mesh (svcItems) or on a service
	onBackend := func(name string, top TargetRef, confs ...map[string]interface{}) Policy {
		p := Policy{Kind: KindMeshTimeout, Namespace: "kuma-system", Name: name, TargetRef: top}
		for _, c := range confs {
			p.To = append(p.To, NewElement(TargetRef{Kind: Service, Name: "backend"}, c))
		}
		return p
	}
	webAndAPI := []Policy{
		onBackend("web-timeouts", TargetRef{Kind: Service, Name: "web"}, obj("connectTimeout", "1s")),
		mt("api-timeouts", TargetRef{Kind: Service, Name: "api"}, obj("connectTimeout", "1s")),
	}
	webToBackend := []Dataplane{proxy("web-1", map[string]string{ServiceTag: "web"}, "backend"), proxy("api-1", map[string]string{ServiceTag: "api"}, "other")}
	var manyOnBackend []Policy
	for i := 0; i < 5; i++ {
		svc := fmt.Sprintf("svc-%d", i)
		manyOnBackend = append(manyOnBackend, onBackend(svc+"-timeouts", TargetRef{Kind: Service, Name: svc}, obj("connectTimeout", "1s")))
	}
	mixed := onBackend("base", TargetRef{Kind: Mesh}, obj("connectTimeout", "2s"))
	mixed.To = append(mixed.To, NewElement(TargetRef{Kind: Mesh}, obj("http", obj("idleTimeout", "2s"))))
	gateway := proxy("gw-1", map[string]string{ServiceTag: "gw"}, "backend")
	gateway.Gateway = true
	tests := []headCase{
		{
			// m-low reaches the sidecars only: the gateway's head, which claims the same field on
			// the gateway, does not block it.
			name: "a policy of one variant blocked by that variant's heads only", kind: kumaTimeout,
			heads: []Policy{
				kmt("web-timeouts", "{kind: MeshService, name: web}", "connectionTimeout: 1s"),
				kmt("gw-timeouts", "{kind: MeshService, name: gw}", "connectionTimeout: 1s"),
				kmt("m-low", "{kind: Mesh, proxyTypes: [Sidecar]}", "connectionTimeout: 2s, idleTimeout: 2s"),
			},
			dps:     []Dataplane{proxy("web-1", map[string]string{ServiceTag: "web"}, "backend"), gateway},
			written: kmt("a-new", "{kind: Mesh}", "idleTimeout: 3s"),
			want:    []string{"PRC-W014 MeshTimeout kuma-system/m-low never takes effect on any Dataplane: every field it sets is decided by kuma-system/web-timeouts, kuma-system/a-new"},
		},
		{
			name: "blocked by a leaf at a prefix and by the same leaf", heads: cells, dps: twoServices,
			written: mt("base", TargetRef{Kind: Mesh}, obj("http", obj("idleTimeout", "2s"))),
			want:    []string{"PRC-W014 MeshTimeout kuma-system/base never takes effect on any Dataplane: every field it sets is decided by kuma-system/web-http-leaf, kuma-system/api-http-object"},
		},
		{
			name: "a leaf blocked by the same leaf and by an object", heads: cells, dps: twoServices,
			written: mt("base", TargetRef{Kind: Mesh}, obj("http", "3s")),
			want:    []string{"PRC-W014 MeshTimeout kuma-system/base never takes effect on any Dataplane: every field it sets is decided by kuma-system/web-http-leaf, kuma-system/api-http-object"},
		},
		{
			name: "elements blocked apart", heads: cells, dps: twoServices,
			written: mt("base", TargetRef{Kind: Mesh}, obj("http", obj("idleTimeout", "2s")), obj("http", "3s"), obj("connectTimeout", "1s")),
			want: []string{
				"PRC-W014 MeshTimeout kuma-system/base: spec.to[0] never takes effect on any Dataplane: every field it sets is decided by spec.to[0] of kuma-system/web-http-leaf, spec.to[0] of kuma-system/api-http-object",
				"PRC-W014 MeshTimeout kuma-system/base: spec.to[1] never takes effect on any Dataplane: every field it sets is decided by spec.to[0] of kuma-system/web-http-leaf, spec.to[0] of kuma-system/api-http-object",
			},
		},
		{
			// m-low's to[0] is blocked by the heads through their cells, its from[0] by the same
			// heads' from items (kept in the index's sums), its to[1] by the write: each head counts once.
			name: "a mesh-level policy newly shadowed, its blockers counted once", heads: append(withFrom, lowWithFrom), dps: manyServices,
			written: mt("z-new", TargetRef{Kind: Mesh}, obj("http", obj("idleTimeout", "2s"))),
			want:    []string{"PRC-W014 MeshTimeout kuma-system/m-low never takes effect on any Dataplane: every field it sets is decided by kuma-system/svc-4-timeouts, kuma-system/svc-3-timeouts, kuma-system/svc-2-timeouts and 3 more"},
		},
		{
			name: "the first three heads named, the others counted", heads: many, dps: manyServices,
			written: mt("base", TargetRef{Kind: Mesh}, obj("connectTimeout", "2s")),
			want:    []string{"PRC-W014 MeshTimeout kuma-system/base never takes effect on any Dataplane: every field it sets is decided by kuma-system/svc-4-timeouts, kuma-system/svc-3-timeouts, kuma-system/svc-2-timeouts and 2 more"},
		},
	}
	tests = append(tests, []headCase{
		{
			// api-timeouts claims the field on every outbound of its class, which has none to
			// backend: it blocks nothing there.
			name: "a to item on a service blocked by the heads on that service only", heads: webAndAPI, dps: webToBackend,
			written: onBackend("base", TargetRef{Kind: Mesh}, obj("connectTimeout", "2s")),
			want:    []string{"PRC-W014 MeshTimeout kuma-system/base never takes effect on any Dataplane: every field it sets is decided by kuma-system/web-timeouts"},
		},
		{
			name: "the heads on a service named first three, the others counted", heads: manyOnBackend, dps: manyServices,
			written: onBackend("base", TargetRef{Kind: Mesh}, obj("connectTimeout", "2s")),
			want:    []string{"PRC-W014 MeshTimeout kuma-system/base never takes effect on any Dataplane: every field it sets is decided by kuma-system/svc-4-timeouts, kuma-system/svc-3-timeouts, kuma-system/svc-2-timeouts and 2 more"},
		},
		{
			// to[0] is blocked on backend by web-timeouts, to[1] everywhere by v1-http's cells.
			name: "a to item on a service and one on the Mesh blocked by different heads", heads: append(webAndAPI,
				mt("v1-http", TargetRef{Kind: MeshSubset, Tags: map[string]string{"version": "v1"}}, obj("http", obj("idleTimeout", "1s")))),
			dps: []Dataplane{proxy("web-1", map[string]string{ServiceTag: "web", "version": "v1"}, "backend"),
				proxy("api-1", map[string]string{ServiceTag: "api", "version": "v1"}, "other")},
			written: mixed,
			want:    []string{"PRC-W014 MeshTimeout kuma-system/base never takes effect on any Dataplane: every field it sets is decided by kuma-system/web-timeouts, kuma-system/v1-http"},
		},
		{
			name: "a mesh-level to item on a service newly shadowed by the write", heads: []Policy{onBackend("m-low", TargetRef{Kind: Mesh}, obj("connectTimeout", "3s"))},
			dps:     webToBackend,
			written: mt("z-new", TargetRef{Kind: Mesh}, obj("connectTimeout", "1s")),
			want:    []string{"PRC-W014 MeshTimeout kuma-system/m-low never takes effect on any Dataplane: every field it sets is decided by kuma-system/z-new"},
		},
	}...)
	tests = append(tests, fromHeadCases(t)...)
	tests = append(tests, proxyTypeCases(t)...)
	tests = append(tests, roleCases(t)...)
	tests = append(tests, kumaPermissionCases(t)...)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			kind := tt.kind
			if kind == "" {
				kind = KindMeshTimeout
			}
			x := NewIndex(kind, tt.heads, tt.dps)
			got, ok := x.meshWrite(&tt.written, nil, false)
			if !ok {
				t.Fatal("meshWrite did not answer the write")
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("meshWrite (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(WriteWarnings(tt.written, tt.heads, tt.dps, false), got); diff != "" {
				t.Errorf("meshWrite differs from the plain analysis (-plain +meshWrite):\n%s", diff)
			}
		})
	}
}

// TestMeshWriteLeavesPartRolesToClasses: a written policy with a namespace role whose namespace
// holds some Dataplanes but not all joins parts of classes' variants, so meshWrite leaves it to the
// classes; the index still answers as the plain analysis does.
func TestMeshWriteLeavesPartRolesToClasses(t *testing.T) {
	web := proxy("web-1", map[string]string{ServiceTag: "web"}, "backend")
	api := proxy("api-1", map[string]string{ServiceTag: "api"}, "backend")
	web.Namespace, api.Namespace = "kuma-demo", "other"
	dps := []Dataplane{web, api}
	written := policy(t, "apiVersion: kuma.io/v1alpha1\nkind: MeshTimeout\nmetadata: {name: a-new, namespace: kuma-demo}\n"+
		"spec:\n  targetRef: {kind: Mesh}\n  to:\n  - {targetRef: {kind: Mesh}, default: {idleTimeout: 3s}}\n")
	x := NewIndex(kumaTimeout, nil, dps)
	if _, ok := x.meshWrite(&written, nil, false); ok {
		t.Error("meshWrite answered a policy that reaches some Dataplanes only")
	}
	if diff := cmp.Diff(WriteWarnings(written, nil, dps, false), x.WriteWarnings(written, false), cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("the index differs from the plain analysis (-plain +index):\n%s", diff)
	}
}
