package order

import (
	"slices"
	"sort"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// DependsIn is Depends for a computation whose lines come in segments (one per review, say; the
// lines are their concatenation) and whose rerun with a pair swapped may change only some of them:
// all returns every segment of the computation as it is, and run(p) the segments the swap may
// change, by index (the others are all's). The answer is Depends's over the concatenated lines, but
// each pair costs the lines of the segments it returns, not every line of the computation.
func DependsIn(objs []*unstructured.Unstructured, unknown func(*unstructured.Unstructured) bool, all func() ([][]string, error), run func(p Pair) (map[int][]string, error)) (deps []Dependence, more bool, err error) {
	pairs, more := Ties(objs, unknown)
	if len(pairs) == 0 {
		return nil, false, nil
	}
	segs, err := all()
	if err != nil {
		return nil, false, err
	}
	c := newCompared(segs)
	for _, p := range pairs {
		changed, err := run(p)
		if err != nil {
			return nil, false, err
		}
		a, o := c.diff(changed)
		if len(a) == 0 && len(o) == 0 {
			continue
		}
		deps = append(deps, Dependence{Pair: p, Assumed: a, Other: o})
	}
	return deps, more, nil
}

// position is where a line sits in segments: its segment, then its index there (the order of the
// concatenation).
type position struct{ seg, i int }

func (p position) compare(q position) int {
	if p.seg != q.seg {
		return p.seg - q.seg
	}
	return p.i - q.i
}

// placed is a line at its position.
type placed struct {
	at   position
	line string
}

// compared is the segments of the computation as it is, with where each line occurs.
type compared struct {
	segs [][]string
	at   map[string][]position // in order
}

func newCompared(segs [][]string) *compared {
	c := &compared{segs: segs, at: map[string][]position{}}
	for s, ls := range segs {
		for i, l := range ls {
			c.at[l] = append(c.at[l], position{s, i})
		}
	}
	return c
}

// diff returns only(lines, other) and only(other, lines), lines being the concatenation of c's
// segments and other the same with the segments of changed in their place, at the cost of the
// segments changed replaces and of their lines' other occurrences that the answer holds. only
// keeps, of a line that a has k more times than b, its last k occurrences in a: the other segments
// are the same in both, so k is counted over the changed ones, and the occurrences are the last k
// in the whole of a.
func (c *compared) diff(changed map[int][]string) (assumed, other []string) {
	count := map[string]int{} // occurrences in other's changed segments less those in c's
	newAt := map[string][]position{}
	segs := make([]int, 0, len(changed))
	for s := range changed {
		segs = append(segs, s)
	}
	slices.Sort(segs)
	for _, s := range segs {
		if s < len(c.segs) {
			for _, l := range c.segs[s] {
				count[l]--
			}
		}
		for i, l := range changed[s] {
			count[l]++
			newAt[l] = append(newAt[l], position{s, i})
		}
	}
	var a, o []placed
	for l, k := range count {
		switch {
		case k < 0:
			ps := c.at[l]
			for _, p := range ps[len(ps)+k:] {
				a = append(a, placed{p, l})
			}
		case k > 0:
			o = c.lastIn(o, l, k, changed, newAt[l])
		}
	}
	return lines(a), lines(o)
}

// lastIn appends to out the last k occurrences of l in the concatenation of c's segments with
// those of changed in their place (news: l's positions in changed's segments, in order).
func (c *compared) lastIn(out []placed, l string, k int, changed map[int][]string, news []position) []placed {
	olds := c.at[l]
	i, j := len(olds)-1, len(news)-1
	for ; k > 0; k-- {
		for i >= 0 && replaced(changed, olds[i].seg) {
			i-- // in a segment changed replaces
		}
		if i >= 0 && (j < 0 || olds[i].compare(news[j]) > 0) {
			out = append(out, placed{olds[i], l})
			i--
			continue
		}
		out = append(out, placed{news[j], l})
		j--
	}
	return out
}

// lines are the lines of ps in the order of their positions.
func lines(ps []placed) []string {
	sort.Slice(ps, func(i, j int) bool { return ps[i].at.compare(ps[j].at) < 0 })
	out := make([]string, 0, len(ps))
	for _, p := range ps {
		out = append(out, p.line)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// replaced reports whether changed replaces segment s.
func replaced(changed map[int][]string, s int) bool {
	_, ok := changed[s]
	return ok
}
