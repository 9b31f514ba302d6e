package engine

import (
	"slices"
)

// Grants is what a Gateway-level write is projected against, built once per generation of the
// policies and the topology: the Gateway-level policies of each Gateway, and the grants of the
// Backend-level policies behind each Gateway grouped by source and tool. Reviewing a write then costs
// what the write changes (the Gateway's policies, the sources and tools they name), not the number of
// Backends behind the Gateway. ProjectWrite and ProjectDelete are the reference it answers as.
// Update (a policy event) and WithTopology (a topology event) return the next version at the cost of
// what the event touches; versions share the rest in persistent maps and never change, so readers of
// one need no lock.
type Grants struct {
	policies func() []Policy // every policy: as given, or listed from byKey on first use after Update
	topo     *Topology
	settings Settings
	byKey    keyed[*Policy]
	gateway  keyed[[]*Policy]      // gateway → the Gateway-level policies targeting it
	behind   keyed[*gatewayGrants] // gateway → the grants behind it
	backends keyed[[]*Policy]      // backend → the policies targeting it, in precedence order
}

// NewGrants builds the Grants of policies (every AccessPolicy of one kind) over topo. The inputs are
// kept and only read: do not modify them afterwards.
func NewGrants(policies []Policy, topo *Topology, s Settings) *Grants {
	s = s.withDefaults()
	if topo == nil {
		topo = &Topology{}
	}
	g := &Grants{policies: func() []Policy { return policies }, topo: topo, settings: s}
	all := make([]*Policy, len(policies))
	byKey, gateway := make(map[string]*Policy, len(policies)), map[string][]*Policy{}
	for i := range policies {
		p := &policies[i]
		all[i] = p
		byKey[p.Key()] = p
		for _, gw := range targetKeys(p, GatewayGroup, GatewayKind) {
			if l := gateway[gw]; len(l) == 0 || l[len(l)-1] != p {
				gateway[gw] = append(l, p)
			}
		}
	}
	idx := backendIndex(all, s)
	g.byKey, g.gateway, g.backends = keyedOf(byKey), keyedOf(gateway), keyedOf(idx)
	seen := map[grant]bool{} // the grants of one policy, cleared for each
	behind := map[string]*gatewayGrants{}
	for gw := range entries(&topo.backends) {
		if gg := g.grantsBehindOf(topo, gw, seen, idx); gg != nil {
			behind[gw] = gg
		}
	}
	g.behind = keyedOf(behind)
	return g
}

// ProjectWrite is ProjectWrite(written, policies, topo, s, limit) of the policies and topology g was
// built from, under g's settings.
func (g *Grants) ProjectWrite(written Policy, limit int) []string {
	s := g.settings
	old := valueAt(&g.byKey, written.Key())
	if written.Level() != LevelGateway {
		return g.backendWrite(written, old, limit)
	}
	if old != nil && len(targetKeys(old, s.BackendGroup, s.BackendKind)) > 0 {
		// A Backend-level policy turned Gateway-level takes its grants out of the index: as the
		// reference does.
		return ProjectWrite(written, g.policies(), g.topo, s, limit)
	}
	gateways := targetKeys(&written, GatewayGroup, GatewayKind)
	if old != nil {
		gateways = append(gateways, targetKeys(old, GatewayGroup, GatewayKind)...)
	}
	slices.Sort(gateways)
	gateways = slices.Compact(gateways)
	pj := projection{allAllow: s.Combine == AllAllow, limit: warningLimit(limit)}
	for _, gw := range gateways {
		before := newLevelCheck(g.gatewayPolicies(gw, nil, nil)) // old is among the stored
		after := newLevelCheck(g.gatewayPolicies(gw, old, &written))
		pj.gatewayWrite(gw, valueAt(&g.behind, gw), before, after)
	}
	return pj.warnings()
}

// backendWrite is the reference's Backend-level write over the indexes: the written grants against
// the Gateway-level policies in front of each of its Backends (old left out), then the other
// policies of each Backend. Its cost follows those Gateways' and Backends' policies, not the cluster.
func (g *Grants) backendWrite(written Policy, old *Policy, limit int) []string {
	s := g.settings
	pr := projector{allAllow: s.Combine == AllAllow, seen: map[string]bool{}}
	for _, b := range targetKeys(&written, s.BackendGroup, s.BackendKind) {
		for _, gw := range g.topo.GatewaysInFront(b) {
			pr.grants(gw, &written, newLevelCheck(g.gatewayPolicies(gw, old, nil)), nil)
		}
		var rest []*Policy
		for _, p := range valueAt(&g.backends, b) {
			if p.Namespace != written.Namespace || p.Name != written.Name {
				rest = append(rest, p)
			}
		}
		pr.backendWrite(b, &written, old, rest, s)
	}
	return capWarnings(pr.warnings, limit)
}

// ProjectDelete is ProjectDelete(deleted, policies, topo, s, limit) of the policies and topology g was
// built from, under g's settings.
func (g *Grants) ProjectDelete(deleted Policy, limit int) []string {
	s := g.settings
	old := valueAt(&g.byKey, deleted.Key())
	if deleted.Level() != LevelGateway || (old != nil && len(targetKeys(old, s.BackendGroup, s.BackendKind)) > 0) {
		return ProjectDelete(deleted, g.policies(), g.topo, s, limit)
	}
	pj := projection{allAllow: s.Combine == AllAllow, limit: warningLimit(limit)}
	var done []string
	for _, gw := range targetKeys(&deleted, GatewayGroup, GatewayKind) {
		if slices.Contains(done, gw) { // a second targetRef (another listener) repeats every warning
			continue
		}
		done = append(done, gw)
		before := newLevelCheck(g.gatewayPolicies(gw, old, &deleted))
		after := newLevelCheck(g.gatewayPolicies(gw, old, nil))
		if before.restricts() && !after.restricts() {
			n, plural := len(g.topo.BackendsBehind(gw)), "s"
			if n == 1 {
				plural = ""
			}
			pj.segments = append(pj.segments, segment{text: codeLeftOpen.Linef("removing this policy leaves gateway %s without allow rules: every source may call every tool of the %d backend%s behind it", gw, n, plural), count: 1})
		}
		pj.gatewayWrite(gw, valueAt(&g.behind, gw), before, after)
	}
	return pj.warnings()
}

// gatewayPolicies returns the Gateway-level policies of gw without the one keyed as without (when
// not nil) and with extra (when not nil and it targets gw), in precedence order.
func (g *Grants) gatewayPolicies(gw string, without, extra *Policy) []Policy {
	ps := make([]Policy, 0, len(valueAt(&g.gateway, gw))+1)
	for _, p := range valueAt(&g.gateway, gw) {
		if without == nil || p.Namespace != without.Namespace || p.Name != without.Name {
			ps = append(ps, *p)
		}
	}
	if extra != nil && targetsKey(extra, GatewayGroup, GatewayKind, gw) {
		ps = append(ps, *extra)
	}
	SortByPrecedence(ps)
	return ps
}

func warningLimit(limit int) int {
	if limit <= 0 {
		return DefaultWarningLimit
	}
	return limit
}

// projection gathers the warnings of a write in order without rendering them all: each Gateway's
// unreachable grants are counted by group, and only the first limit of them are kept.
type projection struct {
	allAllow bool
	limit    int
	segments []segment
}

// segment is one warning (text) or the unreachable grants behind one Gateway: count of them, the
// first positions (ascending, at most limit) to render with after's reasons.
type segment struct {
	text  string
	gw    string
	gg    *gatewayGrants
	after *levelCheck
	all   bool // allAllow, for after's reasons
	first []gpos
	count int
}

// gatewayWrite adds the grants behind gw (gg, nil when none) that before lets through and after does
// not. Only what the checks name is decided one by one: a source that no allow rule of either names
// passes or fails with every tool as any such source does (no rule matches it), and a named source's
// grants of tools that neither check names pass or fail together, as a tool no rule names does.
func (pj *projection) gatewayWrite(gw string, gg *gatewayGrants, before, after *levelCheck) {
	if gg == nil {
		return
	}
	seg := segment{gw: gw, gg: gg, after: after, all: pj.allAllow}
	tools, sources := map[string]bool{}, map[Principal]bool{}
	for _, c := range []*levelCheck{before, after} {
		for _, t := range c.tools {
			tools[t] = true
		}
		for i := range c.policies {
			for _, r := range c.policies[i].Rules {
				if r.Type != ExternalAuth {
					sources[r.Source] = true
				}
			}
		}
	}
	named := 0 // grants of the named sources
	for src := range sources {
		if sg := valueAt(&gg.sources, principalKey(src)); sg != nil {
			named += sg.inline + sg.any
			pj.sourceWrite(&seg, src, sg, tools, before, after)
		}
	}
	// Principal{} is never a source: it stands for every source no rule names.
	if others := gg.total - named; others > 0 && pj.unreachable(Principal{}, passed, before, after) {
		seg.count += others
		seg.first = gg.appendFirst(seg.first, nil, pj.limit, func(o *grantOf) bool { return !sources[o.source] })
	}
	if seg.count == 0 {
		return
	}
	slices.SortFunc(seg.first, gpos.compare)
	seg.first = seg.first[:min(len(seg.first), pj.limit)]
	pj.segments = append(pj.segments, seg)
}

// sourceWrite adds to seg the grants to src (a source some rule of before or after names) that
// before lets through and after does not.
func (pj *projection) sourceWrite(seg *segment, src Principal, sg *sourceGrants, tools map[string]bool, before, after *levelCheck) {
	gg := seg.gg
	take := func(count int, at *ordered[struct{}], keep func(*grantOf) bool) {
		seg.count += count
		seg.first = gg.appendFirst(seg.first, at, pj.limit, keep)
	}
	if sg.any > 0 && pj.unreachableAny(src, before, after) {
		take(sg.any, &sg.anyAt, func(o *grantOf) bool { return o.any && o.source == src })
	}
	others := sg.inline
	for t := range tools {
		tg := valueAt(&sg.tools, t)
		if tg == nil {
			continue
		}
		others -= tg.count
		if pj.unreachable(src, t, before, after) {
			take(tg.count, &tg.at, func(o *grantOf) bool { return !o.any && o.source == src && o.tool == t })
		}
	}
	if others == 0 || !pj.unreachable(src, passed, before, after) { // passed is never a tool name
		return
	}
	take(others, &sg.inlineAt, func(o *grantOf) bool { return !o.any && o.source == src && !tools[o.tool] })
}

func (pj *projection) unreachable(src Principal, tool string, before, after *levelCheck) bool {
	if _, ok := after.reachable(src, tool, pj.allAllow); ok {
		return false
	}
	_, was := before.reachable(src, tool, pj.allAllow)
	return was
}

func (pj *projection) unreachableAny(src Principal, before, after *levelCheck) bool {
	if _, ok := after.reachableAny(src, pj.allAllow); ok {
		return false
	}
	_, was := before.reachableAny(src, pj.allAllow)
	return was
}

// warnings renders the first warnings and counts the rest, as capWarnings does.
func (pj *projection) warnings() []string {
	total := 0
	for _, sg := range pj.segments {
		total += sg.count
	}
	if total == 0 {
		return nil
	}
	l := grantsLimit(pj.limit)
	shown := l.Shown(total)
	ws := make([]string, 0, min(total, pj.limit))
	for _, sg := range pj.segments {
		if sg.text != "" && len(ws) < shown {
			ws = append(ws, sg.text)
		}
		for _, p := range sg.first {
			if len(ws) == shown {
				break
			}
			ws = append(ws, sg.render(p))
		}
	}
	if c := l.Closing(total); c != "" {
		ws = append(ws, c)
	}
	return ws
}

// render is the warning for the grant at position p behind the segment's Gateway.
func (sg *segment) render(p gpos) string {
	o := &p.c.order[p.i]
	if o.any {
		reason, _ := sg.after.reachableAny(o.source, sg.all)
		return codeUnreachable.Linef("all tools granted to %s by %s are denied at gateway %s: %s", o.source, o.policy, sg.gw, reason)
	}
	reason, _ := sg.after.reachable(o.source, o.tool, sg.all)
	return codeUnreachable.Linef("tool `%s` granted to %s by %s is denied at gateway %s: %s", o.tool, o.source, o.policy, sg.gw, reason)
}
