package webhook_test

import (
	"context"
	"fmt"
	"sort"
	"testing"
	"time"

	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/precedent-dev/precedent/internal/state/statetest"
	"github.com/precedent-dev/precedent/test/gen"
)

// BenchmarkValidateChurn is BenchmarkValidate at the full size while the cluster changes: a
// goroutine delivers, through the State's informer handlers, HTTPRoute spec changes at a steady
// rate (each moves the route between the two listeners of its Gateway, so its paths change) and
// changes of route-level policies of the written kind at 10 per second, while route- and
// Gateway-level writes are validated back to back. quiet has no changes at all. Reported: p50-ns,
// p99-ns, mean-ns of the writes, and writes/s served.
func BenchmarkValidateChurn(b *testing.B) {
	sz := benchSizes[len(benchSizes)-1]
	w := gen.Generate(sz.size)
	v, inf := newValidator(b, w)
	objs, err := w.Objects()
	if err != nil {
		b.Fatal(err)
	}
	var pols []client.Object
	for _, o := range objs {
		if o.GroupVersionKind() != w.Kind.GVK {
			continue
		}
		if spec, ok := o.Object["spec"].(map[string]interface{}); ok {
			if t, ok := spec["targetRef"].(map[string]interface{}); ok && t["kind"] == "HTTPRoute" {
				pols = append(pols, o)
			}
		}
	}
	c := &churner{tb: b, inf: inf, w: w, pols: pols, routes: map[int]client.Object{}, policies: map[int]client.Object{}}
	cases := []struct {
		name             string
		routes, policies int
	}{{"quiet", 0, 0}, {"routes=0/policies=10", 0, 10}, {"routes=10/policies=10", 10, 10}, {"routes=100/policies=10", 100, 10}}
	for _, level := range []string{"route", "gateway"} {
		reqs := requests(b, w, level)
		for _, cs := range cases {
			b.Run(fmt.Sprintf("level=%s/%s", level, cs.name), func(b *testing.B) {
				ctx := context.Background()
				v.Handle(ctx, reqs[0])
				stop := c.start(cs.routes, cs.policies)
				d := make([]time.Duration, b.N)
				b.ReportAllocs()
				b.ResetTimer()
				t0 := time.Now()
				for i := 0; i < b.N; i++ {
					s := time.Now()
					if r := v.Handle(ctx, reqs[i%len(reqs)]); !r.Allowed {
						b.Fatalf("the benchmark write is denied: %v", r.Result)
					}
					d[i] = time.Since(s)
				}
				total := time.Since(t0)
				b.StopTimer()
				changes := stop()
				sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
				b.ReportMetric(float64(d[len(d)/2].Nanoseconds()), "p50-ns")
				b.ReportMetric(float64(d[len(d)*99/100].Nanoseconds()), "p99-ns")
				b.ReportMetric(float64(total.Nanoseconds())/float64(b.N), "mean-ns")
				b.ReportMetric(float64(b.N)/total.Seconds(), "writes/s")
				b.ReportMetric(float64(changes)/total.Seconds(), "changes/s")
			})
		}
	}
}

// churner changes routes and policies of a world through fake informers, remembering the version
// each has now.
type churner struct {
	tb       testing.TB // for the informers, which fail it only on a kind they do not know
	inf      *statetest.Informers
	w        gen.World
	pols     []client.Object
	n        int
	routes   map[int]client.Object
	policies map[int]client.Object
}

// start delivers routes route changes and policies policy changes per second until the returned
// function is called; that returns the number of changes delivered.
func (c *churner) start(routes, policies int) func() int {
	done := make(chan struct{})
	count := make(chan int)
	go func() {
		n := 0
		t0 := time.Now()
		nr, np := 0, 0
		for {
			next := time.Hour
			if routes > 0 {
				next = time.Duration(nr) * time.Second / time.Duration(routes)
			}
			if policies > 0 {
				if p := time.Duration(np) * time.Second / time.Duration(policies); p < next {
					next = p
				}
			}
			select {
			case <-done:
				count <- n
				return
			case <-time.After(time.Until(t0.Add(next))):
			}
			if routes > 0 && time.Duration(nr)*time.Second/time.Duration(routes) == next {
				c.route()
				nr++
			} else {
				c.policy()
				np++
			}
			n++
		}
	}()
	return func() int {
		close(done)
		return <-count
	}
}

// route moves one HTTPRoute to the other listener of its Gateway.
func (c *churner) route() {
	c.n++
	j := (c.n * 7919) % len(c.w.Input.HTTPRoutes)
	old, ok := c.routes[j]
	if !ok {
		old = &c.w.Input.HTTPRoutes[j]
	}
	next := old.DeepCopyObject().(*gwv1.HTTPRoute)
	next.SetGeneration(old.GetGeneration() + 1)
	s := gwv1.SectionName("https")
	if p := next.Spec.ParentRefs[0].SectionName; p != nil && *p == s {
		s = "http"
	}
	next.Spec.ParentRefs[0].SectionName = ptr.To(s)
	c.inf.Update(c.tb, old, next)
	c.routes[j] = next
}

// policy changes the limit of one route-level policy.
func (c *churner) policy() {
	c.n++
	j := (c.n * 7919) % len(c.pols)
	old, ok := c.policies[j]
	if !ok {
		old = c.pols[j]
	}
	next := old.DeepCopyObject().(client.Object)
	next.SetGeneration(old.GetGeneration() + 1)
	u := next.(interface{ UnstructuredContent() map[string]interface{} }).UnstructuredContent()
	if spec, ok := u["spec"].(map[string]interface{}); ok {
		spec["limits"] = map[string]interface{}{"per-user": map[string]interface{}{"rates": []interface{}{map[string]interface{}{"limit": int64(1 + c.n%50), "window": "1m"}}}}
	}
	c.inf.Update(c.tb, old, next)
	c.policies[j] = next
}
