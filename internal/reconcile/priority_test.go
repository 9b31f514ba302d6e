package reconcile

import (
	"testing"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// TestOwnRequestFirst: a policy's own request from a write that is news goes ahead of the neighbour
// requests earlier writes queued (controller-runtime's priority queue); from a relist it waits its
// turn, and so do the neighbours the same write asks for.
func TestOwnRequestFirst(t *testing.T) {
	req := func(name string) reconcile.Request {
		return reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "shop", Name: name}}
	}
	cases := []struct {
		name  string
		ahead bool
		want  []string
	}{
		{"news: the policy first", true, []string{"new", "n1", "n2", "n3"}},
		{"relist: in order", false, []string{"n1", "n2", "n3", "new"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			q := priorityqueue.New[reconcile.Request]("test")
			defer q.ShutDown()
			addRequests(q, []reconcile.Request{req("n1"), req("n2")}, req("old"), true)
			addRequests(q, []reconcile.Request{req("n3"), req("new")}, req("new"), c.ahead)
			var got []string
			for range c.want {
				r, _ := q.Get()
				got = append(got, r.Name)
				q.Done(r)
			}
			for i := range c.want {
				if got[i] != c.want[i] {
					t.Fatalf("order %v, want %v", got, c.want)
				}
			}
		})
	}
}
