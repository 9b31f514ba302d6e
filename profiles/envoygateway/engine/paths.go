package engine

import (
	"github.com/benbjohnson/immutable"
)

// A snapshot's paths are numbered in the order a build adds them. A step removes paths by marking
// them dead and adds new ones at the end, so that the numbers of the others stay what they were;
// each scope lists the live paths beneath it in a build's order (pathIndex.under).

// pathIndex is a persistent list of paths and, per scope, the live paths beneath it.
type pathIndex struct {
	list  *immutable.List[Path]
	dead  pmap[int32, bool]
	ndead int
	under pmap[Scope, []int32]
}

// frozen is the index of paths made by a build.
func frozen(paths []Path, under map[Scope][]int32) pathIndex {
	b := immutable.NewListBuilder[Path]()
	for _, p := range paths {
		b.Append(p)
	}
	return pathIndex{list: b.List(), under: pmapOf(under)}
}

func (x pathIndex) len() int { return x.list.Len() }

// at is path i, and whether it is live.
func (x pathIndex) at(i int) (Path, bool) {
	return x.list.Get(i), !x.dead.get(int32(i))
}

// building is what NewSnapshot gathers before it freezes it into a Snapshot's indexes; a step uses
// one to gather the paths and scopes of what it redoes.
type building struct {
	paths, listeners []Path
	under, lunder    map[Scope][]int32
	exists           map[Scope]bool
}

func newBuilding() *building {
	return &building{under: map[Scope][]int32{}, lunder: map[Scope][]int32{}, exists: map[Scope]bool{}}
}

func (b *building) add(p Path) {
	i := int32(len(b.paths))
	b.paths = append(b.paths, p)
	c, n := p.chain()
	for _, sc := range c[:n] {
		b.under[sc] = append(b.under[sc], i)
	}
}

func (b *building) addListener(p Path) {
	i := int32(len(b.listeners))
	b.listeners = append(b.listeners, p)
	for _, sc := range p.parents() {
		b.lunder[sc] = append(b.lunder[sc], i)
	}
}
