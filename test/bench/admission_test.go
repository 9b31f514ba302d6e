//go:build bench

package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	goruntime "runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-logr/logr"
	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrlwebhook "sigs.k8s.io/controller-runtime/pkg/webhook"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
	"sigs.k8s.io/yaml"

	"github.com/precedent-dev/precedent/internal/assembly"
	"github.com/precedent-dev/precedent/internal/controlplane"
	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/settings"
	"github.com/precedent-dev/precedent/internal/vap"
	"github.com/precedent-dev/precedent/test/gen"
	"github.com/precedent-dev/precedent/webhook"
)

var (
	rounds = flag.Int("rounds", 2000, "measured rounds of TestAdmissionCost; a round sends one route-level and one Gateway-level dry-run create under each mode")
	warmup = flag.Int("warmup", 200, "unmeasured rounds before the measured ones")
)

// A mode is one way a policy kind is admitted; each has its own copy of the RateLimitPolicy CRD
// (same schema, another group) except Precedent's, which is the shipped kind.
type mode struct {
	id, name, group string
}

var modes = []mode{
	{"a", "no admission", "none.bench.precedent.dev"},
	{"b", "exported ValidatingAdmissionPolicy", "vap.bench.precedent.dev"},
	{"c", "no-op webhook (Precedent's server)", "noop.bench.precedent.dev"},
	{"d", "Precedent's webhooks", policy.Group},
	{"e", "no-op returning Precedent's warnings", "replay.bench.precedent.dev"},
}

// The no-op webhooks, on Precedent's webhook server: noopPath admits everything; replayPath admits
// everything with the warnings Precedent's handler returned for the same write, computed before the
// measured rounds, so that e-c is what carrying the warnings costs and d-e what computing them does.
const (
	noopPath   = "/noop"
	replayPath = "/replay"
)

// TestAdmissionCost is `make bench-admission`: one API server holding the generated world, and
// server-side dry-run creates of the world's policies under a new name, alternating request by
// request between the five modes.
func TestAdmissionCost(t *testing.T) {
	report("machine: %s", machine())
	env := startControlPlane(t)
	c := newClient(t, env)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	installCopies(ctx, t, c)
	w := loadWorld(t, c, worldSize())
	installVAP(ctx, t, c, inGroup(w.Kind, modes[1].group))

	t0 := time.Now()
	srv := startWebhooks(ctx, t, env, false)
	if err := env.RegisterWebhooks(ctx, c, settings.Defaults().Registry().Kinds()); err != nil {
		t.Fatal(err)
	}
	registerNoop(ctx, t, c, modes[2], noopPath)
	registerNoop(ctx, t, c, modes[4], replayPath)
	waitAdmission(ctx, t, c, w.Kind, srv)
	report("manager synced on the world, webhooks and VAP in force in %s", since(t0))

	var routeLevel, gatewayLevel []*policy.Policy
	for _, p := range w.Policies {
		if p.Targets[0].Kind == "Gateway" {
			gatewayLevel = append(gatewayLevel, p)
		} else {
			routeLevel = append(routeLevel, p)
		}
	}
	levels := []struct {
		name     string
		policies []*policy.Policy
	}{{"route", routeLevel}, {"gateway", gatewayLevel}}

	// lat[level][mode] holds the measured latencies.
	lat := make([][][]time.Duration, len(levels))
	for l := range lat {
		lat[l] = make([][]time.Duration, len(modes))
	}
	// write is what round r sends at level l, under every mode.
	write := func(r, l int) *unstructured.Unstructured {
		p := *levels[l].policies[(r*7919)%len(levels[l].policies)]
		p.Ref.Name = fmt.Sprintf("bench-%d", r)
		u, err := gen.PolicyObject(&p)
		if err != nil {
			t.Fatal(err)
		}
		unstructured.RemoveNestedField(u.Object, "metadata", "creationTimestamp")
		return u
	}
	t0 = time.Now()
	n := replay(ctx, t, srv, w.Kind, *warmup+*rounds, len(levels), write)
	checkReplay(ctx, t, env, srv, w.Kind, len(levels), write)
	report("Precedent's warnings for the %d writes computed for (e) in %s, and the first ones checked against what (d) returns through the API server", n, since(t0))
	run := func(r int, record bool) {
		for l := range levels {
			base := write(r, l)
			for j := range modes {
				m := (r + j) % len(modes) // rotate which mode goes first
				u := base.DeepCopy()
				u.SetAPIVersion(modes[m].group + "/" + w.Kind.GVK.Version)
				t0 := time.Now()
				err := c.Create(ctx, u, client.DryRunAll)
				d := time.Since(t0)
				if err != nil {
					t.Fatalf("dry-run create of %s %s/%s under (%s): %v", u.GetAPIVersion(), u.GetNamespace(), u.GetName(), modes[m].id, err)
				}
				if record {
					lat[l][m] = append(lat[l][m], d)
				}
			}
		}
	}
	for r := 0; r < *warmup; r++ {
		run(r, false)
	}
	before := srv.counts()
	apiBefore, srvBefore := scrapeAdmission(ctx, t, env.Config), scrapeWebhookServer(t)
	var gcBefore, gcAfter goruntime.MemStats
	goruntime.ReadMemStats(&gcBefore)
	report("measuring %d rounds x %d levels x %d modes, one request at a time; %s", *rounds, len(levels), len(modes), machine())
	t0 = time.Now()
	for r := *warmup; r < *warmup+*rounds; r++ {
		run(r, true)
	}
	after := srv.counts()
	report("measured in %s; %s", since(t0), machine())
	goruntime.ReadMemStats(&gcAfter)
	apiAfter, srvAfter := scrapeAdmission(ctx, t, env.Config), scrapeWebhookServer(t)

	fmt.Printf("\n%-8s %-40s %6s %10s %10s\n", "level", "mode", "n", "p50", "p99")
	var all [][]time.Duration = make([][]time.Duration, len(modes))
	for l, lv := range levels {
		for m, md := range modes {
			all[m] = append(all[m], lat[l][m]...)
			fmt.Printf("%-8s (%s) %-36s %6d %10s %10s\n", lv.name, md.id, md.name, len(lat[l][m]), us(quantile(lat[l][m], .5)), us(quantile(lat[l][m], .99)))
		}
	}
	for m, md := range modes {
		fmt.Printf("%-8s (%s) %-36s %6d %10s %10s\n", "both", md.id, md.name, len(all[m]), us(quantile(all[m], .5)), us(quantile(all[m], .99)))
	}
	fmt.Printf("\n%-8s %12s %12s %12s %12s %12s\n", "level", "d/c p50", "d/b p50", "d/a p50", "d-c p50", "d/c p99")
	for l, lv := range levels {
		ratios(lv.name, lat[l])
	}
	ratios("both", all)
	fmt.Printf("\n%-8s %12s %12s %12s\n", "level", "e-c p50", "d-e p50", "e/c p50")
	for l, lv := range levels {
		parts(lv.name, lat[l])
	}
	parts("both", all)
	fmt.Println("e-c: what carrying Precedent's warnings costs a webhook that computes nothing; d-e: what computing them costs.")

	keep := []string{"precedent"} // every group, webhook and VAP of the bench is named so
	reportAdmission("API server's view of the measured rounds", apiBefore, apiAfter, keep)
	reportAdmission("the webhook server's view (manager and client share this process)", srvBefore, srvAfter, []string{""})
	fmt.Printf("this process during the measured rounds: %d GC cycles, %.0f MiB allocated, %.0f MiB heap in use after\n\n",
		gcAfter.NumGC-gcBefore.NumGC, float64(gcAfter.TotalAlloc-gcBefore.TotalAlloc)/(1<<20), float64(gcAfter.HeapInuse)/(1<<20))

	calls := func(path string) int64 { return after[path] - before[path] }
	if n := srv.replayMisses.Load(); n != 0 {
		t.Errorf("the replaying no-op webhook met %d writes it had no warnings for", n)
	}
	fmt.Printf("\nwebhook calls during the measured rounds (%d requests per mode):\n", *rounds*len(levels))
	fmt.Printf("  Precedent validating %s: %d\n  Precedent mutating %s: %d (must be 0: none of these writes needs mutation)\n  no-op %s: %d\n  no-op replaying Precedent's warnings %s: %d\n\n",
		webhook.ValidatePath, calls(webhook.ValidatePath), webhook.MutatePath, calls(webhook.MutatePath), noopPath, calls(noopPath), replayPath, calls(replayPath))
	if n := calls(webhook.MutatePath); n != 0 {
		t.Errorf("the mutating webhook was called %d times for writes that need no mutation", n)
	}
	if n := calls(webhook.ValidatePath); n != int64(*rounds*len(levels)) {
		t.Errorf("the validating webhook was called %d times, want %d", n, *rounds*len(levels))
	}
	for _, path := range []string{noopPath, replayPath} {
		if n := calls(path); n != int64(*rounds*len(levels)) {
			t.Errorf("the no-op webhook %s was called %d times, want %d", path, n, *rounds*len(levels))
		}
	}
}

func ratios(name string, lat [][]time.Duration) {
	p50 := func(m int) float64 { return float64(quantile(lat[m], .5)) }
	p99 := func(m int) float64 { return float64(quantile(lat[m], .99)) }
	fmt.Printf("%-8s %12.3f %12.3f %12.3f %12s %12.3f\n", name, p50(3)/p50(2), p50(3)/p50(1), p50(3)/p50(0),
		us(time.Duration(p50(3)-p50(2))), p99(3)/p99(2))
}

// parts splits d-c at p50: e-c is carrying Precedent's warnings, d-e computing them.
func parts(name string, lat [][]time.Duration) {
	p50 := func(m int) time.Duration { return quantile(lat[m], .5) }
	fmt.Printf("%-8s %12s %12s %12.3f\n", name, us(p50(4)-p50(2)), us(p50(3)-p50(4)), float64(p50(4))/float64(p50(2)))
}

func us(d time.Duration) string { return fmt.Sprintf("%.0fµs", float64(d)/float64(time.Microsecond)) }

// inGroup is kind k moved to another API group.
func inGroup(k policy.Kind, group string) policy.Kind {
	k.GVK.Group = group
	return k
}

// copies are the modes with a copy of the CRD: all but Precedent's.
func copies() []mode {
	var out []mode
	for _, m := range modes {
		if m.group != policy.Group {
			out = append(out, m)
		}
	}
	return out
}

// installCopies installs the RateLimitPolicy CRD under the groups of every mode but Precedent's and
// waits until they are served.
func installCopies(ctx context.Context, t *testing.T, c client.Client) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(root, "config", "crd", "ratelimitpolicy.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range copies() {
		crd := &unstructured.Unstructured{}
		if err := yaml.Unmarshal(raw, &crd.Object); err != nil {
			t.Fatal(err)
		}
		crd.SetName("ratelimitpolicies." + m.group)
		if err := unstructured.SetNestedField(crd.Object, m.group, "spec", "group"); err != nil {
			t.Fatal(err)
		}
		if err := c.Create(ctx, crd); err != nil {
			t.Fatalf("installing the CRD copy for (%s): %v", m.id, err)
		}
	}
	for _, m := range copies() {
		l := &unstructured.UnstructuredList{}
		l.SetAPIVersion(m.group + "/v1alpha1")
		l.SetKind("RateLimitPolicyList")
		err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
			return c.List(ctx, l, client.Limit(1)) == nil, nil
		})
		if err != nil {
			t.Fatalf("the CRD copy for (%s) is not served: %v", m.id, err)
		}
	}
}

// installVAP creates what `precedent export vap` writes for kind k, and the PrecedentConfig its
// binding reads as parameter (with the default settings): without it the API server looks the
// missing parameter up with a GET on every write, which a real installation does not pay.
func installVAP(ctx context.Context, t *testing.T, c client.Client, k policy.Kind) {
	t.Helper()
	pc := &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": settings.GVK.GroupVersion().String(), "kind": settings.GVK.Kind,
		"metadata": map[string]interface{}{"name": settings.Name}, "spec": map[string]interface{}{},
	}}
	if err := c.Create(ctx, pc); err != nil {
		t.Fatalf("creating PrecedentConfig %s: %v", settings.Name, err)
	}
	out, err := vap.Render([]policy.Kind{k}, webhook.Plural)
	if err != nil {
		t.Fatal(err)
	}
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(out), 4096)
	n := 0
	for {
		u := &unstructured.Unstructured{}
		err := dec.Decode(&u.Object)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("reading the exported VAP: %v", err)
		}
		if len(u.Object) == 0 {
			continue
		}
		if err := c.Create(ctx, u); err != nil {
			t.Fatalf("creating %s %s: %v", u.GetKind(), u.GetName(), err)
		}
		n++
	}
	report("exported VAP installed for %s: %d objects", k.GVK.GroupKind(), n)
}

// replay computes, with Precedent's validating handler in this process, the warnings of every write
// the rounds will send (rounds x levels), for replayPath to return. All are computed before the
// warmup rounds, which warm whatever (d) reads in any case. It returns how many it computed.
func replay(ctx context.Context, t *testing.T, srv *countingServer, k policy.Kind, rounds, levels int, write func(r, l int) *unstructured.Unstructured) int {
	t.Helper()
	n := 0
	for r := 0; r < rounds; r++ {
		for l := 0; l < levels; l++ {
			u := write(r, l)
			u.SetAPIVersion(k.GVK.GroupVersion().String())
			u.SetCreationTimestamp(metav1.Now()) // as the API server sets it on a create, dry run or not
			raw, err := json.Marshal(u.Object)
			if err != nil {
				t.Fatal(err)
			}
			resp := srv.validator.Handle(ctx, admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
				UID:       types.UID(fmt.Sprintf("replay-%d-%d", r, l)),
				Kind:      metav1.GroupVersionKind{Group: k.GVK.Group, Version: k.GVK.Version, Kind: k.GVK.Kind},
				Resource:  metav1.GroupVersionResource{Group: k.GVK.Group, Version: k.GVK.Version, Resource: webhook.Plural(k.GVK.Kind)},
				Name:      u.GetName(),
				Namespace: u.GetNamespace(),
				Operation: admissionv1.Create,
				Object:    runtime.RawExtension{Raw: raw},
				DryRun:    ptr.To(true),
			}})
			if !resp.Allowed {
				t.Fatalf("Precedent's handler denies %s/%s: %v", u.GetNamespace(), u.GetName(), resp.Result)
			}
			srv.replay.Store(u.GetNamespace()+"/"+u.GetName(), append([]string(nil), resp.Warnings...))
			n++
		}
	}
	return n
}

// checkReplay sends the first writes through the API server to Precedent's webhooks with a client
// that keeps warnings, and fails unless each returns exactly the warnings replay computed for it:
// (e) then carries what (d) carries.
func checkReplay(ctx context.Context, t *testing.T, env *controlplane.Env, srv *countingServer, k policy.Kind, levels int, write func(r, l int) *unstructured.Unstructured) {
	t.Helper()
	got := &warningList{}
	cfg := unlimited(env.Config)
	cfg.WarningHandler, cfg.WarningHandlerWithContext = nil, got
	c, err := client.New(cfg, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for r := 0; r < 10; r++ {
		for l := 0; l < levels; l++ {
			u := write(r, l)
			u.SetAPIVersion(k.GVK.GroupVersion().String())
			got.texts = nil
			if err := c.Create(ctx, u, client.DryRunAll); err != nil {
				t.Fatalf("dry-run create of %s/%s: %v", u.GetNamespace(), u.GetName(), err)
			}
			want, ok := srv.replay.Load(u.GetNamespace() + "/" + u.GetName())
			if !ok {
				t.Fatalf("%s/%s: no warnings computed for the replay", u.GetNamespace(), u.GetName())
			}
			if !slices.Equal(got.texts, want.([]string)) {
				t.Fatalf("%s/%s: Precedent's webhooks returned\n  %s\nthe replay holds\n  %s", u.GetNamespace(), u.GetName(),
					strings.Join(got.texts, "\n  "), strings.Join(want.([]string), "\n  "))
			}
		}
	}
}

// warningList keeps the warnings of the last request (one request at a time).
type warningList struct{ texts []string }

func (w *warningList) HandleWarningHeaderWithContext(_ context.Context, _ int, _ string, text string) {
	w.texts = append(w.texts, text)
}

// countingServer is the manager's webhook server, counting the requests each path receives.
type countingServer struct {
	ctrlwebhook.Server
	mu    sync.Mutex
	calls map[string]*atomic.Int64
	// validator is Precedent's validating handler; replay holds the warnings it returned for each
	// write (by namespace/name) that replayPath returns.
	validator    admission.Handler
	replay       sync.Map
	replayMisses atomic.Int64
	// stopped is closed once the manager has stopped (its context ended).
	stopped <-chan struct{}
}

func (s *countingServer) Register(path string, h http.Handler) {
	n := &atomic.Int64{}
	s.mu.Lock()
	s.calls[path] = n
	s.mu.Unlock()
	s.Server.Register(path, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		h.ServeHTTP(w, r)
	}))
}

func (s *countingServer) counts() map[string]int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]int64{}
	for p, n := range s.calls {
		out[p] = n.Load()
	}
	return out
}

// startWebhooks runs a manager configured as `precedent serve` configures it, serving Precedent's
// handlers and, beside them on the same server, a handler that admits everything; with reconciler,
// the status controllers too. It waits until the state is synced and the server listens.
func startWebhooks(ctx context.Context, t *testing.T, env *controlplane.Env, reconciler bool) *countingServer {
	t.Helper()
	var srv *countingServer
	a, err := assembly.New(ctx, assembly.Options{
		Config: unlimited(env.Config), Logger: logr.Discard(),
		Webhooks: true, Host: "127.0.0.1", Port: env.Port, CertDir: env.CertDir,
		WrapWebhookServer: func(s ctrlwebhook.Server) ctrlwebhook.Server {
			srv = &countingServer{calls: map[string]*atomic.Int64{}, Server: s}
			return srv
		},
		Reconciler: reconciler,
	})
	if err != nil {
		t.Fatalf("assembling the manager: %v", err)
	}
	mgr, st := a.Manager, a.State
	srv.validator = &webhook.Validator{Settings: a.Live, State: st, Log: logr.Discard()}
	srv.Register(noopPath, &admission.Webhook{Handler: admission.HandlerFunc(func(context.Context, admission.Request) admission.Response {
		return admission.Allowed("")
	})})
	srv.Register(replayPath, &admission.Webhook{Handler: admission.HandlerFunc(func(_ context.Context, req admission.Request) admission.Response {
		w, ok := srv.replay.Load(req.Namespace + "/" + req.Name)
		if !ok {
			if req.Name != "probe" {
				srv.replayMisses.Add(1)
			}
			return admission.Allowed("")
		}
		return admission.Allowed("").WithWarnings(w.([]string)...)
	})})
	done := make(chan struct{})
	srv.stopped = done
	go func() {
		defer close(done)
		if err := mgr.Start(ctx); err != nil {
			fmt.Fprintln(os.Stderr, "manager:", err)
		}
	}()
	t.Cleanup(func() { <-done })
	err = wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, 5*time.Minute, true, func(context.Context) (bool, error) {
		return st.Synced() && srv.StartedChecker()(nil) == nil, nil
	})
	if err != nil {
		t.Fatalf("the manager did not become ready: %v", err)
	}
	return srv
}

// registerNoop registers a no-op webhook for the kind of mode m: a copy of Precedent's own
// validating webhook (same CA, timeout, failure policy, match policy, review versions), pointed at
// path, for that kind only.
func registerNoop(ctx context.Context, t *testing.T, c client.Client, m mode, path string) {
	t.Helper()
	pv := &admissionregistrationv1.ValidatingWebhookConfiguration{}
	if err := c.Get(ctx, types.NamespacedName{Name: webhook.ConfigurationName}, pv); err != nil {
		t.Fatal(err)
	}
	wh := *pv.Webhooks[0].DeepCopy()
	url := strings.TrimSuffix(*wh.ClientConfig.URL, webhook.ValidatePath) + path
	wh.Name = m.group
	wh.ClientConfig.URL = &url
	r := wh.Rules[0]
	r.APIGroups = []string{m.group}
	r.Resources = []string{webhook.Plural("RateLimitPolicy")}
	wh.Rules = []admissionregistrationv1.RuleWithOperations{r}
	v := &admissionregistrationv1.ValidatingWebhookConfiguration{Webhooks: []admissionregistrationv1.ValidatingWebhook{wh}}
	v.Name = "bench-" + strings.TrimPrefix(path, "/")
	if err := c.Create(ctx, v); err != nil {
		t.Fatalf("registering the no-op webhook %s: %v", path, err)
	}
}

// waitAdmission waits until each mode's admission is in force (configurations take effect
// asynchronously in the API server): the VAP and Precedent reject a duplicate unset, the no-op
// webhook is called.
func waitAdmission(ctx context.Context, t *testing.T, c client.Client, k policy.Kind, srv *countingServer) {
	t.Helper()
	probe := func(group string) error {
		u := &unstructured.Unstructured{Object: map[string]interface{}{
			"apiVersion": group + "/" + k.GVK.Version, "kind": k.GVK.Kind,
			"metadata": map[string]interface{}{"name": "probe", "namespace": "infra"},
			"spec": map[string]interface{}{
				"targetRef": map[string]interface{}{"group": policy.GatewayGroup, "kind": "Gateway", "name": "gw-0"},
				"unset":     []interface{}{"a", "a"},
			},
		}}
		return c.Create(ctx, u, client.DryRunAll)
	}
	checks := []struct {
		what string
		ok   func() bool
	}{
		{"the exported VAP rejects a duplicate unset", func() bool {
			err := probe(modes[1].group)
			return err != nil && strings.Contains(err.Error(), "ValidatingAdmissionPolicy")
		}},
		{"the no-op webhook is called", func() bool {
			_ = probe(modes[2].group)
			return srv.counts()[noopPath] > 0
		}},
		{"the replaying no-op webhook is called", func() bool {
			_ = probe(modes[4].group)
			return srv.counts()[replayPath] > 0
		}},
		{"Precedent's webhook rejects a duplicate unset", func() bool {
			err := probe(modes[3].group)
			return apierrors.IsInvalid(err) && strings.Contains(err.Error(), "denied the request")
		}},
	}
	for _, ch := range checks {
		err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
			return ch.ok(), nil
		})
		if err != nil {
			t.Fatalf("waiting until %s: %v", ch.what, err)
		}
	}
}
