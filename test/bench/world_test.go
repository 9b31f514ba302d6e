//go:build bench

package bench

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/precedent-dev/precedent/internal/controlplane"
	"github.com/precedent-dev/precedent/test/gen"
)

var root = filepath.Join("..", "..")

var scale = flag.Float64("scale", 1, "fraction of the world to load (1: 1,000 Gateways, 10,000 HTTPRoutes, 5,000 policies)")

// worldSize is the cluster of the webhook and reconciler issues, times -scale.
func worldSize() gen.Size {
	f := func(n int) int { return max(1, int(float64(n)**scale)) }
	return gen.Size{Gateways: f(1000), Routes: f(10000), Policies: f(5000)}
}

// loadWorkers bounds the parallel creates of the load: enough to keep a 2-core API server busy.
const loadWorkers = 16

// startControlPlane starts etcd and kube-apiserver with the Gateway API and Precedent CRDs; it is
// stopped when the test ends.
func startControlPlane(t *testing.T) *controlplane.Env {
	t.Helper()
	ctrllog.SetLogger(logr.Discard())
	t0 := time.Now()
	env, err := controlplane.Start(controlplane.Options{
		AssetsDir: filepath.Join(root, "bin", "control-plane"),
		CRDDirs:   []string{filepath.Join(root, "config", "crd", "gateway-api"), filepath.Join(root, "config", "crd")},
	})
	if err != nil {
		t.Fatalf("starting the control plane: %v", err)
	}
	t.Cleanup(func() { _ = env.Stop() })
	report("control plane and CRDs ready in %s", since(t0))
	return env
}

// unlimited is cfg without client-side rate limiting (as ctrl.GetConfig gives `precedent serve`):
// the API server's priority and fairness is the only limit.
func unlimited(cfg *rest.Config) *rest.Config {
	c := rest.CopyConfig(cfg)
	c.QPS, c.Burst = -1, 0
	c.WarningHandler = rest.NoWarnings{}
	return c
}

// newClient returns an admin client without rate limiting that drops warnings.
func newClient(t *testing.T, env *controlplane.Env) client.Client {
	t.Helper()
	c, err := client.New(unlimited(env.Config), client.Options{})
	if err != nil {
		t.Fatalf("creating a client: %v", err)
	}
	return c
}

// loadWorld creates the generated world: namespaces first, then Gateways, HTTPRoutes and policies,
// each class with a bounded pool of parallel workers, and reports how long each took.
func loadWorld(t *testing.T, c client.Client, sz gen.Size) gen.World {
	t.Helper()
	w := gen.Generate(sz)
	objs, err := w.Objects()
	if err != nil {
		t.Fatal(err)
	}
	byKind := map[string][]*unstructured.Unstructured{}
	var order []string
	for _, o := range objs {
		k := o.GetKind()
		if _, ok := byKind[k]; !ok {
			order = append(order, k)
		}
		o.SetCreationTimestamp(metav1.Time{})
		byKind[k] = append(byKind[k], o)
	}
	start := time.Now()
	var parts []string
	for _, k := range order {
		t0 := time.Now()
		if err := createAll(context.Background(), c, byKind[k], loadWorkers); err != nil {
			t.Fatalf("loading the world: %v", err)
		}
		d := time.Since(t0)
		parts = append(parts, fmt.Sprintf("%d %s in %s (%.0f/s)", len(byKind[k]), k, d.Round(time.Millisecond), float64(len(byKind[k]))/d.Seconds()))
	}
	report("world loaded with %d workers in %s: %s", loadWorkers, since(start), strings.Join(parts, ", "))
	return w
}

// createAll creates objs with n workers and returns the first error.
func createAll(ctx context.Context, c client.Client, objs []*unstructured.Unstructured, n int) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	work := make(chan *unstructured.Unstructured)
	var (
		wg    sync.WaitGroup
		once  sync.Once
		first error
	)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for o := range work {
				if err := c.Create(ctx, o); err != nil {
					once.Do(func() {
						first = fmt.Errorf("creating %s %s/%s: %w", o.GetKind(), o.GetNamespace(), o.GetName(), err)
						cancel()
					})
				}
			}
		}()
	}
feed:
	for _, o := range objs {
		select {
		case work <- o:
		case <-ctx.Done():
			break feed
		}
	}
	close(work)
	wg.Wait()
	return first
}

// machine describes the host and its load, for the report.
func machine() string {
	load, _ := os.ReadFile("/proc/loadavg")
	return fmt.Sprintf("%d CPUs (GOMAXPROCS %d), %s, load average %s", runtime.NumCPU(), runtime.GOMAXPROCS(0), runtime.Version(),
		strings.Join(strings.Fields(string(load))[:3], " "))
}

// report prints one line of the benchmark's output.
func report(format string, args ...interface{}) {
	fmt.Printf(">> "+format+"\n", args...)
}

func since(t time.Time) time.Duration { return time.Since(t).Round(time.Millisecond) }

// quantile returns the q-quantile of d (sorted in place).
func quantile(d []time.Duration, q float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	i := int(q * float64(len(d)))
	if i >= len(d) {
		i = len(d) - 1
	}
	return d[i]
}
