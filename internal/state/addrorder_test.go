package state_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/precedent-dev/precedent/cel"
	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/settings"
	"github.com/precedent-dev/precedent/internal/state"
	"github.com/precedent-dev/precedent/test/gen"
)

// TestObjectOrderChangesNoAnswer: the State hands its objects to the builds in the order of their
// addresses, which follows the order the informers delivered and decoded them in. Two States fed
// the same cluster (a churn's objects, with ListenerSets and every kind of route), one in key order
// and one in the reverse, each from copies made in its own order, list the objects in different
// orders and answer the same as a build from scratch.
func TestObjectOrderChangesNoAnswer(t *testing.T) {
	var k policy.Kind
	for _, x := range settings.Defaults().Registry().Kinds() {
		if x.GVK == policy.Builtin()[1].GVK {
			k = x
		}
	}
	cond, err := cel.New(0)
	if err != nil {
		t.Fatal(err)
	}
	for seed := int64(1); seed <= 5; seed++ {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			churn := gen.NewChurn(seed, k)
			churn.ListenerSets = true
			have := cluster{}
			for step := 0; step < 300; step++ {
				ch := churn.Next()
				if id := objectKey(ch.Object); ch.Delete {
					delete(have, id)
				} else {
					have[id] = ch.Object
				}
			}
			ids := slices.Sorted(func(yield func(string) bool) {
				for id := range have {
					if !yield(id) {
						return
					}
				}
			})
			forward, fwdOrder := fedState(t, k, have, ids)
			slices.Reverse(ids)
			backward, bwdOrder := fedState(t, k, have, ids)
			if slices.Equal(fwdOrder, bwdOrder) {
				t.Fatalf("both states list the policies in the same order %v: the test compares nothing", fwdOrder)
			}
			probe := churn.Policy()
			want := answers(have.snapshot(k, cond), probe)
			for name, st := range map[string]*state.State{"key order": forward, "reverse key order": backward} {
				if diff := cmp.Diff(want, answers(st.Snapshot(k, cond), probe)); diff != "" {
					t.Errorf("fed in %s, the state answers otherwise than a build from scratch (-scratch +state):\n%s", name, diff)
				}
			}
		})
	}
}

// fedState is a State watching kind k whose informers delivered the objects of c named by ids, in
// that order, each a copy made in that order (so their addresses follow it, as a decoded list's do);
// with the names of the policies in the order the State lists them.
func fedState(t *testing.T, k policy.Kind, c cluster, ids []string) (*state.State, []string) {
	t.Helper()
	st, inf := watching(t, k)
	for _, id := range ids {
		inf.Add(t, c[id].DeepCopyObject().(client.Object))
	}
	var names []string
	for _, u := range st.Objects(k.GVK.GroupKind()) {
		names = append(names, u.GetNamespace()+"/"+u.GetName())
	}
	return st, names
}
