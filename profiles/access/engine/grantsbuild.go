package engine

import "github.com/benbjohnson/immutable"

// grantsBehindOf builds the grants behind gw over topo, nil when there are none. idx, when not nil,
// is g.backends as a Go map (while building g).
func (g *Grants) grantsBehindOf(topo *Topology, gw string, seen map[grant]bool, idx map[string][]*Policy) *gatewayGrants {
	build := &grantsBuild{}
	chunks := immutable.NewSortedMapBuilder[string, *grantChunk](nil)
	for _, b := range topo.BackendsBehind(gw) {
		var ps []*Policy
		if idx != nil {
			ps = idx[b]
		} else {
			ps = valueAt(&g.backends, b)
		}
		if c := g.chunkIn(topo, gw, b, ps, seen, build); c != nil {
			chunks.Set(b, c)
			build.add(b, c)
		}
	}
	if build.total == 0 {
		return nil
	}
	return &gatewayGrants{chunks: *chunks.Map(), total: build.total, sources: build.sourcesMap()}
}

// grantsBuild holds what the grants behind one Gateway are built from: memory taken many at a time,
// and the counts and Backend sets of the sources as Go maps and slices until they are complete.
type grantsBuild struct {
	chunks  []grantChunk
	grants  []grantOf
	last    int // the size of grants when last allocated
	total   int
	sources map[string]*sourceBuild
}

// sourceBuild is a sourceGrants being built, Backends in order.
type sourceBuild struct {
	inline, any     int
	inlineAt, anyAt []string
	tools           map[string]*toolBuild
}

// toolBuild is a toolGrants being built.
type toolBuild struct {
	count int
	at    []string
}

// chunk returns a new chunk of Backend b with room for n grants.
func (gb *grantsBuild) chunk(b string, n int) *grantChunk {
	if gb == nil {
		return &grantChunk{backend: b, order: make([]grantOf, 0, n)}
	}
	if len(gb.grants) < n {
		gb.last = min(max(2*gb.last, 32), 1024)
		gb.grants = make([]grantOf, max(n, gb.last))
	}
	if len(gb.chunks) == 0 {
		gb.chunks = make([]grantChunk, min(max(2*cap(gb.chunks), 8), 256))
	}
	c := &gb.chunks[0]
	gb.chunks = gb.chunks[1:]
	c.backend, c.order = b, gb.grants[:0:n]
	gb.grants = gb.grants[n:]
	return c
}

// add counts the grants of chunk c at Backend b; chunks come in Backend order.
func (gb *grantsBuild) add(b string, c *grantChunk) {
	if gb.sources == nil {
		gb.sources = map[string]*sourceBuild{}
	}
	gb.total += len(c.order)
	for i := range c.order {
		o := &c.order[i]
		k := principalKey(o.source)
		s := gb.sources[k]
		if s == nil {
			s = &sourceBuild{}
			gb.sources[k] = s
		}
		if o.any {
			s.any++
			s.anyAt = appendNew(s.anyAt, b)
			continue
		}
		s.inline++
		s.inlineAt = appendNew(s.inlineAt, b)
		t := s.tools[o.tool]
		if t == nil {
			if s.tools == nil {
				s.tools = map[string]*toolBuild{}
			}
			t = &toolBuild{}
			s.tools[o.tool] = t
		}
		t.count++
		t.at = appendNew(t.at, b)
	}
}

// appendNew appends b to l unless it is l's last element.
func appendNew(l []string, b string) []string {
	if len(l) > 0 && l[len(l)-1] == b {
		return l
	}
	return append(l, b)
}

// sourcesMap is the sources counted, as persistent maps.
func (gb *grantsBuild) sourcesMap() keyed[*sourceGrants] {
	sources := make(map[string]*sourceGrants, len(gb.sources))
	for k, s := range gb.sources {
		tools := make(map[string]*toolGrants, len(s.tools))
		for t, tb := range s.tools {
			tools[t] = &toolGrants{count: tb.count, at: setOf(tb.at)}
		}
		sources[k] = &sourceGrants{inline: s.inline, any: s.any, inlineAt: setOf(s.inlineAt), anyAt: setOf(s.anyAt), tools: keyedOf(tools)}
	}
	return keyedOf(sources)
}

// setOf is the keys of l (sorted) as a persistent ordered set.
func setOf(l []string) ordered[struct{}] {
	b := immutable.NewSortedMapBuilder[string, struct{}](nil)
	for _, k := range l {
		b.Set(k, struct{}{})
	}
	return *b.Map()
}
