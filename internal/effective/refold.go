package effective

import (
	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/topology"
)

// A change to a policy drops the memoized folds of the paths it reaches (Update): the next reader
// of one of them folds it again, a Gateway policy of thousands of rules included, while the API
// server waits. Folded tells which of those folds were in use before the change, and Refold folds
// them on the next version off the request path (the state does, once it has published the event),
// so that the next request finds them memoized. A fold is a function of its key: folding it early
// changes no result, only who waits for it.

// Folded returns those of paths (indexes in s's graph) whose folds s has memoized, in the same
// order. It returns nil for a view.
func (s *Snapshot) Folded(paths []int) []int {
	if s.hasOverlay || s.results == nil {
		return nil
	}
	var out []int
	for _, i := range paths {
		var lv [topology.MaxTargets][]*policy.Policy
		var buf [1024]byte
		key, m := s.pathLevels(buf[:0], &lv, i)
		if m == 0 {
			continue // no policy on the path: nothing worth folding ahead
		}
		if _, ok := s.results.load(key, lv[:m]); ok {
			out = append(out, i)
		}
	}
	return out
}

// Refold folds the paths with the given indexes in s's graph through the memo (paths of one fold
// key fold once), as ComputePath would for a request.
func (s *Snapshot) Refold(paths []int) {
	for _, i := range paths {
		if i >= 0 && i < len(s.Graph.Paths) {
			s.ComputePath(i)
		}
	}
}
