package webhook_test

import (
	"context"
	"encoding/json"
	"fmt"
	goruntime "runtime"
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
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/precedent-dev/precedent/internal/liveconfig"
	"github.com/precedent-dev/precedent/internal/settings"
	"github.com/precedent-dev/precedent/internal/state"
	"github.com/precedent-dev/precedent/internal/state/statetest"
	"github.com/precedent-dev/precedent/webhook"
)

// streamRLP is the kind the deploy suite's write stream writes.
var streamRLP = schema.GroupVersionKind{Group: "policy.precedent.dev", Version: "v1alpha1", Kind: "RateLimitPolicy"}

// BenchmarkValidateStreamUnderBigPolicy is the deploy suite's (h) in process: one Gateway (with
// routes=N HTTPRoutes) carrying a 5,000-rule policy (merge overrides), and the write stream of
// test/deploy's Load on it: Gateway-level policies with one merge default, written as dry-runs only
// (stream=dry-run), or created, patched, dry-run (an admitted one and a probe the webhook denies)
// and deleted in turn (stream=mixed), each stored write delivered to the State through its informer
// handlers after its admission, as the API server's watch would, 5 ms before the next write. Timed:
// each admission (p50-ns, p99-ns, mean-ns of Handle) and, apart, applying each event (apply-ns, per
// write of the stream).
func BenchmarkValidateStreamUnderBigPolicy(b *testing.B) {
	for _, routes := range []int{0, 20} {
		for _, mixed := range []bool{false, true} {
			name := fmt.Sprintf("routes=%d/stream=dry-run", routes)
			if mixed {
				name = fmt.Sprintf("routes=%d/stream=mixed", routes)
			}
			b.Run(name, func(b *testing.B) { benchStream(b, routes, mixed) })
		}
	}
}

func benchStream(b *testing.B, routes int, mixed bool) {
	inf := statetest.New(b)
	live := liveconfig.NewLive(settings.Defaults(), logr.Discard())
	st := state.New(logr.Discard())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := st.Watch(ctx, inf, live.Current().Registry().Kinds()); err != nil {
		b.Fatal(err)
	}
	ns := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Name: "load", Labels: map[string]string{"kubernetes.io/metadata.name": "load"}}}
	ns.SetGroupVersionKind(schema.GroupVersionKind{Version: "v1", Kind: "Namespace"})
	inf.Add(b, ns)
	inf.Add(b, &gwv1.Gateway{
		ObjectMeta: metav1.ObjectMeta{Namespace: "load", Name: "gw", Generation: 1},
		Spec:       gwv1.GatewaySpec{GatewayClassName: "example", Listeners: []gwv1.Listener{{Name: "http", Port: 80, Protocol: gwv1.HTTPProtocolType}}},
	})
	for i := 0; i < routes; i++ {
		inf.Add(b, &gwv1.HTTPRoute{
			ObjectMeta: metav1.ObjectMeta{Namespace: "load", Name: fmt.Sprintf("route-%d", i), Generation: 1},
			Spec: gwv1.HTTPRouteSpec{
				CommonRouteSpec: gwv1.CommonRouteSpec{ParentRefs: []gwv1.ParentReference{{Name: "gw"}}},
				Rules:           []gwv1.HTTPRouteRule{{Name: ptr.To(gwv1.SectionName("main"))}},
			},
		})
	}
	limits := make(map[string]interface{}, 5000)
	for i := 0; i < 5000; i++ {
		limits[fmt.Sprintf("big-%04d", i)] = map[string]interface{}{"rates": []interface{}{map[string]interface{}{"limit": int64(100 + i), "window": "1m"}}}
	}
	big := streamObject("big-gateway-policy", 0, map[string]interface{}{
		"targetRef": map[string]interface{}{"group": "gateway.networking.k8s.io", "kind": "Gateway", "name": "gw"},
		"overrides": map[string]interface{}{"strategy": "merge", "limits": limits},
	})
	inf.Add(b, big)
	if !st.Synced() {
		b.Fatal("the state is not synced after the fake informers delivered the objects")
	}
	v := &webhook.Validator{Settings: live, State: st, Log: logr.Discard()}
	s := &stream{b: b, inf: inf, v: v, mixed: mixed, stored: map[string]*unstructured.Unstructured{}}
	for i := 0; i < 64; i++ { // warm: the snapshot built, the big policy's folds memoized
		s.write(i)
	}
	s.took, s.applied = s.took[:0], 0
	goruntime.GC()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s.write(64 + i)
	}
	b.StopTimer()
	p50, mean, p99 := durations(s.took)
	b.ReportMetric(float64(p50.Nanoseconds()), "p50-ns")
	b.ReportMetric(float64(p99.Nanoseconds()), "p99-ns")
	b.ReportMetric(float64(mean.Nanoseconds()), "mean-ns")
	b.ReportMetric(float64(s.applied.Nanoseconds())/float64(b.N), "apply-ns")
}

// stream is test/deploy's Load without the API server: its writes go to the validating handler,
// and the stored ones to the State's informer handlers.
type stream struct {
	b       *testing.B
	inf     *statetest.Informers
	v       *webhook.Validator
	mixed   bool
	seq     int
	live    []string // created, not deleted yet, oldest first
	stored  map[string]*unstructured.Unstructured
	took    []time.Duration
	applied time.Duration
	rv      int
}

// write is write number i of the stream: its admission, then the event of what it stored.
func (s *stream) write(i int) {
	kind := i % 4
	if !s.mixed {
		kind = -1
	}
	var req admission.Request
	var store func()
	switch kind {
	case -1:
		req = s.request(admissionv1.Create, s.policy(fmt.Sprintf("dry-%d", i), i), nil, true)
	case 0:
		s.seq++
		name := fmt.Sprintf("s-%d", s.seq)
		obj := s.policy(name, i)
		req = s.request(admissionv1.Create, obj, nil, false)
		store = func() { s.stored[name] = obj; s.live = append(s.live, name); s.inf.Add(s.b, obj) }
	case 1:
		if len(s.live) == 0 {
			return
		}
		name := s.live[len(s.live)-1]
		old := s.stored[name]
		cur := old.DeepCopy()
		_ = unstructured.SetNestedField(cur.Object, map[string]interface{}{"x": map[string]interface{}{"rates": []interface{}{map[string]interface{}{"limit": int64(10 + i%90), "window": "1m"}}}}, "spec", "defaults", "limits")
		cur.SetGeneration(old.GetGeneration() + 1)
		s.version(cur)
		req = s.request(admissionv1.Update, cur, old, false)
		store = func() { s.stored[name] = cur; s.inf.Update(s.b, old, cur) }
	case 2:
		p := s.policy(fmt.Sprintf("dry-%d", i), i)
		if i%8 != 2 {
			p.Object["spec"].(map[string]interface{})["unset"] = []interface{}{"y", "y"}
		}
		req = s.request(admissionv1.Create, p, nil, true)
	case 3:
		if len(s.live) < 4 {
			return
		}
		name := s.live[0]
		old := s.stored[name]
		req = s.request(admissionv1.Delete, nil, old, false)
		store = func() { s.live = s.live[1:]; delete(s.stored, name); s.inf.Delete(s.b, old) }
	}
	t0 := time.Now()
	resp := s.v.Handle(context.Background(), req)
	s.took = append(s.took, time.Since(t0))
	if denied := kind == 2 && i%8 != 2; resp.Allowed == denied {
		s.b.Fatalf("write %d (%s): allowed %t: %v", i, req.Operation, resp.Allowed, resp.Result)
	}
	if store != nil {
		t0 = time.Now()
		store()
		s.applied += time.Since(t0)
	}
	// The next write comes a little later (20 ms at test/deploy's 50 writes/s): what the State does
	// off the request path after an event has that long, here 5 ms, in either stream.
	time.Sleep(5 * time.Millisecond)
}

// version gives obj the next resourceVersion, as the API server does on each stored write.
func (s *stream) version(obj *unstructured.Unstructured) {
	s.rv++
	obj.SetResourceVersion(fmt.Sprint(s.rv))
}

// policy is Load's policy: one merge default on the Gateway.
func (s *stream) policy(name string, i int) *unstructured.Unstructured {
	u := streamObject(name, i, map[string]interface{}{
		"targetRef": map[string]interface{}{"group": "gateway.networking.k8s.io", "kind": "Gateway", "name": "gw"},
		"defaults": map[string]interface{}{"limits": map[string]interface{}{
			"x": map[string]interface{}{"rates": []interface{}{map[string]interface{}{"limit": int64(10 + i%90), "window": "1m"}}},
		}},
	})
	s.version(u)
	return u
}

// streamObject is a stored RateLimitPolicy in namespace load, created at second i after an epoch.
func streamObject(name string, i int, spec map[string]interface{}) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]interface{}{"spec": spec}}
	u.SetGroupVersionKind(streamRLP)
	u.SetNamespace("load")
	u.SetName(name)
	u.SetGeneration(1)
	u.SetUID(types.UID("uid-" + name))
	u.SetCreationTimestamp(metav1.NewTime(time.Date(2026, 1, 1, 0, 0, i, 0, time.UTC)))
	return u
}

// request is the admission request of a write of obj (old: the stored version, for an update or a
// delete).
func (s *stream) request(op admissionv1.Operation, obj, old *unstructured.Unstructured, dryRun bool) admission.Request {
	raw := func(u *unstructured.Unstructured) runtime.RawExtension {
		if u == nil {
			return runtime.RawExtension{}
		}
		j, err := json.Marshal(u.Object)
		if err != nil {
			s.b.Fatal(err)
		}
		return runtime.RawExtension{Raw: j}
	}
	name := ""
	if obj != nil {
		name = obj.GetName()
	} else {
		name = old.GetName()
	}
	return admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
		UID:       types.UID("stream"),
		Kind:      metav1.GroupVersionKind{Group: streamRLP.Group, Version: streamRLP.Version, Kind: streamRLP.Kind},
		Resource:  metav1.GroupVersionResource{Group: streamRLP.Group, Version: streamRLP.Version, Resource: webhook.Plural(streamRLP.Kind)},
		Name:      name,
		Namespace: "load",
		Operation: op,
		Object:    raw(obj),
		OldObject: raw(old),
		DryRun:    ptr.To(dryRun),
	}}
}
