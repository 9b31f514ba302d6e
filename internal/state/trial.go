package state

import (
	"fmt"
	"maps"
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/topology"
)

// A trial: the offline review (package memory) applies the events of one write to review it in the
// cluster it arrives in, then puts the state back as it was before them (Revert) instead of applying
// the opposite events. The graph, snapshots and derived values of the marked moment are taken up
// again rather than brought forward twice, so a review of every policy of the input costs one
// event per policy, each from the same versions. Generations only grow: the values taken up again
// are stamped with new ones, never with those of the trial.

// Mark is the state's versions at one moment (Mark), for Revert.
type Mark struct {
	topoGen   uint64
	graph     *topology.Graph
	graphGen  uint64
	policyGen map[schema.GroupKind]uint64
	snaps     map[schema.GroupKind]*built
	derived   map[string]*derived
}

// Mark records the versions of the state now.
func (s *State) Mark() *Mark {
	s.mu.Lock()
	defer s.mu.Unlock()
	return &Mark{topoGen: s.topoGen, graph: s.graph, graphGen: s.graphGen, policyGen: maps.Clone(s.policyGen), snaps: maps.Clone(s.snaps), derived: maps.Clone(s.derived)}
}

// Put is an object of a policy kind (one the state keeps in its policies only: Revertible) as it
// was at a Mark: Object nil when there was none under Key.
type Put struct {
	GroupKind schema.GroupKind
	Key       types.NamespacedName
	Object    *unstructured.Unstructured
}

// Revertible reports whether Revert can put back objects of gk: those the state keeps as policies
// only (not the topology's, the namespaces' or the Backends', which events of their own put back).
func (s *State) Revertible(gk schema.GroupKind) bool {
	if gk.Kind == "Namespace" && gk.Group == "" {
		return false
	}
	if slices.Contains(topologyKinds(), gk) {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return gk != s.backendGK
}

// Revert puts the objects of puts back as they were at m, the objects of the events applied since
// m (events on other objects, such as a kind listed for the first time meanwhile, stay), and takes
// up again the graph, snapshots and derived values of m that read those kinds: those current at m,
// when nothing else they read changed since; the others are built anew on their next use. No
// request may run meanwhile (the offline review runs one at a time).
func (s *State) Revert(m *Mark, puts []Put) error {
	s.building.Lock()
	defer s.building.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range puts {
		if p.GroupKind == s.backendGK || (p.GroupKind.Kind == "Namespace" && p.GroupKind.Group == "") || slices.Contains(topologyKinds(), p.GroupKind) {
			return fmt.Errorf("the state cannot put back a %s: only policy kinds (Revertible)", p.GroupKind)
		}
	}
	refs := map[schema.GroupKind][]policy.Ref{}
	for _, p := range puts {
		objs, ok := s.policies[p.GroupKind]
		if !ok {
			continue // not watched: no event reached the state
		}
		if p.Object == nil {
			delete(objs, p.Key)
		} else {
			objs[p.Key] = p.Object
		}
		refs[p.GroupKind] = append(refs[p.GroupKind], policy.Ref{Namespace: p.Key.Namespace, Name: p.Key.Name})
	}
	for gk := range refs {
		s.policyGen[gk]++ // the objects are m's again, under a generation of their own
	}
	topoSame := s.topoGen == m.topoGen // policy events leave the graph alone
	for gk, rs := range refs {
		cur, was := s.snaps[gk], m.snaps[gk]
		delete(s.snaps, gk)
		if was == nil || !topoSame || was.graph != m.graph || was.graph != s.graph || m.graphGen != m.topoGen || was.policyGen != m.policyGen[gk] {
			continue // not current at m: built on its next use
		}
		if cur != nil {
			was.snap.Reinstate(cur.snap, rs)
		}
		nb := *was
		nb.policyGen = s.policyGen[gk]
		s.snaps[gk] = &nb
	}
	for key, cur := range s.derived {
		if !readsAny(&cur.d, refs) {
			continue
		}
		delete(s.derived, key)
		was := m.derived[key]
		if was == nil || !slices.Equal(was.version, m.versionOf(&was.d)) || !s.unchangedBut(m, &was.d, refs) {
			continue
		}
		s.derived[key] = &derived{d: was.d, version: s.versionOf(&was.d), value: was.value}
	}
	return nil
}

// readsAny reports whether d reads objects of one of the kinds of refs.
func readsAny(d *Derivation, refs map[schema.GroupKind][]policy.Ref) bool {
	for _, gk := range d.Kinds {
		if _, ok := refs[gk]; ok {
			return true
		}
	}
	return false
}

// versionOf is State.versionOf at m.
func (m *Mark) versionOf(d *Derivation) []uint64 {
	v := make([]uint64, 0, len(d.Kinds)+1)
	if d.Topology {
		v = append(v, m.topoGen)
	} else {
		v = append(v, 0)
	}
	for _, gk := range d.Kinds {
		v = append(v, m.policyGen[gk])
	}
	return v
}

// unchangedBut reports whether what d reads, the kinds of refs aside, is as it was at m (mu held).
func (s *State) unchangedBut(m *Mark, d *Derivation, refs map[schema.GroupKind][]policy.Ref) bool {
	if d.Topology && s.topoGen != m.topoGen {
		return false
	}
	for _, gk := range d.Kinds {
		if _, put := refs[gk]; !put && s.policyGen[gk] != m.policyGen[gk] {
			return false
		}
	}
	return true
}
