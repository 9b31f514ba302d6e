package deploy

import (
	"context"
	"fmt"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// underBigPolicy puts a 5,000-rule policy on the stream's Gateway, then times two streams of 50
// writes/s for 10 s each through the Service and both replicas: server-side dry-runs only, and
// creates, updates, dry-runs and deletes, every one of which changes the policy set the replicas
// project on. An event brings the replicas' snapshots forward instead of making the next admission
// wait for a rebuild of everything (before that, this stream measured 390–517 ms p50 against 7.2 ms
// for dry-runs). Issue 22 aims at 2×; the report says the ratio (and says so past 5×, a regression
// towards the rebuild-per-change behaviour); it is a speed figure, which CPU contention moves, so
// it fails nothing: only failed writes fail the test.
//
// Profiled with perf while this ran (2 shared cores): the changing stream's extra CPU in Precedent
// was the leader's status controllers, not admission: per change, each policy on the Gateway was
// copied out of the cache, parsed and walked rule by rule (the 5,000-rule one included), about 0.4
// core. Three runs measured 3.92 before, 1.78 with that gone (package reconcile) and 1.38 with the
// folds a change drops also refolded off the request path (package state); in the last, the
// webhooks' share of the p50 was the same in both streams (3.2 and 2.7 ms), the rest the API
// server's and etcd's (1.80 between the streams with the webhooks skipped).
//
// The same two streams then run with Precedent's webhooks out of the way (an objectSelector skips
// the stream's labelled policies; BypassWebhooks), so the report shows what the API server and etcd
// alone make of them, and Precedent's share of each p50. The status reconciler runs throughout: the
// report counts its status writes in each stream.
func underBigPolicy(t *testing.T) {
	ctx := context.Background()
	big := bigGatewayPolicy()
	if err := cl.Admin.Create(ctx, big); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cl.Admin.Delete(ctx, big) }()
	measure := func(dryRunOnly, bypass bool) stream {
		streams++
		l := &Load{C: cl.Admin, Namespace: loadNS, Prefix: fmt.Sprintf("big%d", streams), Gateway: loadGateway,
			Rate: 50, Workers: 8, Timeout: 10 * time.Second, DryRunOnly: dryRunOnly, Bypass: bypass}
		rctx, cancel := context.WithTimeout(ctx, 11*time.Second)
		defer cancel()
		from := time.Now()
		l.Run(rctx, 500)
		to := time.Now()
		st := stream{Window: l.Between(from, to)}
		var err error
		st.statusWrites, err = CountAudit(cl.AuditLog, serviceAccountUser, statusUpdate, from, to)
		if err != nil {
			t.Error(err)
		}
		return st
	}
	measure(true, false) // warm both replicas' snapshots of the big policy
	dry := measure(true, false)
	mixed := measure(false, false)
	t.Logf("(h) 5,000-rule Gateway policy, 50 writes/s: dry-run only p50 %s (%s); creates/updates/deletes p50 %s (%s); ratio %.2f",
		dry.P50.Round(10*time.Microsecond), dry.Summary(), mixed.P50.Round(10*time.Microsecond), mixed.Summary(), float64(mixed.P50)/float64(dry.P50))
	if len(dry.Failed)+len(mixed.Failed) > 0 {
		t.Errorf("(h) %d writes failed", len(dry.Failed)+len(mixed.Failed))
	}
	if dry.P50 == 0 || mixed.P50 > 5*dry.P50 { // a speed target, measured by make bench-admission: reported here
		t.Logf("(h) the changing stream's p50 %s is over 5× the dry-run stream's %s", mixed.P50, dry.P50)
	}

	restore, err := cl.BypassWebhooks(ctx)
	if err != nil {
		t.Fatal(err)
	}
	bdry := measure(true, true)
	bmixed := measure(false, true)
	if err := restore(); err != nil {
		t.Fatal(err)
	}
	t.Logf("(h) the same streams with Precedent's webhooks skipping them (the API server, etcd and the status reconciler only): dry-run only p50 %s (%s); creates/updates/deletes p50 %s (%s); ratio %.2f",
		bdry.P50.Round(10*time.Microsecond), bdry.Summary(), bmixed.P50.Round(10*time.Microsecond), bmixed.Summary(), float64(bmixed.P50)/float64(bdry.P50))
	t.Logf("(h) Precedent's webhooks add %s to the dry-run p50 and %s to the creates/updates/deletes p50; status writes by the replicas during each stream: %d, %d (through the webhooks), %d, %d (skipping them)",
		(dry.P50 - bdry.P50).Round(10*time.Microsecond), (mixed.P50 - bmixed.P50).Round(10*time.Microsecond),
		dry.statusWrites, mixed.statusWrites, bdry.statusWrites, bmixed.statusWrites)
	if len(bdry.Failed)+len(bmixed.Failed) > 0 {
		t.Errorf("(h) %d writes skipping the webhooks failed", len(bdry.Failed)+len(bmixed.Failed))
	}
}

// bigGatewayPolicy is a RateLimitPolicy on the stream's Gateway with 5,000 override rules.
func bigGatewayPolicy() *unstructured.Unstructured {
	limits := make(map[string]interface{}, 5000)
	for i := 0; i < 5000; i++ {
		limits[fmt.Sprintf("big-%04d", i)] = map[string]interface{}{"rates": []interface{}{map[string]interface{}{"limit": int64(100 + i), "window": "1m"}}}
	}
	return &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": rlp.GroupVersion().String(), "kind": rlp.Kind,
		"metadata": map[string]interface{}{"namespace": loadNS, "name": "big-gateway-policy"},
		"spec": map[string]interface{}{
			"targetRef": map[string]interface{}{"group": "gateway.networking.k8s.io", "kind": "Gateway", "name": loadGateway},
			"overrides": map[string]interface{}{"strategy": "merge", "limits": limits},
		},
	}}
}

// stream is what one write stream of (h) did, and the status writes the replicas made meanwhile.
type stream struct {
	Window
	statusWrites int
}

// statusUpdate is the reconciler's status write of a RateLimitPolicy.
var statusUpdate = Rule{Group: rlp.Group, Resource: "ratelimitpolicies/status", Verb: "update"}
