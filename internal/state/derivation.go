package state

import (
	"slices"

	"github.com/precedent-dev/precedent/internal/source"
)

// A profile keeps its own caches derived from the state (the access grants, the mesh indexes, Envoy
// Gateway's snapshot) as Derivations: the state stores each value with the versions of what it was
// built from, brings it forward with each event it reads when the profile says how (Next, like the
// graph and the snapshots: versions.go), and builds it whole otherwise, on the next use or in the
// background builder's pass.

// Event is source.Event: one change the state applies, as a derived cache's Next sees it.
type Event = source.Event

// Derivation is source.Derivation: one cache a profile derives from the state, and how to keep it.
type Derivation = source.Derivation

// derived is a value of a Derivation with the versions it was built from: the topology's (0 when
// it does not read the topology), then its kinds', in the order of Kinds.
type derived struct {
	d       Derivation
	version []uint64
	value   any
}

// reads reports whether the value reads the objects of event e.
func reads(d *Derivation, e Event) bool {
	if e.Topology {
		return d.Topology
	}
	return slices.Contains(d.Kinds, e.GroupKind)
}

// versionOf is the version of the state d reads (mu held).
func (s *State) versionOf(d *Derivation) []uint64 {
	v := make([]uint64, 0, len(d.Kinds)+1)
	if d.Topology {
		v = append(v, s.topoGen)
	} else {
		v = append(v, 0)
	}
	for _, gk := range d.Kinds {
		v = append(v, s.policyGen[gk])
	}
	return v
}

// Derive returns the value of d: the one kept when nothing it reads changed since it was built (or
// was brought forward with each change by d.Next), else a new one from d.Build (run without the
// state's lock; concurrent callers may both build, the newer is kept). The value is shared: read
// only. Once asked for, it is kept current off the request path too: by Next with each event, else
// by the background builder after a burst of changes settles, like the snapshots.
func (s *State) Derive(d Derivation) any {
	s.mu.Lock()
	v := s.versionOf(&d)
	if cur, ok := s.derived[d.Key]; ok && cur.d.Params == d.Params && equalVersions(cur.version, v) {
		s.mu.Unlock()
		return cur.value
	}
	s.mu.Unlock()
	value := d.Build()
	s.mu.Lock()
	if cur, ok := s.derived[d.Key]; !ok || cur.d.Params != d.Params || !newer(cur.version, v) {
		s.derived[d.Key] = &derived{d: d, version: v, value: value}
	}
	s.mu.Unlock()
	return value
}

// derives reports whether some derived value may be brought forward by event e.
func (s *State) derives(e Event) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, cur := range s.derived {
		if cur.d.Next != nil && reads(&cur.d, e) {
			return true
		}
	}
	return false
}

// nextDerived computes the next versions of the derived values that read event e and are current
// (building held, mu not: requests go on with the current values), and returns what publishes them
// with the event (mu held, the event stored and bumped). A value that Next cannot bring forward is
// left as it is: stale, hence built whole on its next use.
func (s *State) nextDerived(e Event) func() {
	if e.Topology {
		e.Graph, s.nextGraph = s.nextGraph, nil
	}
	type step struct {
		cur  *derived
		want []uint64 // its version once e is applied
		next any
	}
	var steps []*step
	s.mu.Lock()
	for _, cur := range s.derived {
		if cur.d.Next == nil || !reads(&cur.d, e) || !equalVersions(cur.version, s.versionOf(&cur.d)) {
			continue
		}
		want := slices.Clone(cur.version)
		if e.Topology {
			want[0]++
		} else {
			for i, gk := range cur.d.Kinds {
				if gk == e.GroupKind {
					want[i+1]++
				}
			}
		}
		steps = append(steps, &step{cur: cur, want: want})
	}
	s.mu.Unlock()
	if len(steps) == 0 {
		return nil
	}
	for _, st := range steps {
		st.next = st.cur.d.Next(st.cur.value, e)
	}
	return func() {
		for _, st := range steps {
			if st.next == nil || s.derived[st.cur.d.Key] != st.cur {
				continue // built whole on next use; or replaced meanwhile (other Params)
			}
			if v := s.versionOf(&st.cur.d); equalVersions(v, st.want) {
				s.derived[st.cur.d.Key] = &derived{d: st.cur.d, version: v, value: st.next}
			}
		}
	}
}

func equalVersions(a, b []uint64) bool { return slices.Equal(a, b) }

// newer reports whether a is strictly newer than b somewhere and older nowhere.
func newer(a, b []uint64) bool {
	if len(a) != len(b) {
		return false
	}
	gt := false
	for i := range a {
		if a[i] < b[i] {
			return false
		}
		gt = gt || a[i] > b[i]
	}
	return gt
}

// rebuildDerived brings the derived values asked for before up to date (the background builder).
func (s *State) rebuildDerived() {
	s.mu.Lock()
	ds := make([]Derivation, 0, len(s.derived))
	for _, cur := range s.derived {
		ds = append(ds, cur.d)
	}
	s.mu.Unlock()
	for _, d := range ds {
		s.Derive(d)
	}
}
