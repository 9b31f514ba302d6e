package effective

import (
	"encoding/binary"
	"sort"
	"sync"
	"unsafe"

	"github.com/precedent-dev/precedent/cel"
	"github.com/precedent-dev/precedent/policy"
	"github.com/precedent-dev/precedent/topology"
)

// Snapshot is the state one computation runs over: the topology and the policies of one kind,
// indexed by target. It is immutable; With and Without return a view with one policy written or
// removed, without copying the index, so projecting a write costs work proportional to the paths
// that policy reaches.
type Snapshot struct {
	Kind  policy.Kind
	Graph *topology.Graph
	Cond  *cel.Evaluator

	byTarget map[topology.Target][]*policy.Policy
	byRef    map[policy.Ref]*policy.Policy

	// overlay: one policy written (or removed) on top of the index.
	overlayRef policy.Ref
	overlay    *policy.Policy // nil with hasOverlay: removed
	hasOverlay bool

	// results memoizes folds by the policies that reach a path (see foldKey): a fold depends on
	// nothing else, so paths with the same policies (the rules of a route without rule-level
	// policies, the routes of a Gateway that have no policies of their own) share one fold, and a
	// snapshot, being immutable, folds each set once. Views made by With/Without get their own
	// (per-request) memo, since the written policy changes the results.
	results *sync.Map // foldKey → Result
}

// NewSnapshot indexes policies (of kind k) over graph.
func NewSnapshot(k policy.Kind, graph *topology.Graph, policies []*policy.Policy, cond *cel.Evaluator) *Snapshot {
	s := &Snapshot{Kind: k, Graph: graph, Cond: cond, byTarget: map[topology.Target][]*policy.Policy{}, byRef: map[policy.Ref]*policy.Policy{}, results: &sync.Map{}}
	for _, p := range policies {
		s.byRef[p.Ref] = p
		for _, t := range TargetsOf(p) {
			s.byTarget[t] = append(s.byTarget[t], p)
		}
	}
	for t := range s.byTarget {
		ps := s.byTarget[t]
		sort.Slice(ps, func(i, j int) bool { return policy.Less(ps[i], ps[j]) })
	}
	return s
}

// TargetsOf maps a policy's target refs (local, in the policy's namespace) to topology targets.
// References outside the Gateway API group are skipped (validation rejects them).
func TargetsOf(p *policy.Policy) []topology.Target {
	var out []topology.Target
	seen := map[topology.Target]bool{}
	for _, r := range p.Targets {
		if r.Group != topology.Group {
			continue
		}
		t := topology.Target{Kind: r.Kind, Namespace: p.Ref.Namespace, Name: r.Name, Section: r.SectionName}
		if r.Kind == "GatewayClass" {
			t.Namespace = ""
		}
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

// With returns a view in which p is written (created or replaced by namespace/name).
func (s *Snapshot) With(p *policy.Policy) *Snapshot {
	c := *s
	c.overlayRef, c.overlay, c.hasOverlay = p.Ref, p, true
	c.results = &sync.Map{}
	return &c
}

// Without returns a view in which the policy ref is removed.
func (s *Snapshot) Without(ref policy.Ref) *Snapshot {
	c := *s
	c.overlayRef, c.overlay, c.hasOverlay = ref, nil, true
	c.results = &sync.Map{}
	return &c
}

// Policy returns the policy with ref in this view.
func (s *Snapshot) Policy(ref policy.Ref) (*policy.Policy, bool) {
	if s.hasOverlay && ref == s.overlayRef {
		return s.overlay, s.overlay != nil
	}
	p, ok := s.byRef[ref]
	return p, ok
}

// Policies lists every policy of this view, in precedence order.
func (s *Snapshot) Policies() []*policy.Policy {
	out := make([]*policy.Policy, 0, len(s.byRef)+1)
	for ref, p := range s.byRef {
		if s.hasOverlay && ref == s.overlayRef {
			continue
		}
		out = append(out, p)
	}
	if s.hasOverlay && s.overlay != nil {
		out = append(out, s.overlay)
	}
	sort.Slice(out, func(i, j int) bool { return policy.Less(out[i], out[j]) })
	return out
}

// At returns the policies attached to a target in this view, in precedence order.
func (s *Snapshot) At(t topology.Target) []*policy.Policy {
	base := s.byTarget[t]
	if !s.hasOverlay {
		return base
	}
	var out []*policy.Policy
	for _, p := range base {
		if p.Ref != s.overlayRef {
			out = append(out, p)
		}
	}
	if s.overlay != nil {
		for _, ot := range TargetsOf(s.overlay) {
			if ot == t {
				out = append(out, s.overlay)
				sort.Slice(out, func(i, j int) bool { return policy.Less(out[i], out[j]) })
				break
			}
		}
	}
	return out
}

// PathsOf returns the indexes of the paths that a policy's targets reach, sorted, without duplicates.
func (s *Snapshot) PathsOf(p *policy.Policy) []int {
	seen := map[int]bool{}
	var out []int
	for _, t := range TargetsOf(p) {
		for _, i := range s.Graph.PathsFor(t) {
			if !seen[i] {
				seen[i] = true
				out = append(out, i)
			}
		}
	}
	sort.Ints(out)
	return out
}

// Levels returns the levels of one path, most specific first, with the policies at each.
func (s *Snapshot) Levels(path topology.Path) []LeveledPolicies {
	ts := path.Targets()
	out := make([]LeveledPolicies, 0, len(ts))
	for i := len(ts) - 1; i >= 0; i-- {
		ps := s.At(ts[i].Target)
		if len(ps) == 0 {
			continue
		}
		out = append(out, LeveledPolicies{Level: ts[i].Level, Target: ts[i].Target, Policies: ps})
	}
	return out
}

// LeveledPolicies is the set of policies attached at one level of a path.
type LeveledPolicies struct {
	Level    topology.Level
	Target   topology.Target
	Policies []*policy.Policy
}

// Compute folds the effective policy of one path. The result is shared: callers must not modify it.
func (s *Snapshot) Compute(path topology.Path) Result {
	lv := s.Levels(path)
	if s.results == nil {
		return s.fold(lv)
	}
	key := foldKey(lv)
	if r, ok := s.results.Load(key); ok {
		return r.(Result)
	}
	r := s.fold(lv)
	s.results.Store(key, r)
	return r
}

func (s *Snapshot) fold(lv []LeveledPolicies) Result {
	levels := make([]Level, len(lv))
	for i, l := range lv {
		levels[i] = Level{Policies: l.Policies}
	}
	return Fold(s.Kind, levels, s.Cond)
}

// foldKey identifies the input of a fold: the policies of each level, by identity, in order.
func foldKey(lv []LeveledPolicies) string {
	b := make([]byte, 0, 8*(len(lv)*3))
	for _, l := range lv {
		b = binary.LittleEndian.AppendUint64(b, ^uint64(l.Level))
		for _, p := range l.Policies {
			b = binary.LittleEndian.AppendUint64(b, uint64(uintptr(unsafe.Pointer(p))))
		}
	}
	return string(b)
}
