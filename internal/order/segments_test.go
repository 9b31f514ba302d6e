package order

import (
	"fmt"
	"math/rand"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// only is the multiset difference the comparison is defined by: the lines of a that b lacks, in
// a's order (of a line a has k more times than b, its last k occurrences).
func only(a, b []string) []string {
	n := map[string]int{}
	for _, l := range b {
		n[l]++
	}
	var out []string
	for _, l := range a {
		if n[l] > 0 {
			n[l]--
			continue
		}
		out = append(out, l)
	}
	return out
}

// TestDiffIsOnlyOfTheConcatenation: comparing only the changed segments gives what only gives over
// the whole lines both ways, for random segments of few distinct lines (so that a line occurs in
// changed and unchanged segments alike, more or fewer times, before and after them) and random
// changes, empty segments and segments changed to the same lines among them.
func TestDiffIsOnlyOfTheConcatenation(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	segment := func() []string {
		var out []string
		for range rng.Intn(4) {
			out = append(out, fmt.Sprintf("line %d", rng.Intn(5)))
		}
		return out
	}
	for n := range 2000 {
		segs := make([][]string, 1+rng.Intn(6))
		for i := range segs {
			segs[i] = segment()
		}
		changed := map[int][]string{}
		for i := range segs {
			switch rng.Intn(4) {
			case 0:
				changed[i] = segment()
			case 1:
				changed[i] = slices.Clone(segs[i])
			}
		}
		var before, after []string
		for i, s := range segs {
			before = append(before, s...)
			if c, ok := changed[i]; ok {
				s = c
			}
			after = append(after, s...)
		}
		a, o := newCompared(segs).diff(changed)
		if d := cmp.Diff(only(before, after), a); d != "" {
			t.Fatalf("case %d: %v changed by %v: assumed lines (-only +diff):\n%s", n, segs, changed, d)
		}
		if d := cmp.Diff(only(after, before), o); d != "" {
			t.Fatalf("case %d: %v changed by %v: other lines (-only +diff):\n%s", n, segs, changed, d)
		}
	}
}
