package engine

import (
	"slices"

	"github.com/benbjohnson/immutable"
)

// A snapshot's paths are numbered in the order a build adds them. A step removes paths by marking
// them dead and adds new ones at the end, so that the numbers of the others stay what they were;
// each scope lists the live paths beneath it in a build's order (pathIndex.under).

// pathIndex is a persistent list of paths and, per scope, the live paths beneath it. The paths of
// a build are base, which no one writes afterwards; those steps add follow, in added.
type pathIndex struct {
	base  []Path
	added *immutable.List[Path]
	dead  pmap[int32, bool]
	ndead int
	under pmap[Scope, []int32]
}

// frozen is the index of paths made by a build.
func frozen(paths []Path, under *scopeLists) pathIndex {
	return pathIndex{base: paths, added: immutable.NewList[Path](), under: pmapAt(under.at, under.lists)}
}

func (x pathIndex) len() int { return len(x.base) + x.added.Len() }

// at is path i, and whether it is live.
func (x pathIndex) at(i int) (Path, bool) {
	live := !x.dead.get(int32(i))
	if i < len(x.base) {
		return x.base[i], live
	}
	return x.added.Get(i - len(x.base)), live
}

// building is what NewSnapshot gathers before it freezes it into a Snapshot's indexes; a step uses
// one to gather the paths and scopes of what it redoes.
type building struct {
	paths, listeners []Path
	under, lunder    scopeLists
	exists           map[Scope]bool
}

func newBuilding() *building {
	return &building{under: newScopeLists(), lunder: newScopeLists(), exists: map[Scope]bool{}}
}

func (b *building) add(p Path) {
	i := int32(len(b.paths))
	b.paths = append(b.paths, p)
	c, n := p.chain()
	b.under.add(c[:n], i)
}

func (b *building) addListener(p Path) {
	i := int32(len(b.listeners))
	b.listeners = append(b.listeners, p)
	c, n := p.parentArray()
	b.lunder.add(c[:n], i)
}

// reserve sizes b for about n route paths: a build then grows nothing by copying or rehashing.
func (b *building) reserve(n int) {
	b.paths = slices.Grow(b.paths, n)
	b.under.reserve(n + n/2) // a scope per rule, and the routes', listeners' and Gateways'
	if len(b.exists) == 0 {
		b.exists = make(map[Scope]bool, n+n/2)
	}
}

func (l *scopeLists) reserve(n int) {
	if len(l.lists) == 0 {
		l.at = make(map[Scope]int, n)
	}
	l.lists = slices.Grow(l.lists, n)
}

// scopeLists lists the paths beneath each scope, in the order added: scope sc's are lists[at[sc]].
type scopeLists struct {
	at    map[Scope]int
	lists [][]int32
	// last is the chain of scopes added last, with their positions: the paths of one route come
	// one after another and share all but the rule's, which spares a build most of its lookups
	// (at 10x, each a cache miss).
	last   [5]Scope
	lastAt [5]int
	lastN  int
}

func newScopeLists() scopeLists { return scopeLists{at: map[Scope]int{}} }

// add adds path i beneath each scope of chain.
func (l *scopeLists) add(chain []Scope, i int32) {
	for j, sc := range chain {
		if j >= l.lastN || sc != l.last[j] {
			at, ok := l.at[sc]
			if !ok {
				at = len(l.lists)
				l.at[sc] = at
				l.lists = append(l.lists, nil)
			}
			l.last[j], l.lastAt[j] = sc, at
		}
		l.lists[l.lastAt[j]] = append(l.lists[l.lastAt[j]], i)
	}
	l.lastN = len(chain)
}
