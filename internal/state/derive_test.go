package state

import (
	"testing"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// TestDerive: a derived cache is built once per version of what it reads (the topology and its
// kinds), rebuilt after a change of either, not after a change of another kind, and rebuilt by the
// background builder's pass as well as by the next caller.
func TestDerive(t *testing.T) {
	s := New(logr.Discard())
	mine, other := schema.GroupKind{Group: "g", Kind: "Mine"}, schema.GroupKind{Group: "g", Kind: "Other"}
	builds := 0
	build := func() any { builds++; return builds }
	get := func() int {
		return s.Derive(Derivation{Key: "k", Kinds: []schema.GroupKind{mine}, Topology: true, Build: build}).(int)
	}
	for _, step := range []struct {
		name   string
		change func()
		want   int
	}{
		{"first call builds", func() {}, 1},
		{"nothing changed: the same value", func() {}, 1},
		{"another kind changed: the same value", func() { s.policyGen[other]++ }, 1},
		{"its kind changed: rebuilt", func() { s.policyGen[mine]++ }, 2},
		{"the topology changed: rebuilt", func() { s.topoGen++ }, 3},
		{"the builder's pass rebuilds before the next caller", func() { s.policyGen[mine]++; s.rebuildDerived() }, 4},
	} {
		step.change()
		if got := get(); got != step.want {
			t.Fatalf("%s: value %d, want %d", step.name, got, step.want)
		}
	}
}
