package state

import (
	"context"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/precedent-dev/precedent/internal/effective"
	"github.com/precedent-dev/precedent/internal/topology"
)

// A policy event drops the folds of the paths that policy reaches (effective.Snapshot.Update); the
// folds of those paths that readers had used are folded again by the refolder, off the request
// path, once the event is published: a Gateway-level write under a Gateway policy of thousands of
// rules then finds the fold before it memoized instead of making the API server wait for it. The
// refolder works on the newest snapshot of the kind, so a burst of events costs one fold per path
// once it has passed, and nothing waits for it: a request that comes first folds as before.

// maxRefold bounds the paths an event looks at for folds to do again (a GatewayClass policy reaches
// every path): beyond it, readers fold what they need, as before.
const maxRefold = 1024

// refoldJob is what to fold again for one kind: paths of graph.
type refoldJob struct {
	graph *topology.Graph
	paths []int
}

// toRefold returns the paths whose folds snap had memoized among those the policy event on ref
// (its version in snap, and p, nil for a delete) reaches.
func toRefold(snap *effective.Snapshot, old, p []int) []int {
	if len(old) > maxRefold || len(p) > maxRefold {
		return nil
	}
	return snap.Folded(snap.Graph.Union(old, p))
}

// queueRefold records paths of graph to fold again for kind gk and wakes the refolder (mu held).
func (s *State) queueRefold(gk schema.GroupKind, graph *topology.Graph, paths []int) {
	if len(paths) == 0 {
		return
	}
	if s.refolds == nil {
		s.refolds = map[schema.GroupKind]refoldJob{}
	}
	j := s.refolds[gk]
	if j.graph != graph {
		j = refoldJob{graph: graph}
	}
	j.paths = graph.Union(j.paths, paths)
	if len(j.paths) > maxRefold {
		j.paths = j.paths[:maxRefold]
	}
	s.refolds[gk] = j
	select {
	case s.refold <- struct{}{}:
	default: // a wake-up is pending already
	}
}

// refolder folds the queued paths on the newest snapshot of their kind, while its graph is the
// one they index.
func (s *State) refolder(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.refold:
		}
		s.mu.Lock()
		jobs := s.refolds
		s.refolds = nil
		snaps := make(map[schema.GroupKind]*effective.Snapshot, len(jobs))
		for gk, j := range jobs {
			if b := s.snaps[gk]; b != nil && b.graph == j.graph {
				snaps[gk] = b.snap
			}
		}
		s.mu.Unlock()
		for gk, snap := range snaps {
			snap.Refold(jobs[gk].paths)
		}
	}
}
