package state_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/go-logr/logr"

	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/precedent-dev/precedent/cel"
	"github.com/precedent-dev/precedent/internal/settings"
	"github.com/precedent-dev/precedent/internal/state"
	"github.com/precedent-dev/precedent/internal/state/statetest"
	"github.com/precedent-dev/precedent/test/gen"
)

// benchState is a State watching the default kinds through fake informers that have delivered the
// world's Gateways and HTTPRoutes, with a CEL evaluator; its background builder stops with b.
func benchState(b *testing.B, w gen.World) (*state.State, *statetest.Informers, *cel.Evaluator) {
	inf := statetest.New(b)
	st := state.New(logr.Discard())
	ctx, cancel := context.WithCancel(context.Background())
	b.Cleanup(cancel)
	if err := st.Watch(ctx, inf, settings.Defaults().Registry().Kinds()); err != nil {
		b.Fatal(err)
	}
	for i := range w.Input.Gateways {
		inf.Add(b, &w.Input.Gateways[i])
	}
	for i := range w.Input.HTTPRoutes {
		inf.Add(b, &w.Input.HTTPRoutes[i])
	}
	ev, err := cel.New(0)
	if err != nil {
		b.Fatal(err)
	}
	return st, inf, ev
}

// BenchmarkApplyChange is the CPU of applying one change to a built State through its informer
// event handler: the next graph and the snapshot brought forward (no request reads them). A route
// change moves an HTTPRoute between the listeners of its Gateway (parents: its paths change, and
// the listeners' own paths) or changes its hostnames only (spec); a policy change edits a
// route-level policy's limits. At one tenth of the full size and at the full size: the cost must
// stay flat.
func BenchmarkApplyChange(b *testing.B) {
	for _, sz := range []gen.Size{{Gateways: 100, Routes: 1000, Policies: 500}, {Gateways: 1000, Routes: 10000, Policies: 5000}} {
		w := gen.Generate(sz)
		st, inf, ev := benchState(b, w)
		objs, err := w.Objects()
		if err != nil {
			b.Fatal(err)
		}
		var pols []client.Object
		for _, o := range objs {
			if o.GroupVersionKind() == w.Kind.GVK {
				inf.Add(b, o)
				pols = append(pols, o)
			}
		}
		st.Snapshot(w.Kind, ev)
		routes, policies := map[int]client.Object{}, map[int]client.Object{} // the versions delivered last
		for _, change := range []string{"parents", "spec", "policy"} {
			b.Run(fmt.Sprintf("routes=%d/change=%s", sz.Routes, change), func(b *testing.B) {
				cur := routes
				if change == "policy" {
					cur = policies
				}
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					j := (i * 7919) % sz.Routes
					if change == "policy" {
						j = (i * 7919) % len(pols)
					}
					old, ok := cur[j]
					if !ok && change == "policy" {
						old = pols[j]
					} else if !ok {
						old = &w.Input.HTTPRoutes[j]
					}
					next := old.DeepCopyObject().(client.Object)
					next.SetGeneration(old.GetGeneration() + 1)
					switch x := next.(type) {
					case *gwv1.HTTPRoute:
						if change == "parents" {
							s := gwv1.SectionName("https")
							if p := x.Spec.ParentRefs[0].SectionName; p != nil && *p == s {
								s = "http"
							}
							x.Spec.ParentRefs[0].SectionName = ptr.To(s)
						} else {
							x.Spec.Hostnames = []gwv1.Hostname{gwv1.Hostname(fmt.Sprintf("h%d.example", i))}
						}
					default:
						u := x.(interface{ UnstructuredContent() map[string]interface{} }).UnstructuredContent()
						if spec, ok := u["spec"].(map[string]interface{}); ok {
							spec["limits"] = map[string]interface{}{"per-user": map[string]interface{}{"rates": []interface{}{map[string]interface{}{"limit": int64(1 + i%50), "window": "1m"}}}}
						}
					}
					inf.Update(b, old, next)
					cur[j] = next
				}
				b.StopTimer()
				if st.Fresh(w.Kind, ev) == nil {
					b.Fatal("the snapshot was not brought forward by the changes")
				}
			})
		}
	}
}
