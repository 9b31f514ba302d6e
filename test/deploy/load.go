package deploy

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Op is one write of the stream and its outcome.
type Op struct {
	Kind       string // create, update, dry-run, probe, delete
	Name       string
	Start, End time.Time
	// Err is set when the outcome was not the expected one: an error for a write that should be
	// admitted, anything but the webhook's denial for the probe.
	Err error
}

var rlp = schema.GroupVersionKind{Group: "policy.precedent.dev", Version: "v1alpha1", Kind: "RateLimitPolicy"}

// Load writes RateLimitPolicies at a steady rate through the API server: creates, updates
// (merge patches), server-side dry-runs (one admitted, one the webhook must deny) and deletes. Every
// write of a managed kind goes through Precedent's webhooks.
type Load struct {
	C         client.Client
	Namespace string
	// Prefix starts the names of the stream's policies (one per stream, so streams never collide).
	Prefix  string
	Gateway string
	// Rate is the writes per second the stream aims at; Workers bounds the writes in flight.
	Rate, Workers int
	// Timeout bounds one write (the webhooks' own timeout is 5 s).
	Timeout time.Duration
	// DryRunOnly makes every write a server-side dry-run create (nothing stored, nothing changes).
	DryRunOnly bool
	// Bypass labels the stream's policies with BypassLabel, which Cluster.BypassWebhooks has
	// Precedent's webhooks skip, and makes the probes plain dry-runs (nothing would deny them): the
	// same writes at the API server's own cost.
	Bypass bool

	mu     sync.Mutex
	ops    []Op
	missed int      // ticks with every worker busy
	live   []string // created, not yet deleted
	seq    int
}

// Run writes until ctx ends or max writes were sent.
func (l *Load) Run(ctx context.Context, max int) {
	jobs := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < l.Workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				l.do(i)
			}
		}()
	}
	tick := time.NewTicker(time.Second / time.Duration(l.Rate))
	defer tick.Stop()
	for i := 0; i < max; i++ {
		select {
		case <-ctx.Done():
			close(jobs)
			wg.Wait()
			return
		case <-tick.C:
		}
		select {
		case jobs <- i:
		default:
			l.mu.Lock()
			l.missed++
			l.mu.Unlock()
		}
	}
	close(jobs)
	wg.Wait()
}

func (l *Load) do(i int) {
	ctx, cancel := context.WithTimeout(context.Background(), l.Timeout)
	defer cancel()
	op := Op{Start: time.Now()}
	kind := i % 4
	if l.DryRunOnly {
		kind = -1
	}
	switch kind {
	case -1:
		op.Kind, op.Name = "dry-run", fmt.Sprintf("%s-dry-%d", l.Prefix, i)
		op.Err = l.C.Create(ctx, l.policy(op.Name, i), client.DryRunAll)
	case 0:
		op.Kind = "create"
		l.mu.Lock()
		l.seq++
		op.Name = fmt.Sprintf("%s-%d", l.Prefix, l.seq)
		l.mu.Unlock()
		op.Err = l.C.Create(ctx, l.policy(op.Name, i))
		if op.Err == nil {
			l.mu.Lock()
			l.live = append(l.live, op.Name)
			l.mu.Unlock()
		}
	case 1:
		op.Kind = "update"
		if op.Name = l.pick(false); op.Name != "" {
			defer l.putBack(op.Name)
			patch := fmt.Sprintf(`{"spec":{"defaults":{"limits":{"x":{"rates":[{"limit":%d,"window":"1m"}]}}}}}`, 10+i%90)
			op.Err = l.C.Patch(ctx, l.ref(op.Name), client.RawPatch(types.MergePatchType, []byte(patch)))
		}
	case 2:
		if i%8 == 2 || l.Bypass {
			op.Kind, op.Name = "dry-run", fmt.Sprintf("dry-%d", i)
			op.Err = l.C.Create(ctx, l.policy(op.Name, i), client.DryRunAll)
		} else {
			op.Kind, op.Name = "probe", fmt.Sprintf("probe-%d", i)
			p := l.policy(op.Name, i)
			p.Object["spec"].(map[string]interface{})["unset"] = []interface{}{"y", "y"}
			err := l.C.Create(ctx, p, client.DryRunAll)
			if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "denied the request") {
				op.Err = fmt.Errorf("the probe was not denied by the webhook: %v", err)
			}
		}
	case 3:
		op.Kind = "delete"
		if op.Name = l.pick(true); op.Name != "" {
			op.Err = l.C.Delete(ctx, l.ref(op.Name))
		}
	}
	op.End = time.Now()
	if op.Name == "" && (op.Kind == "update" || op.Kind == "delete") {
		return // nothing live yet
	}
	l.mu.Lock()
	l.ops = append(l.ops, op)
	l.mu.Unlock()
}

// pick takes a live policy out of live (so no other write deletes it meanwhile): the newest to
// update (putBack returns it), the oldest to delete once there are a few.
func (l *Load) pick(oldest bool) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.live) == 0 || (oldest && len(l.live) < 4) {
		return ""
	}
	if oldest {
		n := l.live[0]
		l.live = l.live[1:]
		return n
	}
	n := l.live[len(l.live)-1]
	l.live = l.live[:len(l.live)-1]
	return n
}

func (l *Load) putBack(name string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.live = append(l.live, name)
}

func (l *Load) ref(name string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(rlp)
	u.SetNamespace(l.Namespace)
	u.SetName(name)
	if l.Bypass {
		u.SetLabels(map[string]string{BypassLabel: "true"})
	}
	return u
}

func (l *Load) policy(name string, i int) *unstructured.Unstructured {
	u := l.ref(name)
	u.Object["spec"] = map[string]interface{}{
		"targetRef": map[string]interface{}{"group": "gateway.networking.k8s.io", "kind": "Gateway", "name": l.Gateway},
		"defaults": map[string]interface{}{"limits": map[string]interface{}{
			"x": map[string]interface{}{"rates": []interface{}{map[string]interface{}{"limit": int64(10 + i%90), "window": "1m"}}},
		}},
	}
	return u
}

// Window is what the stream did between two instants (by the start of each write).
type Window struct {
	Writes int
	Failed []Op
	Missed int
	Span   time.Duration
	// P50 is the median client latency of the writes that succeeded.
	P50 time.Duration
}

// Between returns the writes started in [from, to).
func (l *Load) Between(from, to time.Time) Window {
	l.mu.Lock()
	defer l.mu.Unlock()
	w := Window{Span: to.Sub(from)}
	var took []time.Duration
	for _, op := range l.ops {
		if op.Start.Before(from) || !op.Start.Before(to) {
			continue
		}
		w.Writes++
		if op.Err != nil {
			w.Failed = append(w.Failed, op)
			continue
		}
		took = append(took, op.End.Sub(op.Start))
	}
	if len(took) > 0 {
		slices.Sort(took)
		w.P50 = took[len(took)/2]
	}
	return w
}

// Count is how many writes the stream has done.
func (l *Load) Count() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.ops)
}

// Missed is how many ticks found every worker busy so far.
func (l *Load) Missed() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.missed
}

// Rate is the writes per second of w.
func (w Window) Rate() float64 {
	if w.Span <= 0 {
		return 0
	}
	return float64(w.Writes) / w.Span.Seconds()
}

// Summary is one line: writes, rate, failures and the first failures' errors.
func (w Window) Summary() string {
	s := fmt.Sprintf("%d writes in %s (%.0f/s), %d failed", w.Writes, w.Span.Round(time.Millisecond), w.Rate(), len(w.Failed))
	for i, op := range w.Failed {
		if i == 3 {
			s += fmt.Sprintf("\n  … and %d more", len(w.Failed)-3)
			break
		}
		s += fmt.Sprintf("\n  %s %s at %s: %v", op.Kind, op.Name, op.Start.Format("15:04:05.000"), op.Err)
	}
	return s
}
