package engine

import "github.com/precedent-dev/precedent/internal/topology"

// listenerCache holds listener's answers by the number the graph gives the path's listener (a
// Gateway's listener, or a ListenerSet's), for a walk over every route: looking each path's Gateway
// up by namespace/name and reading its listeners, routes met in no order, missed the caches at 10x
// on every path.
type listenerCache struct {
	at    []int32 // by target number: 1 + the listener's index in found; 0: not looked up yet
	found []listenerAt
}

// listenerAt is what listener returns for one listener.
type listenerAt struct {
	port int32
	host string
	ok   bool
}

func newListenerCache(g *topology.Graph) *listenerCache {
	return &listenerCache{at: make([]int32, g.TargetIDs())}
}

// pathListener is w.listener of path i of w's graph, through c (nil: none).
func (w *World) pathListener(i int, c *listenerCache) (int32, string, bool) {
	p := &w.Graph.Paths[i]
	if c == nil {
		return w.listener(*p)
	}
	n := 2 // the listener's place among the path's targets (LevelTargets)
	if p.ListenerSet.Name != "" {
		n = 3
	}
	id := w.Graph.PathTargetIDs(i)[n]
	if j := c.at[id]; j > 0 {
		l := c.found[j-1]
		return l.port, l.host, l.ok
	}
	port, host, ok := w.listener(*p)
	c.found = append(c.found, listenerAt{port: port, host: host, ok: ok})
	c.at[id] = int32(len(c.found))
	return port, host, ok
}
