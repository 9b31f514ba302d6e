package webhook_test

import (
	"context"
	"encoding/json"
	"fmt"
	"k8s.io/apimachinery/pkg/api/meta"
	goruntime "runtime"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/precedent-dev/precedent/internal/liveconfig"
	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/settings"
	"github.com/precedent-dev/precedent/internal/state"
	"github.com/precedent-dev/precedent/internal/state/statetest"
	graph "github.com/precedent-dev/precedent/internal/topology"
	"github.com/precedent-dev/precedent/profiles"
	"github.com/precedent-dev/precedent/test/gen"
	"github.com/precedent-dev/precedent/webhook"
)

// benchSizes are the cache sizes of the admission benchmark: the full world of the webhook issue
// and one tenth of it (the handler's cost must stay flat across them).
var benchSizes = []struct {
	name string
	size gen.Size
}{
	{"tenth", gen.Size{Gateways: 100, Routes: 1000, Policies: 500}},
	{"full", gen.Size{Gateways: 1000, Routes: 10000, Policies: 5000}},
}

// BenchmarkValidate measures the validating handler's Handle on server-side dry-run creates of a
// new RateLimitPolicy (route level and Gateway level) against a State holding the generated world,
// beside a handler that admits everything. Each op is timed: p50-ns and p99-ns are reported with
// ns/op and the allocations.
func BenchmarkValidate(b *testing.B) {
	noop := admission.HandlerFunc(func(context.Context, admission.Request) admission.Response { return admission.Allowed("") })
	for _, sz := range benchSizes {
		w := gen.Generate(sz.size)
		for _, level := range []string{"route", "gateway"} {
			reqs := requests(b, w, level)
			b.Run(fmt.Sprintf("size=%s/level=%s/handler=noop", sz.name, level), func(b *testing.B) {
				timeOps(b, noop, reqs)
			})
			b.Run(fmt.Sprintf("size=%s/level=%s/handler=precedent", sz.name, level), func(b *testing.B) {
				v := validator(b, sz.name, w)
				timeOps(b, v, reqs)
			})
		}
	}
}

// BenchmarkValidateCold is BenchmarkValidate at the full size with the CPU caches flushed before
// each call (64 MiB written: ns/op includes it, p50-ns and p99-ns do not): a worst case, as if the
// API server, etcd and everything else had run on the same cores since the last admission. It
// bounds the handler's cost from above; it does not explain the cost in `make bench-admission`,
// where the handler's thread is on the CPU about as long as in BenchmarkValidate and the rest is
// waiting for the CPU (docs/performance.md).
func BenchmarkValidateCold(b *testing.B) {
	noop := admission.HandlerFunc(func(context.Context, admission.Request) admission.Response { return admission.Allowed("") })
	sz := benchSizes[len(benchSizes)-1]
	w := gen.Generate(sz.size)
	flush := make([]byte, 64<<20)
	evict := func() {
		for j := 0; j < len(flush); j += 64 {
			flush[j]++
		}
	}
	for _, level := range []string{"route", "gateway"} {
		reqs := requests(b, w, level)
		b.Run(fmt.Sprintf("size=%s/level=%s/handler=noop", sz.name, level), func(b *testing.B) {
			timeOps(b, noop, reqs, evict)
		})
		b.Run(fmt.Sprintf("size=%s/level=%s/handler=precedent", sz.name, level), func(b *testing.B) {
			timeOps(b, validator(b, sz.name, w), reqs, evict)
		})
	}
}

// BenchmarkValidateAfterChange is BenchmarkValidate at the full size for the first Gateway-level
// write after a change elsewhere in the cluster: before each call, an informer delivers a spec update
// of one HTTPRoute (change=route) or of one policy of the written kind (change=policy), on other
// Gateways than the write's. In a busy cluster most admissions follow some change.
func BenchmarkValidateAfterChange(b *testing.B) {
	sz := benchSizes[len(benchSizes)-1]
	w := gen.Generate(sz.size)
	v, inf := newValidator(b, w)
	reqs := requests(b, w, "gateway")
	objs, err := w.Objects()
	if err != nil {
		b.Fatal(err)
	}
	var pols []client.Object
	for _, o := range objs {
		if o.GroupVersionKind() == w.Kind.GVK {
			pols = append(pols, o)
		}
	}
	for _, change := range []string{"route", "policy"} {
		n := 0
		update := func() {
			n++
			var old client.Object
			if change == "route" {
				old = &w.Input.HTTPRoutes[(n*104729)%len(w.Input.HTTPRoutes)]
			} else {
				old = pols[(n*104729)%len(pols)]
			}
			cur := old.DeepCopyObject().(client.Object)
			cur.SetGeneration(old.GetGeneration() + int64(n))
			inf.Update(b, old, cur)
		}
		b.Run("change="+change, func(b *testing.B) { timeOps(b, v, reqs, update) })
	}
}

// timeOps runs h on the requests in turn, timing each call; before each, the before functions
// run (outside the per-call timings).
func timeOps(b *testing.B, h admission.Handler, reqs []admission.Request, before ...func()) {
	ctx := context.Background()
	if r := h.Handle(ctx, reqs[0]); !r.Allowed { // warm: the snapshot is built on the first request
		b.Fatalf("the benchmark write is denied: %v", r.Result)
	}
	d := make([]time.Duration, b.N)
	goruntime.GC() // the setup's garbage (the generated world, the snapshot) is not the handler's to collect
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, f := range before {
			f() // timed in ns/op (stopping the timer reads memory statistics, and stops the world)
		}
		t0 := time.Now()
		h.Handle(ctx, reqs[i%len(reqs)])
		d[i] = time.Since(t0)
	}
	b.StopTimer()
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	b.ReportMetric(float64(d[len(d)/2].Nanoseconds()), "p50-ns")
	b.ReportMetric(float64(d[len(d)*99/100].Nanoseconds()), "p99-ns")
}

var (
	validatorsMu sync.Mutex
	validators   = map[string]*webhook.Validator{}
)

// validator returns a Validator whose State holds the world, filled through the State's own
// informer event handlers (fake informers deliver the objects), built once per size.
func validator(b *testing.B, name string, w gen.World) *webhook.Validator {
	validatorsMu.Lock()
	defer validatorsMu.Unlock()
	if v, ok := validators[name]; ok {
		return v
	}
	v, _ := newValidator(b, w)
	validators[name] = v
	return v
}

// newValidator builds a Validator over the world, with the fake informers that feed its State.
func newValidator(b testing.TB, w gen.World) (*webhook.Validator, *statetest.Informers) {
	return newValidatorIn(context.Background(), b, w)
}

// newValidatorIn is newValidator, its State's background work stopped with ctx.
func newValidatorIn(ctx context.Context, b testing.TB, w gen.World) (*webhook.Validator, *statetest.Informers) {
	return feedValidator(ctx, b, w.Input, w.Namespaces(), policyObjects(b, w))
}

// policyObjects are the world's policies as the State's informer for their kind delivers them.
// Only these: the Gateways and routes are delivered typed, as a replica's informers deliver them,
// and a conversion of those to unstructured objects (gen.World.Objects) would be work of the
// benchmark's, not of a replica's.
func policyObjects(b testing.TB, w gen.World) []*unstructured.Unstructured {
	out := make([]*unstructured.Unstructured, 0, len(w.Policies))
	for _, p := range w.Policies {
		u, err := gen.PolicyObject(p)
		if err != nil {
			b.Fatal(err)
		}
		if u.GroupVersionKind() == w.Kind.GVK {
			out = append(out, u)
		}
	}
	return out
}

// feedValidator builds a Validator whose State its fake informers fill with a world: namespaces,
// the Gateways and routes of in, and pols (policyObjects), through the State's own handlers.
func feedValidator(ctx context.Context, b testing.TB, in graph.Input, namespaces []string, pols []*unstructured.Unstructured) (*webhook.Validator, *statetest.Informers) {
	inf := statetest.New(b)
	live := liveconfig.NewLive(settings.Defaults(), logr.Discard())
	st := state.New(logr.Discard())
	if err := st.Watch(ctx, inf, live.Current().Registry().Kinds()); err != nil {
		b.Fatal(err)
	}
	// As a replica does, though no kind a profile owns or reads is installed here: profiles.Prepare
	// then finds them absent instead of failing for want of a REST mapper.
	if err := st.WatchProfiles(ctx, inf, meta.NewDefaultRESTMapper(nil), profiles.Own(), schema.GroupKind{}); err != nil {
		b.Fatal(err)
	}
	for _, ns := range namespaces {
		inf.Add(b, namespace(ns))
	}
	for i := range in.Gateways {
		inf.Add(b, &in.Gateways[i])
	}
	for i := range in.HTTPRoutes {
		inf.Add(b, &in.HTTPRoutes[i])
	}
	for _, o := range pols {
		inf.Add(b, o)
	}
	if !st.Synced() {
		b.Fatal("the state is not synced after the fake informers delivered the world")
	}
	return &webhook.Validator{Settings: live, State: st, Log: logr.Discard()}, inf
}

// requests builds 64 creates of a new policy of the world's kind, on as many different targets:
// copies of the world's route-level or Gateway-level policies under a new name, as the API server
// sends them (creationTimestamp, uid and managedFields set, dry run).
func requests(b *testing.B, w gen.World, level string) []admission.Request {
	var out []admission.Request
	for i := 0; len(out) < 64 && i < len(w.Policies); i++ {
		p := *w.Policies[(i*7919)%len(w.Policies)]
		if (p.Targets[0].Kind == "Gateway") != (level == "gateway") {
			continue
		}
		p.Ref.Name = fmt.Sprintf("bench-%d", len(out))
		out = append(out, request(b, &p))
	}
	if len(out) == 0 {
		b.Fatalf("no %s-level policy in the world", level)
	}
	return out
}

// namespace is Namespace ns as the State's metadata informer delivers it.
func namespace(ns string) *metav1.PartialObjectMetadata {
	m := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Name: ns, Labels: map[string]string{"kubernetes.io/metadata.name": ns}}}
	m.SetGroupVersionKind(schema.GroupVersionKind{Version: "v1", Kind: "Namespace"})
	return m
}

func request(b testing.TB, p *policy.Policy) admission.Request {
	u, err := gen.PolicyObject(p)
	if err != nil {
		b.Fatal(err)
	}
	return create(b, u)
}

// create is the admission request of a dry-run create of u as the API server sends it
// (creationTimestamp, uid and managedFields set); u is changed.
func create(b testing.TB, u *unstructured.Unstructured) admission.Request {
	u.SetCreationTimestamp(metav1.Now())
	u.SetUID(types.UID(fmt.Sprintf("00000000-0000-0000-0000-%012d", len(u.GetName()))))
	u.SetGeneration(1)
	fields, err := json.Marshal(map[string]interface{}{"f:spec": fieldSet(u.Object["spec"])})
	if err != nil {
		b.Fatal(err)
	}
	u.SetManagedFields([]metav1.ManagedFieldsEntry{{
		Manager: "kubectl-client-side-apply", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: u.GetAPIVersion(),
		Time: ptr.To(metav1.Now()), FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: fields},
	}})
	raw, err := json.Marshal(u.Object)
	if err != nil {
		b.Fatal(err)
	}
	gvk := u.GroupVersionKind()
	return admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
		UID:       types.UID("bench"),
		Kind:      metav1.GroupVersionKind{Group: gvk.Group, Version: gvk.Version, Kind: gvk.Kind},
		Resource:  metav1.GroupVersionResource{Group: gvk.Group, Version: gvk.Version, Resource: webhook.Plural(gvk.Kind)},
		Name:      u.GetName(),
		Namespace: u.GetNamespace(),
		Operation: admissionv1.Create,
		Object:    runtime.RawExtension{Raw: raw},
		DryRun:    ptr.To(true),
	}}
}

// fieldSet is the FieldsV1 form of a value, as the API server's field manager records it: every map
// key as "f:<key>", leaves as {}.
func fieldSet(v interface{}) map[string]interface{} {
	out := map[string]interface{}{}
	if m, ok := v.(map[string]interface{}); ok {
		for k, x := range m {
			out["f:"+k] = fieldSet(x)
		}
	}
	return out
}
