package state_test

import (
	"context"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/google/go-cmp/cmp"

	"github.com/precedent-dev/precedent/cel"
	"github.com/precedent-dev/precedent/internal/settings"
	"github.com/precedent-dev/precedent/internal/state"
	"github.com/precedent-dev/precedent/internal/state/statetest"
	"github.com/precedent-dev/precedent/test/gen"
)

// TestPolicyEventRefoldsWhatWasInUse: after a Gateway policy is changed, the folds of its paths that
// requests had used are memoized again on the State's newest snapshot without any request asking
// (the refolder), and the folds no request had used are left to requests.
func TestPolicyEventRefoldsWhatWasInUse(t *testing.T) {
	w := gen.Generate(gen.Size{Gateways: 4, Routes: 40, Policies: 20})
	inf := statetest.New(t)
	st := state.New(logr.Discard())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := st.Watch(ctx, inf, settings.Defaults().Registry().Kinds()); err != nil {
		t.Fatal(err)
	}
	for i := range w.Input.Gateways {
		inf.Add(t, &w.Input.Gateways[i])
	}
	for i := range w.Input.HTTPRoutes {
		inf.Add(t, &w.Input.HTTPRoutes[i])
	}
	objs, err := w.Objects()
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range objs {
		if o.GroupVersionKind() == w.Kind.GVK {
			inf.Add(t, o)
		}
	}
	ev, err := cel.New(0)
	if err != nil {
		t.Fatal(err)
	}
	snap := st.Snapshot(w.Kind, ev)
	gwPolicy, ok := snap.Policy(w.Policies[0].Ref) // gen's Gateway policies come first
	if !ok {
		t.Fatalf("%s not in the snapshot", w.Policies[0].Ref)
	}
	paths := snap.PathsOf(gwPolicy)
	if len(paths) < 2 {
		t.Fatalf("the Gateway policy reaches %d paths, want 2 or more", len(paths))
	}
	for _, i := range paths[:len(paths)/2] { // what requests asked for
		snap.ComputePath(i)
	}
	used := snap.Folded(paths) // those and the paths of the same folds
	if len(used) == len(paths) {
		t.Fatalf("every path of the Gateway policy shares the folds of half of them: nothing is left to requests")
	}
	for _, o := range objs {
		if o.GetNamespace() != gwPolicy.Ref.Namespace || o.GetName() != gwPolicy.Ref.Name {
			continue
		}
		cur := o.DeepCopy()
		cur.SetGeneration(o.GetGeneration() + 1)
		inf.Update(t, o, cur)
	}
	var last []int
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		next := st.Fresh(w.Kind, ev)
		if next == nil || next == snap {
			t.Fatal("the policy event did not bring the snapshot forward")
		}
		if last = next.Folded(paths); cmp.Equal(last, used) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 10 s the newest snapshot has memoized the folds of paths %v, want %v", last, used)
		}
	}
}
