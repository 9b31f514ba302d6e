//go:build bench

package bench

import (
	"context"
	"flag"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/settings"
	"github.com/precedent-dev/precedent/test/gen"
)

var (
	churnFor   = flag.Duration("churn-for", 20*time.Second, "TestAdmissionChurn: measured time of each case (quiet, routes changing)")
	streamFor  = flag.Duration("stream-for", 20*time.Second, "TestAdmissionChurn: measured time of each policy write stream")
	streamRate = flag.Int("stream-rate", 50, "TestAdmissionChurn: policy writes per second of each stream")
)

// TestAdmissionChurn is the churn mode of `make bench-admission`, on the same loaded API server as
// TestAdmissionCost. First, route- and Gateway-level dry-run creates from one client, alternating
// between Precedent's webhooks (d) and the no-op webhook (c), while nothing changes and while a
// second client changes -route-changes HTTPRoute specs per second. Then, with a 5,000-rule
// Gateway-level policy added, two open-loop streams of -stream-rate policy writes per second under
// Precedent's webhooks: dry-run creates only, and real creates, updates and deletes, each of which
// changes the policy set the webhook decides on (target: the second's client p50 within 2× of the
// first's).
func TestAdmissionChurn(t *testing.T) {
	report("machine: %s", machine())
	env := startControlPlane(t)
	c := newClient(t, env)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	installCopies(ctx, t, c)
	sz := worldSize()
	w := loadWorld(t, c, sz)
	installVAP(ctx, t, c, inGroup(w.Kind, modes[1].group))
	t0 := time.Now()
	srv := startWebhooks(ctx, t, env, false)
	if err := env.RegisterWebhooks(ctx, c, settings.Defaults().Registry().Kinds()); err != nil {
		t.Fatal(err)
	}
	registerNoop(ctx, t, c, modes[2], noopPath)
	registerNoop(ctx, t, c, modes[4], replayPath)
	waitAdmission(ctx, t, c, w.Kind, srv)
	report("manager synced on the world, webhooks in force in %s", since(t0))

	var levels [2][]*policy.Policy // route, Gateway
	for _, p := range w.Policies {
		l := 0
		if p.Targets[0].Kind == "Gateway" {
			l = 1
		}
		levels[l] = append(levels[l], p)
	}
	levelNames := [2]string{"route", "gateway"}
	write := func(r, l int, group string) *unstructured.Unstructured {
		p := *levels[l][(r*7919)%len(levels[l])]
		p.Ref.Name = fmt.Sprintf("churn-%d", r)
		u, err := gen.PolicyObject(&p)
		if err != nil {
			t.Fatal(err)
		}
		unstructured.RemoveNestedField(u.Object, "metadata", "creationTimestamp")
		u.SetAPIVersion(group + "/" + w.Kind.GVK.Version)
		return u
	}
	pair := [2]mode{modes[2], modes[3]} // c, d
	// measure sends rounds for d, from round r0 on, and returns lat[level][c or d] and the rounds sent.
	measure := func(d time.Duration, r0 int) ([2][2][]time.Duration, int) {
		var lat [2][2][]time.Duration
		end := time.Now().Add(d)
		r := r0
		for ; time.Now().Before(end); r++ {
			for l := range levels {
				for j := range pair {
					m := (r + j) % len(pair)
					u := write(r, l, pair[m].group)
					s := time.Now()
					err := c.Create(ctx, u, client.DryRunAll)
					took := time.Since(s)
					if err != nil {
						t.Fatalf("dry-run create of %s %s/%s under (%s): %v", u.GetAPIVersion(), u.GetNamespace(), u.GetName(), pair[m].id, err)
					}
					lat[l][m] = append(lat[l][m], took)
				}
			}
		}
		return lat, r
	}
	churn := newRouteChurn(secondClient(t, env), sz)
	cases := []struct {
		name string
		rate int
	}{{"quiet", 0}, {fmt.Sprintf("routes=%d/s", *routeRate), *routeRate}}
	results := make([][2][2][]time.Duration, len(cases))
	r := 0
	_, r = measure(*churnFor/4, r) // warm up, unmeasured
	for i, cs := range cases {
		stop := churn.start(ctx, cs.rate)
		time.Sleep(time.Second) // let the churn reach its rate
		report("case %s: measuring for %s; %s", cs.name, *churnFor, machine())
		t1 := time.Now()
		var lat [2][2][]time.Duration
		lat, r = measure(*churnFor, r)
		took := time.Since(t1)
		done, dropped := stop()
		results[i] = lat
		if cs.rate > 0 {
			report("case %s: the second client changed %d HTTPRoutes (%.0f/s over the case, %d ticks dropped with every worker busy)",
				cs.name, done, float64(done)/(took+time.Second).Seconds(), dropped)
		}
	}
	churn.check(t)

	fmt.Printf("\n%-16s %-8s %-36s %6s %10s %10s %10s %10s\n", "case", "level", "mode", "n", "p50", "p99", "mean", "writes/s")
	for i, cs := range cases {
		for l := range levels {
			for m, md := range pair {
				s := summarize(results[i][l][m])
				fmt.Printf("%-16s %-8s (%s) %-32s %6d %10s %10s %10s %10.0f\n", cs.name, levelNames[l], md.id, md.name, s.n, ms(s.p50), ms(s.p99), ms(s.avg), s.perSecond)
			}
		}
	}
	fmt.Printf("\n%-16s %-8s %10s %10s %14s %14s\n", "case", "level", "d/c p50", "d/c p99", "d p50 / quiet", "d w/s / quiet")
	for i, cs := range cases {
		for l := range levels {
			c50, d50 := quantile(results[i][l][0], .5), quantile(results[i][l][1], .5)
			c99, d99 := quantile(results[i][l][0], .99), quantile(results[i][l][1], .99)
			q, s := summarize(results[0][l][1]), summarize(results[i][l][1])
			fmt.Printf("%-16s %-8s %10.3f %10.3f %14.3f %14.3f\n", cs.name, levelNames[l], float64(d50)/float64(c50), float64(d99)/float64(c99),
				float64(s.p50)/float64(q.p50), s.perSecond/q.perSecond)
		}
	}
	fmt.Println("writes/s: the writes one client sending them back to back gets (count over the time spent in them).")
	fmt.Println()

	big, err := gen.PolicyObject(bigPolicy(w.Kind, 5000, 0))
	if err != nil {
		t.Fatal(err)
	}
	unstructured.RemoveNestedField(big.Object, "metadata", "creationTimestamp")
	if err := c.Create(ctx, big); err != nil {
		t.Fatalf("creating the 5,000-rule Gateway policy: %v", err)
	}
	report("5,000-rule Gateway-level policy %s/%s created on gw-0", big.GetNamespace(), big.GetName())
	s := &stream{c: c, kind: w.Kind, sz: sz}
	s.run(ctx, t, true, *streamFor/4) // warm up, unmeasured
	var streams [2]streamResult
	for i, dry := range []bool{true, false} {
		report("stream %s: %d writes/s for %s; %s", streamName(dry), *streamRate, *streamFor, machine())
		streams[i] = s.run(ctx, t, dry, *streamFor)
	}
	fmt.Printf("\n%-40s %-7s %6s %10s %10s %10s %10s %8s\n", "stream (Precedent's webhooks)", "op", "n", "p50", "p99", "mean", "served/s", "dropped")
	for i, dry := range []bool{true, false} {
		sr := streams[i]
		var all []time.Duration
		for op := range sr.lat {
			all = append(all, sr.lat[op]...)
		}
		a := summarize(all)
		fmt.Printf("%-40s %-7s %6d %10s %10s %10s %10.1f %8d\n", streamName(dry), "all", a.n, ms(a.p50), ms(a.p99), ms(a.avg), float64(a.n)/sr.took.Seconds(), sr.dropped)
		if !dry {
			for op, name := range opNames {
				o := summarize(sr.lat[op])
				fmt.Printf("%-40s %-7s %6d %10s %10s %10s\n", "", name, o.n, ms(o.p50), ms(o.p99), ms(o.avg))
			}
		}
	}
	dry, mixed := streams[0].all(), streams[1].all()
	fmt.Printf("client p50, creates/updates/deletes over dry-run only: %.2f× (target ≤ 2×)\n\n", float64(quantile(mixed, .5))/float64(quantile(dry, .5)))
}

var opNames = [3]string{"create", "update", "delete"}

func streamName(dry bool) string {
	if dry {
		return "dry-run creates only"
	}
	return "creates, updates, deletes"
}

// stream sends chains of three policy writes, one per token of an open-loop ticker: for a
// dry-run stream three dry-run creates of the same policy, otherwise its create, an update that
// changes a limit, and its delete. Chain i writes, in turn, a route-level policy on a route of gw-0
// (the Gateway of the big policy) and a Gateway-level policy on Gateway i/2 mod Gateways.
type stream struct {
	c     client.Client
	kind  policy.Kind
	sz    gen.Size
	chain atomic.Int64
}

type streamResult struct {
	lat     [3][]time.Duration // by operation
	took    time.Duration
	dropped int64
}

func (sr streamResult) all() []time.Duration {
	var out []time.Duration
	for _, l := range sr.lat {
		out = append(out, l...)
	}
	return out
}

// policyOf is the policy of chain i, its limits changed by one when changed is set.
func (s *stream) policyOf(i int, changed bool) *policy.Policy {
	var p *policy.Policy
	if i%2 == 0 {
		perGateway := max(s.sz.Routes/max(s.sz.Gateways, 1), 1)
		p = gen.RoutePolicy(s.kind, 300000+i, (i/2%perGateway)*s.sz.Gateways)
		if changed {
			p.Bare.Rules["per-user"] = map[string]interface{}{"rates": []interface{}{map[string]interface{}{"limit": int64(21), "window": "1m"}}}
		}
	} else {
		p = gen.GatewayPolicy(s.kind, 300000+i, i/2%max(s.sz.Gateways, 1))
		if changed {
			p.Defaults.Rules["global"] = map[string]interface{}{"rates": []interface{}{map[string]interface{}{"limit": int64(1001), "window": "1m"}}}
		}
	}
	p.Ref.Name = fmt.Sprintf("stream-%d", i)
	return p
}

func (s *stream) object(t *testing.T, i int, changed bool) *unstructured.Unstructured {
	u, err := gen.PolicyObject(s.policyOf(i, changed))
	if err != nil {
		t.Fatal(err)
	}
	unstructured.RemoveNestedField(u.Object, "metadata", "creationTimestamp")
	return u
}

// run sends the stream for d and returns what it measured. Chains cut short by the end are
// finished unmeasured, so no stream policy outlives the run.
func (s *stream) run(ctx context.Context, t *testing.T, dry bool, d time.Duration) streamResult {
	t.Helper()
	tk, stopTicks := ticks(*streamRate)
	var (
		mu       sync.Mutex
		res      streamResult
		failed   int
		firstErr error
		wg       sync.WaitGroup
	)
	end := time.Now().Add(d)
	t0 := time.Now()
	for w := 0; w < 16; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(end) {
				i := int(s.chain.Add(1) - 1)
				var u *unstructured.Unstructured
				for op := 0; op < 3; op++ {
					measured := false
					select {
					case <-tk:
						measured = time.Now().Before(end)
					case <-time.After(time.Until(end)):
					}
					if !measured && (dry || op == 0) {
						break // nothing left to undo
					}
					var err error
					st := time.Now()
					switch {
					case dry:
						err = s.c.Create(ctx, s.object(t, i, false), client.DryRunAll)
					case op == 0:
						u = s.object(t, i, false)
						err = s.c.Create(ctx, u)
					case op == 1:
						v := s.object(t, i, true)
						v.SetResourceVersion(u.GetResourceVersion())
						err = s.c.Update(ctx, v)
					default:
						err = s.c.Delete(ctx, s.object(t, i, false))
					}
					took := time.Since(st)
					mu.Lock()
					if err != nil {
						failed++
						if firstErr == nil {
							firstErr = fmt.Errorf("%s of %s/%s: %w", opNames[op], s.object(t, i, false).GetNamespace(), s.object(t, i, false).GetName(), err)
						}
					} else if measured {
						res.lat[op] = append(res.lat[op], took)
					}
					mu.Unlock()
					if err != nil && op == 0 {
						break
					}
				}
			}
		}()
	}
	wg.Wait()
	res.took = min(time.Since(t0), d)
	res.dropped = stopTicks()
	if failed > 0 {
		t.Errorf("stream %s: %d writes failed; the first: %v", streamName(dry), failed, firstErr)
	}
	return res
}
