package engine

import (
	"cmp"
	"strings"
)

// gatewayGrants are the grants behind one Gateway: each distinct (policy, source, tool) in the order
// ProjectWrite meets them (Backends sorted, their policies in precedence order, each policy at the
// first of its Backends behind the Gateway, rules and tools in order). They are kept in chunks, one
// a Backend, with counts and the Backends holding each source's (and each source and tool's) grants,
// so that a policy event changes the chunks of the Backends it targets and no other. Versions share
// what did not change; none changes once published.
type gatewayGrants struct {
	chunks  ordered[*grantChunk] // backend → its grants (chunks are never empty)
	total   int                  // grants in all
	sources keyed[*sourceGrants] // principalKey(source) → the source's grants
}

// grantChunk is the grants of the policies first met at one Backend, in order.
type grantChunk struct {
	backend string
	order   []grantOf
}

// grantOf is one grant of one Backend-level policy; any for an AllTools rule.
type grantOf struct {
	policy string
	grant
}

// sourceGrants are one source's grants behind a Gateway: how many InlineTools and AllTools grants,
// the Backends whose chunks hold some of each, and the same by tool.
type sourceGrants struct {
	inline, any     int
	inlineAt, anyAt ordered[struct{}]
	tools           keyed[*toolGrants]
}

// toolGrants are one source's InlineTools grants of one tool: how many, and at which Backends.
type toolGrants struct {
	count int
	at    ordered[struct{}]
}

// gpos is where a grant is behind a Gateway: its chunk and its index there. Positions sort as the
// grants' order.
type gpos struct {
	c *grantChunk
	i int32
}

func (a gpos) compare(b gpos) int {
	if c := strings.Compare(a.c.backend, b.c.backend); c != 0 {
		return c
	}
	return cmp.Compare(a.i, b.i)
}

// principalKey keys a source: its ServiceAccount "namespace/name", or its SPIFFE ID (which has a
// colon, as no ServiceAccount key has).
func principalKey(p Principal) string {
	if p.ServiceAccount != "" {
		return p.ServiceAccount
	}
	return p.SPIFFE
}

// chunkOf builds the chunk of Backend b behind Gateway gw over topo: the grants of b's policies that
// target no Backend behind gw sorting before b; nil when there are none (or b is not behind gw).
// seen is scratch space.
func (g *Grants) chunkOf(topo *Topology, gw, b string, seen map[grant]bool) *grantChunk {
	if _, ok := topo.links.Get(pairKey(gw, b)); !ok {
		return nil
	}
	return g.chunkIn(topo, gw, b, valueAt(&g.backends, b), seen, nil)
}

// chunkIn is chunkOf for a Backend b behind gw whose policies are ps, taking its memory from build
// (nil: the heap).
func (g *Grants) chunkIn(topo *Topology, gw, b string, ps []*Policy, seen map[grant]bool, build *grantsBuild) *grantChunk {
	var c *grantChunk
	for _, p := range ps {
		if g.behindBefore(topo, p, gw, b) {
			continue
		}
		if c == nil {
			c = build.chunk(b, grantsOf(ps))
		}
		c.addPolicy(p, seen)
	}
	if c == nil || len(c.order) == 0 {
		return nil
	}
	return c
}

// behindBefore reports whether p targets a Backend behind gw that sorts before b.
func (g *Grants) behindBefore(topo *Topology, p *Policy, gw, b string) bool {
	s := g.settings
	for _, t := range p.Targets {
		if t.Group != s.BackendGroup || t.Kind != s.BackendKind || keyIs(b, p.Namespace, t.Name) {
			continue
		}
		if k := p.Namespace + "/" + t.Name; k < b {
			if _, ok := topo.links.Get(pairKey(gw, k)); ok {
				return true
			}
		}
	}
	return false
}

// keyIs reports whether key is namespace/name.
func keyIs(key, namespace, name string) bool {
	return len(key) == len(namespace)+1+len(name) && key[:len(namespace)] == namespace && key[len(namespace)] == '/' && key[len(namespace)+1:] == name
}

// grantsOf is the most grants ps can have.
func grantsOf(ps []*Policy) int {
	n := 0
	for _, p := range ps {
		for i := range p.Rules {
			n += max(len(p.Rules[i].Tools), 1)
		}
	}
	return n
}

// addPolicy adds p's grants not added yet for p, in order; seen is scratch space.
func (c *grantChunk) addPolicy(p *Policy, seen map[grant]bool) {
	clear(seen)
	add := func(o grantOf) {
		if !seen[o.grant] {
			seen[o.grant] = true
			c.order = append(c.order, o)
		}
	}
	key := p.Key()
	for i := range p.Rules {
		r := &p.Rules[i]
		switch r.Type {
		case AllTools:
			add(grantOf{policy: key, grant: grant{source: r.Source, any: true}})
		case InlineTools:
			for _, t := range r.Tools {
				add(grantOf{policy: key, grant: grant{source: r.Source, tool: t}})
			}
		}
	}
}

// withChunk returns gg (nil for none) with the chunk of Backend b old replaced by c (either nil for
// none). gg stays unchanged.
func (gg *gatewayGrants) withChunk(b string, old, c *grantChunk) *gatewayGrants {
	n := &gatewayGrants{}
	if gg != nil {
		*n = *gg
	}
	if c != nil {
		n.chunks = *n.chunks.Set(b, c)
	} else {
		n.chunks = *n.chunks.Delete(b)
	}
	if old != nil {
		n.account(b, old, -1)
	}
	if c != nil {
		n.account(b, c, 1)
	}
	return n
}

// account adds the grants of chunk c at Backend b to n's counts and Backend sets (by 1), or takes
// them out (by -1). What it changes is copied first, once.
func (n *gatewayGrants) account(b string, c *grantChunk, by int) {
	n.total += by * len(c.order)
	copies := map[*sourceGrants]bool{} // the sourceGrants and toolGrants made by this call
	tcopies := map[*toolGrants]bool{}
	for i := range c.order {
		o := &c.order[i]
		k := principalKey(o.source)
		sg := valueAt(&n.sources, k)
		switch {
		case sg == nil:
			sg = &sourceGrants{}
			n.sources = *n.sources.Set(k, sg)
		case !copies[sg]:
			cp := *sg
			sg = &cp
			n.sources = *n.sources.Set(k, sg)
		}
		copies[sg] = true
		if o.any {
			sg.any += by
			sg.anyAt = member(sg.anyAt, b, by > 0)
			if sg.inline+sg.any == 0 { // the last grant of the source taken out
				n.sources = *n.sources.Delete(k)
			}
			continue
		}
		sg.inline += by
		sg.inlineAt = member(sg.inlineAt, b, by > 0)
		tg := valueAt(&sg.tools, o.tool)
		switch {
		case tg == nil:
			tg = &toolGrants{}
			sg.tools = *sg.tools.Set(o.tool, tg)
		case !tcopies[tg]:
			cp := *tg
			tg = &cp
			sg.tools = *sg.tools.Set(o.tool, tg)
		}
		tcopies[tg] = true
		tg.count += by
		tg.at = member(tg.at, b, by > 0)
		if tg.count == 0 {
			sg.tools = *sg.tools.Delete(o.tool)
		}
		if sg.inline+sg.any == 0 { // the last grant of the source taken out
			n.sources = *n.sources.Delete(k)
		}
	}
}

// member returns at with b in it (in) or out of it.
func member(at ordered[struct{}], b string, in bool) ordered[struct{}] {
	if !in {
		return *at.Delete(b)
	}
	if _, ok := at.Get(b); ok {
		return at
	}
	return *at.Set(b, struct{}{})
}

// appendFirst appends to first the positions of the first limit grants that keep accepts, in the
// chunks of the Backends of at (every chunk when at is nil), in order.
func (gg *gatewayGrants) appendFirst(first []gpos, at *ordered[struct{}], limit int, keep func(*grantOf) bool) []gpos {
	n := 0
	scan := func(c *grantChunk) bool {
		for i := range c.order {
			if n == limit {
				return false
			}
			if keep(&c.order[i]) {
				first = append(first, gpos{c, int32(i)})
				n++
			}
		}
		return n < limit
	}
	if at == nil {
		for _, c := range inOrder(&gg.chunks) {
			if !scan(c) {
				break
			}
		}
		return first
	}
	for b := range inOrder(at) {
		if c, _ := gg.chunks.Get(b); c != nil && !scan(c) {
			break
		}
	}
	return first
}
