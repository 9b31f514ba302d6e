//go:build bench

package bench

import (
	"context"
	"flag"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/precedent-dev/precedent/internal/controlplane"
	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/state"
	"github.com/precedent-dev/precedent/test/harness"
)

var (
	steady    = flag.Duration("steady", time.Minute, "steady-state window of TestReconcileSettle")
	quiet     = flag.Duration("quiet", 5*time.Second, "TestReconcileSettle: settled once every policy has its conditions and no status write came for this long")
	settleMax = flag.Duration("settle-timeout", 10*time.Minute, "TestReconcileSettle: give up settling after this long")
	plainN    = flag.Int("plain-workers", 1, "TestReconcileSettle: parallel writers of the plain client (1, as the status controller has one worker)")
)

// TestReconcileSettle is `make bench-reconcile`: the generated world in one API server, then the
// manager with the status reconciler from a cold start. It measures the time until every policy
// has Accepted and Enforced conditions for its generation, the status writes made to get there (and
// the reads of policies the API server served meanwhile), and the writes in the following minute
// of steady state (target zero). Then, in the same run, with the manager stopped and the statuses
// cleared, a plain client writes the same statuses to the same policies (one LIST, then straight
// PUTs): the reconciler's settle time is printed against it (target: within 1.5×).
func TestReconcileSettle(t *testing.T) {
	report("machine: %s", machine())
	env := startControlPlane(t)
	c := newClient(t, env)
	w := loadWorld(t, c, worldSize())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	tr := watchStatus(ctx, t, env, w.Kind)
	if n := tr.policyCount(); n != len(w.Policies) {
		t.Fatalf("the watch sees %d policies, want %d", n, len(w.Policies))
	}
	kind := w.Kind.GVK.Kind
	writes := func() (float64, float64) { return harness.ReconcileWrites(kind), harness.ReconcileWrites("Gateway") }

	plural, _ := meta.UnsafeGuessKindToResource(w.Kind.GVK)
	resource := plural.Resource
	reads := func() float64 {
		n, err := harness.Requests(ctx, env.Config, w.Kind.GVK.Group, resource, "", "GET", "LIST")
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	reads0 := reads()

	report("starting the manager (webhook state + status reconciler) from cold; %s", machine())
	mctx, stopManager := context.WithCancel(ctx)
	defer stopManager()
	t0 := time.Now()
	srv := startWebhooks(mctx, t, env, true)
	synced := time.Since(t0)
	var allConds time.Duration
	lastWrite, lastP, lastG := time.Now(), 0.0, 0.0
	nextProgress := time.Now().Add(30 * time.Second)
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, *settleMax, true, func(context.Context) (bool, error) {
		p, g := writes()
		if time.Now().After(nextProgress) {
			nextProgress = nextProgress.Add(30 * time.Second)
			report("  %s: %d of %d policies with both conditions; %.0f policy and %.0f Gateway status writes; %s",
				since(t0), tr.settledCount(), len(w.Policies), p, g, machine())
		}
		if p != lastP || g != lastG {
			lastWrite, lastP, lastG = time.Now(), p, g
		}
		if allConds == 0 && tr.settledCount() == len(w.Policies) {
			allConds = time.Since(t0)
		}
		return allConds > 0 && time.Since(lastWrite) >= *quiet, nil
	})
	if err != nil {
		t.Fatalf("not settled within %s: %d of %d policies have both conditions; %.0f policy and %.0f Gateway status writes",
			*settleMax, tr.settledCount(), len(w.Policies), lastP, lastG)
	}
	settled := lastWrite.Sub(t0)
	p0, g0 := writes()
	seenP0, seenG0 := tr.updates()
	report("cache synced and webhook serving after %s", synced.Round(time.Millisecond))
	report("every one of %d policies has Accepted and Enforced for its generation after %s (from manager start)", len(w.Policies), allConds.Round(time.Millisecond))
	report("last status write at %s; settled (no write for %s) at %s", settled.Round(time.Millisecond), *quiet, since(t0))
	report("status writes to settle: %.0f %s (unchanged, no write: %.0f), %.0f Gateway (Affected conditions); update events seen by the watch: %d policies, %d Gateways",
		p0, kind, harness.ReconcileUnchanged(kind), g0, seenP0, seenG0)
	report("%s GETs and LISTs the API server served while settling: %.0f (the manager's cache lists and watches them)", kind, reads()-reads0)
	report("policy conditions: %s", tr.reasons())

	report("steady state: watching writes for %s; %s", *steady, machine())
	select {
	case <-time.After(*steady):
	case <-ctx.Done():
	}
	p1, g1 := writes()
	seenP1, seenG1 := tr.updates()
	report("writes during %s of steady state: %.0f %s, %.0f Gateway; update events seen by the watch: %d policies, %d Gateways; %s",
		*steady, p1-p0, kind, g1-g0, seenP1-seenP0, seenG1-seenG0, machine())
	if p1 != p0 || g1 != g0 {
		t.Errorf("status writes in steady state: %.0f %s, %.0f Gateway, want none", p1-p0, kind, g1-g0)
	}

	// The plain client: the same statuses on the same policies, from cleared statuses.
	stopManager()
	<-srv.stopped
	final := tr.statuses()
	if len(final) != len(w.Policies) {
		t.Fatalf("the watch holds %d statuses, want %d", len(final), len(w.Policies))
	}
	if _, err := putStatuses(ctx, c, w.Kind, func(types.NamespacedName) map[string]interface{} { return map[string]interface{}{} }, loadWorkers); err != nil {
		t.Fatalf("clearing the statuses: %v", err)
	}
	report("statuses cleared; the plain client writes the same %d statuses with %d writer(s); %s", len(final), *plainN, machine())
	plain, err := putStatuses(ctx, c, w.Kind, func(k types.NamespacedName) map[string]interface{} { return final[k] }, *plainN)
	if err != nil {
		t.Fatalf("plain client: %v", err)
	}
	if n := tr.settledCount(); n != len(w.Policies) {
		// the watch may trail the last PUT's answer a little
		_ = wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
			return tr.settledCount() == len(w.Policies), nil
		})
	}
	report("plain client: 1 LIST + %d status PUTs in %s (%.0f/s); every policy has both conditions again: %t",
		len(final), plain.Round(time.Millisecond), float64(len(final))/plain.Seconds(), tr.settledCount() == len(w.Policies))
	report("settle time: reconciler %s (from a cold manager start, %.0f writes), plain client %s (%d PUTs): ratio %.2f× (target ≤ 1.5×)",
		settled.Round(time.Millisecond), p0, plain.Round(time.Millisecond), len(final), settled.Seconds()/plain.Seconds())
}

// putStatuses lists the policies of kind k, then PUTs the status status(key) on each, with n
// writers (again on a conflict), and returns how long it took from the LIST on.
func putStatuses(ctx context.Context, c client.Client, k policy.Kind, status func(types.NamespacedName) map[string]interface{}, n int) (time.Duration, error) {
	t0 := time.Now()
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(k.GVK.GroupVersion().WithKind(k.GVK.Kind + "List"))
	if err := c.List(ctx, list); err != nil {
		return 0, err
	}
	work := make(chan *unstructured.Unstructured)
	errs := make(chan error, n)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for u := range work {
				err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
					u.Object["status"] = runtime.DeepCopyJSONValue(status(client.ObjectKeyFromObject(u)))
					err := c.Status().Update(ctx, u)
					if apierrors.IsConflict(err) {
						_ = c.Get(ctx, client.ObjectKeyFromObject(u), u)
					}
					return err
				})
				if err != nil {
					select { // the first error of each writer; the writer goes on, so the feed never blocks
					case errs <- fmt.Errorf("writing the status of %s/%s: %w", u.GetNamespace(), u.GetName(), err):
					default:
					}
				}
			}
		}()
	}
	for i := range list.Items {
		work <- &list.Items[i]
	}
	close(work)
	wg.Wait()
	close(errs)
	return time.Since(t0), <-errs
}

// statusWatch follows the policies and Gateways through a watch of its own (not the manager's):
// which policies carry both conditions for their generation, and how many updates each kind saw.
type statusWatch struct {
	kind   policy.Kind
	mu     sync.Mutex
	conds  map[types.NamespacedName]string // "" until both conditions are set
	status map[types.NamespacedName]map[string]interface{}
	gens   map[types.NamespacedName]int64 // generation last seen
	// settledAt is when the watch first saw each policy with both conditions for the generation of gens
	settledAt  map[types.NamespacedName]time.Time
	policyUpds int
	gwUpds     int
}

func watchStatus(ctx context.Context, t *testing.T, env *controlplane.Env, k policy.Kind) *statusWatch {
	t.Helper()
	scheme, err := state.NewScheme()
	if err != nil {
		t.Fatal(err)
	}
	ca, err := cache.New(unlimited(env.Config), cache.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	tr := &statusWatch{kind: k, conds: map[types.NamespacedName]string{}, status: map[types.NamespacedName]map[string]interface{}{}, gens: map[types.NamespacedName]int64{}, settledAt: map[types.NamespacedName]time.Time{}}
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(k.GVK)
	pinf, err := ca.GetInformer(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	preg, err := pinf.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
		AddFunc:    func(o interface{}) { tr.policy(o, false) },
		UpdateFunc: func(_, o interface{}) { tr.policy(o, true) },
	})
	if err != nil {
		t.Fatal(err)
	}
	ginf, err := ca.GetInformer(ctx, &gwv1.Gateway{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = ginf.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
		UpdateFunc: func(_, _ interface{}) { tr.mu.Lock(); tr.gwUpds++; tr.mu.Unlock() },
	})
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = ca.Start(ctx) }()
	// The handler, not only the informer, must have seen the initial list.
	if !ca.WaitForCacheSync(ctx) || !toolscache.WaitForCacheSync(ctx.Done(), preg.HasSynced) {
		t.Fatal("the status watch did not sync")
	}
	return tr
}

func (tr *statusWatch) policy(o interface{}, update bool) {
	u, ok := o.(*unstructured.Unstructured)
	if !ok {
		return
	}
	var conds []metav1.Condition
	if raw, found, _ := unstructured.NestedSlice(u.Object, "status", "conditions"); found {
		for _, r := range raw {
			var c metav1.Condition
			if m, ok := r.(map[string]interface{}); ok && runtime.DefaultUnstructuredConverter.FromUnstructured(m, &c) == nil {
				conds = append(conds, c)
			}
		}
	}
	state := ""
	a, e := meta.FindStatusCondition(conds, "Accepted"), meta.FindStatusCondition(conds, "Enforced")
	if a != nil && e != nil && a.ObservedGeneration == u.GetGeneration() && e.ObservedGeneration == u.GetGeneration() {
		state = fmt.Sprintf("Accepted=%s/%s Enforced=%s/%s", a.Status, a.Reason, e.Status, e.Reason)
	}
	tr.mu.Lock()
	defer tr.mu.Unlock()
	tr.conds[client.ObjectKeyFromObject(u)] = state
	key := client.ObjectKeyFromObject(u)
	if tr.gens[key] != u.GetGeneration() || state == "" {
		delete(tr.settledAt, key)
	}
	if _, ok := tr.settledAt[key]; !ok && state != "" {
		tr.settledAt[key] = time.Now()
	}
	tr.gens[key] = u.GetGeneration()
	st, _ := u.Object["status"].(map[string]interface{})
	tr.status[client.ObjectKeyFromObject(u)] = st
	if update {
		tr.policyUpds++
	}
}

// statuses returns the last status seen of each policy (not to be modified).
func (tr *statusWatch) statuses() map[types.NamespacedName]map[string]interface{} {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	out := make(map[types.NamespacedName]map[string]interface{}, len(tr.status))
	for k, v := range tr.status {
		out[k] = v
	}
	return out
}

func (tr *statusWatch) policyCount() int {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return len(tr.conds)
}

func (tr *statusWatch) settledCount() int {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	n := 0
	for _, s := range tr.conds {
		if s != "" {
			n++
		}
	}
	return n
}

func (tr *statusWatch) updates() (policies, gateways int) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return tr.policyUpds, tr.gwUpds
}

// reasons counts the policies by their pair of conditions.
func (tr *statusWatch) reasons() string {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	count := map[string]int{}
	for _, s := range tr.conds {
		if s == "" {
			s = "(no conditions)"
		}
		count[s]++
	}
	var out []string
	for s, n := range count {
		out = append(out, fmt.Sprintf("%d %s", n, s))
	}
	sort.Strings(out)
	return strings.Join(out, "; ")
}
