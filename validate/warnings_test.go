package validate

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/precedent-dev/precedent/cel"
	"github.com/precedent-dev/precedent/effective"
	"github.com/precedent-dev/precedent/test/gen"
	"github.com/precedent-dev/precedent/topology"
)

// TestLimit: duplicates go (in short and long lists alike), long warnings are cut at 240 bytes, and
// past n the last kept line counts the rest.
func TestLimit(t *testing.T) {
	long := strings.Repeat("x", 300)
	got := Limit([]string{"a", "b", "a", long, "c"}, 3)
	want := []string{"a", "b", "and 2 more warnings"}
	if !slices.Equal(got, want) {
		t.Errorf("Limit = %q, want %q", got, want)
	}
	if got := Limit([]string{long}, 0); len(got) != 1 || len(got[0]) != 240 || !strings.HasSuffix(got[0], "...") {
		t.Errorf("a long warning is not cut to 240 bytes ending in ...: %d bytes", len(got[0]))
	}
	var many []string
	for i := 0; i < 40; i++ {
		many = append(many, fmt.Sprint(i%35)) // 35 distinct, 5 repeated
	}
	if got := Limit(many, 0); len(got) != 35 {
		t.Errorf("Limit of 40 warnings with 35 distinct kept %d", len(got))
	}
}

// TestSet: values are kept once, in first-seen order, below and above the length where the set
// starts to hash.
func TestSet(t *testing.T) {
	var s set[int]
	var want []int
	for i := 0; i < 100; i++ {
		v := (i * 7) % 40 // 0..39, each seen two or three times, not one after another
		s.add(v)
		s.add(v) // an immediate repeat
		if !slices.Contains(want, v) {
			want = append(want, v)
		}
	}
	if !slices.Equal(s.list, want) {
		t.Errorf("set = %v, want %v", s.list, want)
	}
}

// TestUnchangedRewrite: re-applying a policy unchanged (a copy of its view) warns exactly what the
// long way (a view with the copy written) does, for every policy of a generated world.
func TestUnchangedRewrite(t *testing.T) {
	w := gen.Generate(gen.Size{Gateways: 20, Routes: 200, Policies: 100})
	ev, err := cel.New(0)
	if err != nil {
		t.Fatal(err)
	}
	snap := effective.NewSnapshot(w.Kind, topology.Build(w.Input), w.Policies, ev)
	for _, p := range w.Policies {
		cp := *p
		cp.Generation++ // what an unchanged apply may bump; the engine does not read it
		got, want := project(snap, p.Ref, &cp, true), project(snap, p.Ref, &cp, false)
		if !slices.Equal(got, want) {
			t.Errorf("%s: warnings %q, the long way %q", p.Ref, got, want)
		}
	}
}
