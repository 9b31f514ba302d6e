//go:build bench

package bench

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/precedent-dev/precedent/internal/controlplane"
	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/test/gen"
)

var routeRate = flag.Int("route-changes", 100, "churn: HTTPRoute spec changes per second sent by the second client")

// secondClient is an admin client on a connection of its own: client-go shares one transport
// between configs it can compare, and a config with a Proxy function is never shared.
func secondClient(t *testing.T, env *controlplane.Env) client.Client {
	t.Helper()
	cfg := unlimited(env.Config)
	cfg.Proxy = func(*http.Request) (*url.URL, error) { return nil, nil } // direct, on loopback
	c, err := client.New(cfg, client.Options{})
	if err != nil {
		t.Fatalf("creating the second client: %v", err)
	}
	return c
}

// ticks delivers rate tokens per second on the returned channel until stop is called; a token no
// worker is waiting for is dropped and counted (stop returns the count). Open loop: a slow server
// lowers the rate achieved, it does not queue the load up.
func ticks(rate int) (<-chan struct{}, func() int64) {
	out := make(chan struct{})
	done := make(chan struct{})
	var dropped atomic.Int64
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tk := time.NewTicker(time.Second / time.Duration(max(rate, 1)))
		defer tk.Stop()
		for {
			select {
			case <-done:
				return
			case <-tk.C:
				select {
				case out <- struct{}{}:
				default:
					dropped.Add(1)
				}
			}
		}
	}()
	return out, func() int64 { close(done); wg.Wait(); return dropped.Load() }
}

// routeChurn changes HTTPRoute specs of the generated world from its own client: change n moves
// route n mod routes between the two listeners of its Gateway (parentRefs[0].sectionName), so each
// change is a real spec change that moves the route's paths.
type routeChurn struct {
	c                client.Client
	gateways, routes int
	next             atomic.Int64 // index of the next change
	done, failed     atomic.Int64
	mu               sync.Mutex
	firstErr         error
	last             time.Time // when the last change was answered
}

func newRouteChurn(c client.Client, sz gen.Size) *routeChurn {
	return &routeChurn{c: c, gateways: sz.Gateways, routes: sz.Routes}
}

// change sends change n.
func (rc *routeChurn) change(ctx context.Context, n int64) error {
	r := int(n % int64(rc.routes))
	section := "https"
	if (n/int64(rc.routes))%2 == 1 {
		section = "http"
	}
	patch, err := json.Marshal(map[string]interface{}{"spec": map[string]interface{}{"parentRefs": []interface{}{map[string]interface{}{
		"name": fmt.Sprintf("gw-%d", r%max(rc.gateways, 1)), "namespace": "infra", "sectionName": section,
	}}}})
	if err != nil {
		return err
	}
	u := &unstructured.Unstructured{}
	u.SetAPIVersion("gateway.networking.k8s.io/v1")
	u.SetKind("HTTPRoute")
	u.SetNamespace(gen.RouteNamespace(r))
	u.SetName(fmt.Sprintf("route-%d", r))
	return rc.c.Patch(ctx, u, client.RawPatch(types.MergePatchType, patch))
}

// start sends rate changes per second with a few workers until the returned stop is called; stop
// returns the changes made and the ticks dropped because every worker was busy.
func (rc *routeChurn) start(ctx context.Context, rate int) func() (done, dropped int64) {
	if rate <= 0 {
		return func() (int64, int64) { return 0, 0 }
	}
	tk, stopTicks := ticks(rate)
	quit := make(chan struct{})
	var wg sync.WaitGroup
	before := rc.done.Load()
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-quit:
					return
				case <-ctx.Done():
					return
				case <-tk:
				}
				err := rc.change(ctx, rc.next.Add(1)-1)
				rc.mu.Lock()
				rc.last = time.Now()
				if err != nil && rc.firstErr == nil {
					rc.firstErr = err
				}
				rc.mu.Unlock()
				if err != nil {
					rc.failed.Add(1)
					continue
				}
				rc.done.Add(1)
			}
		}()
	}
	return func() (int64, int64) {
		dropped := stopTicks()
		close(quit)
		wg.Wait()
		return rc.done.Load() - before, dropped
	}
}

// lastChange is when the last change was answered.
func (rc *routeChurn) lastChange() time.Time {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return rc.last
}

// check fails the test if any change failed.
func (rc *routeChurn) check(t *testing.T) {
	t.Helper()
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if n := rc.failed.Load(); n != 0 {
		t.Errorf("%d HTTPRoute changes failed; the first: %v", n, rc.firstErr)
	}
}

// bigPolicy is a Gateway-level policy on Gateway gw whose defaults hold n rules.
func bigPolicy(k policy.Kind, n, gw int) *policy.Policy {
	p := gen.GatewayPolicy(k, 100000, gw)
	p.Ref.Name = "big-policy"
	p.Overrides = nil
	rules := make(map[string]interface{}, n)
	for i := 0; i < n; i++ {
		rules[fmt.Sprintf("rule-%d", i)] = map[string]interface{}{"rates": []interface{}{map[string]interface{}{"limit": int64(i + 1), "window": "1m"}}}
	}
	p.Defaults = &policy.Block{Strategy: policy.StrategyMerge, Rules: rules}
	return p
}

// stats are p50, p99, mean and the writes per second one client sending them back to back would
// see (count over the time spent in them).
type stats struct {
	n             int
	p50, p99, avg time.Duration
	perSecond     float64
}

func summarize(d []time.Duration) stats {
	var sum time.Duration
	for _, x := range d {
		sum += x
	}
	s := stats{n: len(d), p50: quantile(d, .5), p99: quantile(d, .99)}
	if len(d) > 0 {
		s.avg = sum / time.Duration(len(d))
		s.perSecond = float64(len(d)) / sum.Seconds()
	}
	return s
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2fms", float64(d)/float64(time.Millisecond)) }
