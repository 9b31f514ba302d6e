package webhook_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"text/tabwriter"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/precedent-dev/precedent/internal/liveconfig"
	"github.com/precedent-dev/precedent/internal/manifest"
	"github.com/precedent-dev/precedent/internal/settings"
	"github.com/precedent-dev/precedent/internal/state"
	"github.com/precedent-dev/precedent/internal/state/statetest"
	"github.com/precedent-dev/precedent/profiles"
	"github.com/precedent-dev/precedent/test/gen"
	"github.com/precedent-dev/precedent/webhook"
)

// profileWorld is what one profile's replica is fed with in BenchmarkScaleProfiles.
type profileWorld struct {
	settings settings.Settings
	// installed are the kinds beyond the Gateway API's and the managed ones whose CRDs the REST
	// mapper knows: the profile's own kinds, its Backend kind, the kinds it reads.
	installed []schema.GroupVersionKind
	// objects are delivered first (Namespaces, topology, policies); reads are the kinds the profile
	// reads, watched from the first Prepare (as a replica's first Prepare starts their informers),
	// and read their objects, delivered then.
	objects []client.Object
	reads   []schema.GroupKind
	read    []client.Object
	// leaf and top are creates of new policies of the profile: on routes (or what routes lead to)
	// and on Gateways (or the whole mesh), named by levels.
	leaf, top []admission.Request
	levels    [2]string
}

// scaleProfiles are the profiles BenchmarkScaleProfiles measures, each with its world at a scale
// (1x: gen's 1,000 Gateways, 10,000 HTTPRoutes and 5,000 policies made the profile's; the mesh 5,000
// Dataplanes).
var scaleProfiles = []struct {
	name  string
	world func(b *testing.B, scale int) profileWorld
}{
	{"envoy-gateway", envoyGatewayWorld},
	{"kgateway", kgatewayWorld},
	{"nginx-gateway-fabric", nginxWorld},
	{"access", accessWorld},
	{"mesh", meshWorld},
}

// BenchmarkScaleProfiles is BenchmarkScale for every other profile's cache, at 1x and 10x: each
// profile's world fed through the State's informer handlers, its caches prepared and its first
// write answered (ready, wall and CPU), the live heap then, and the p50 and p99 of creates of its
// policies at two levels. It prints a table: a row per profile and scale, and the 10x/1x ratios.
func BenchmarkScaleProfiles(b *testing.B) {
	type row struct {
		objects int
		levels  [2]string
		f       replicaFigures
	}
	rows := map[string]*row{}
	for _, p := range scaleProfiles {
		for _, scale := range []int{1, 10} {
			b.Run(fmt.Sprintf("%s/%dx", p.name, scale), func(b *testing.B) {
				pw := p.world(b, scale)
				f := measureReplica(b, func(ctx context.Context) *webhook.Validator { return profileReplica(ctx, b, pw) }, pw.leaf, pw.top)
				base := rows[fmt.Sprintf("%s/1x", p.name)]
				if scale == 1 || base == nil {
					f.report(b, pw.levels[0], pw.levels[1], nil)
				} else {
					f.report(b, pw.levels[0], pw.levels[1], &base.f)
				}
				rows[fmt.Sprintf("%s/%dx", p.name, scale)] = &row{objects: len(pw.objects) + len(pw.read), levels: pw.levels, f: f}
			})
		}
	}
	var sb strings.Builder
	tw := tabwriter.NewWriter(&sb, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "profile\tscale\tobjects\tready\tready CPU\theap MiB\twrites\tleaf p50\tleaf p99\ttop p50\ttop p99\t")
	ms := func(d float64) string { return fmt.Sprintf("%.2f s", d) }
	for _, p := range scaleProfiles {
		for _, scale := range []int{1, 10} {
			r := rows[fmt.Sprintf("%s/%dx", p.name, scale)]
			if r == nil {
				continue
			}
			f := r.f
			fmt.Fprintf(tw, "%s\t%dx\t%d\t%s\t%s\t%.0f\t%s/%s\t%d µs\t%d µs\t%d µs\t%d µs\t\n", p.name, scale, r.objects,
				ms(f.ready.Seconds()), ms(f.readyCPU.Seconds()), float64(f.heap)/(1<<20), r.levels[0], r.levels[1],
				f.leaf[0].Microseconds(), f.leaf[1].Microseconds(), f.top[0].Microseconds(), f.top[1].Microseconds())
		}
		one, ten := rows[p.name+"/1x"], rows[p.name+"/10x"]
		if one == nil || ten == nil {
			continue
		}
		x := func(a, b float64) string { return fmt.Sprintf("%.2fx", a/b) }
		fmt.Fprintf(tw, "%s\t10x/1x\t%s\t%s\t%s\t%s\t\t%s\t%s\t%s\t%s\t\n", p.name, x(float64(ten.objects), float64(one.objects)),
			x(ten.f.ready.Seconds(), one.f.ready.Seconds()), x(ten.f.readyCPU.Seconds(), one.f.readyCPU.Seconds()), x(float64(ten.f.heap), float64(one.f.heap)),
			x(float64(ten.f.leaf[0]), float64(one.f.leaf[0])), x(float64(ten.f.leaf[1]), float64(one.f.leaf[1])),
			x(float64(ten.f.top[0]), float64(one.f.top[0])), x(float64(ten.f.top[1]), float64(one.f.top[1])))
	}
	tw.Flush()
	if len(rows) > 0 { // on stdout: a parent benchmark's log is not printed without -v
		fmt.Print(sb.String())
	}
}

// profileReplica is a replica's Validator over pw, as Register builds one: the State watches the
// managed kinds and the profiles' own kinds, and pw's objects reach its informer handlers.
func profileReplica(ctx context.Context, b *testing.B, pw profileWorld) *webhook.Validator {
	inf := statetest.New(b)
	live := liveconfig.NewLive(pw.settings, logr.Discard())
	st := state.New(logr.Discard())
	kinds := live.Current().Registry().Kinds()
	if err := st.Watch(ctx, inf, kinds); err != nil {
		b.Fatal(err)
	}
	st.Managed(kinds)
	var gvs []schema.GroupVersion
	for _, gvk := range pw.installed {
		gvs = append(gvs, gvk.GroupVersion())
	}
	mapper := meta.NewDefaultRESTMapper(gvs)
	for _, gvk := range pw.installed {
		mapper.Add(gvk, meta.RESTScopeNamespace)
	}
	if err := st.WatchProfiles(ctx, inf, mapper, profiles.Own(), profiles.Backend(live.Current())); err != nil {
		b.Fatal(err)
	}
	for _, o := range pw.objects {
		inf.Add(b, o)
	}
	if !st.Synced() {
		b.Fatal("the state is not synced after the fake informers delivered the world")
	}
	for _, gk := range pw.reads {
		if _, err := st.WatchRead(gk); err != nil {
			b.Fatal(err)
		}
	}
	for _, o := range pw.read {
		inf.Add(b, o)
	}
	for _, gk := range append(profiles.Own(), pw.reads...) {
		if installed(pw, gk) && !st.Watched(gk) {
			b.Fatalf("%s is installed but not watched", gk)
		}
	}
	return &webhook.Validator{Settings: live, State: st, Log: logr.Discard()}
}

// installed reports whether pw installs gk.
func installed(pw profileWorld, gk schema.GroupKind) bool {
	for _, gvk := range pw.installed {
		if gvk.GroupKind() == gk {
			return true
		}
	}
	return false
}

// componentSettings are the settings of the PrecedentConfig of config/<component>.
func componentSettings(b *testing.B, component string) settings.Settings {
	cfg, err := manifest.Read(filepath.Join("..", "config", component, "precedentconfig.yaml"))
	if err != nil {
		b.Fatal(err)
	}
	s, errs := settings.Decode(cfg[0].Unstructured)
	if len(errs) > 0 {
		b.Fatal(errs.ToAggregate())
	}
	return s
}

// scaled is gen's world at scale (1x: 1,000 Gateways, 10,000 HTTPRoutes, 5,000 policies).
func scaled(scale int) gen.World {
	return gen.Generate(gen.Size{Gateways: 1000 * scale, Routes: 10000 * scale, Policies: 5000 * scale})
}

// topology is the Namespaces of w and of objs, a GatewayClass example of controller (none when ""),
// w's Gateways and HTTPRoutes, then objs.
func topology(w gen.World, controller string, objs ...[]*unstructured.Unstructured) []client.Object {
	var out []client.Object
	seen := map[string]bool{}
	for _, ns := range w.Namespaces() {
		seen[ns] = true
		out = append(out, namespace(ns))
	}
	for _, os := range objs {
		for _, o := range os {
			if ns := o.GetNamespace(); !seen[ns] {
				seen[ns] = true
				out = append(out, namespace(ns))
			}
		}
	}
	if controller != "" {
		out = append(out, &gwv1.GatewayClass{ObjectMeta: metav1.ObjectMeta{Name: "example"}, Spec: gwv1.GatewayClassSpec{ControllerName: gwv1.GatewayController(controller)}})
	}
	for i := range w.Input.Gateways {
		out = append(out, &w.Input.Gateways[i])
	}
	for i := range w.Input.HTTPRoutes {
		out = append(out, &w.Input.HTTPRoutes[i])
	}
	for _, os := range objs {
		out = append(out, objects(os)...)
	}
	return out
}

// creates are up to 64 creates of copies of the policies that level selects, under new names,
// spread over the policies.
func creates(b *testing.B, pols []*unstructured.Unstructured, level func(*unstructured.Unstructured) bool) []admission.Request {
	var out []admission.Request
	for i := 0; len(out) < 64 && i < len(pols); i++ {
		p := pols[(i*7919)%len(pols)]
		if !level(p) {
			continue
		}
		u := p.DeepCopy()
		u.SetName(fmt.Sprintf("bench-%d", len(out)))
		out = append(out, create(b, u))
	}
	if len(out) == 0 {
		b.Fatal("no policy of the level in the world")
	}
	return out
}

// targetKind is the kind of a policy's first target (spec.targetRefs[0], else spec.targetRef).
func targetKind(u *unstructured.Unstructured) string {
	if refs, _, _ := unstructured.NestedSlice(u.Object, "spec", "targetRefs"); len(refs) > 0 {
		if m, ok := refs[0].(map[string]interface{}); ok {
			k, _ := m["kind"].(string)
			return k
		}
	}
	k, _, _ := unstructured.NestedString(u.Object, "spec", "targetRef", "kind")
	return k
}

// objects are us as client.Objects.
func objects(us []*unstructured.Unstructured) []client.Object {
	out := make([]client.Object, len(us))
	for i, u := range us {
		out[i] = u
	}
	return out
}

func onKind(kind string) func(*unstructured.Unstructured) bool {
	return func(u *unstructured.Unstructured) bool { return targetKind(u) == kind }
}

var referenceGrant = schema.GroupVersionKind{Group: gwv1.GroupName, Version: "v1beta1", Kind: "ReferenceGrant"}

// envoyGatewayWorld: gen's world, its Gateways of Envoy Gateway's class, each policy a
// SecurityPolicy and a BackendTrafficPolicy (gen.EnvoyGateway: 10,000 at 1x), config/envoy-gateway's
// settings; ReferenceGrants installed (none exist).
func envoyGatewayWorld(b *testing.B, scale int) profileWorld {
	w := scaled(scale)
	pols := gen.EnvoyGateway(w)
	return profileWorld{settings: componentSettings(b, "envoy-gateway"), installed: []schema.GroupVersionKind{referenceGrant},
		objects: topology(w, gen.EnvoyGatewayController, pols),
		leaf:    creates(b, pols, onKind("HTTPRoute")), top: creates(b, pols, onKind("Gateway")), levels: [2]string{"route", "gateway"}}
}

// kgatewayWorld: gen's world, a TrafficPolicy per policy (gen.KGateway: 5,000 at 1x),
// config/kgateway's settings.
func kgatewayWorld(b *testing.B, scale int) profileWorld {
	w := scaled(scale)
	pols := gen.KGateway(w)
	return profileWorld{settings: componentSettings(b, "kgateway"), objects: topology(w, "", pols),
		leaf: creates(b, pols, onKind("HTTPRoute")), top: creates(b, pols, onKind("Gateway")), levels: [2]string{"route", "gateway"}}
}

// nginxWorld: gen's world, each route on a hostname of its own and a Service of its own, its
// Gateways of NGINX Gateway Fabric's class, ClientSettingsPolicies, ObservabilityPolicies and
// UpstreamSettingsPolicies (gen.NGINXGatewayFabric: 5,000 at 1x), config/nginx-gateway-fabric's
// settings; the Services read from the first Prepare. The writes are ClientSettingsPolicies.
func nginxWorld(b *testing.B, scale int) profileWorld {
	w := scaled(scale)
	services, pols := gen.NGINXGatewayFabric(w)
	csp := func(kind string) func(*unstructured.Unstructured) bool {
		return func(u *unstructured.Unstructured) bool {
			return u.GetKind() == gen.ClientSettingsPolicy && targetKind(u) == kind
		}
	}
	svc := schema.GroupVersionKind{Version: "v1", Kind: "Service"}
	return profileWorld{settings: componentSettings(b, "nginx-gateway-fabric"), installed: []schema.GroupVersionKind{svc, referenceGrant},
		objects: topology(w, gen.NGINXController, pols), reads: []schema.GroupKind{svc.GroupKind()}, read: objects(services),
		leaf: creates(b, pols, csp("HTTPRoute")), top: creates(b, pols, csp("Gateway")), levels: [2]string{"route", "gateway"}}
}

// accessWorld: gen's world, each route sending to an XBackend of its own, an AccessPolicy per
// policy on its Gateway or on its route's XBackend (gen.Access: 5,000 at 1x), the default settings.
func accessWorld(b *testing.B, scale int) profileWorld {
	w := scaled(scale)
	backends, pols := gen.Access(w)
	return profileWorld{settings: settings.Defaults(),
		installed: []schema.GroupVersionKind{{Group: "policy.precedent.dev", Version: "v1alpha1", Kind: "AccessPolicy"}, {Group: gen.BackendGroup, Version: "v1alpha1", Kind: gen.BackendKind}},
		objects:   topology(w, "", backends, pols),
		leaf:      creates(b, pols, onKind(gen.BackendKind)), top: creates(b, pols, onKind("Gateway")), levels: [2]string{"backend", "gateway"}}
}

// meshWorld: 5,000 Dataplanes at 1x (50,000 at 10x), a MeshService per ten, a MeshTimeout per
// service and ten on the whole mesh (gen.Mesh), the default settings; Dataplanes and MeshServices
// read from the first Prepare.
func meshWorld(b *testing.B, scale int) profileWorld {
	objs := gen.Mesh(5000 * scale)
	var pols, read []*unstructured.Unstructured
	for _, o := range objs {
		if o.GetKind() == "MeshTimeout" {
			pols = append(pols, o)
		} else {
			read = append(read, o)
		}
	}
	dataplane := schema.GroupVersionKind{Group: "kuma.io", Version: "v1alpha1", Kind: "Dataplane"}
	meshService := schema.GroupVersionKind{Group: "kuma.io", Version: "v1alpha1", Kind: "MeshService"}
	return profileWorld{settings: settings.Defaults(),
		installed: []schema.GroupVersionKind{{Group: "policy.precedent.dev", Version: "v1alpha1", Kind: "MeshTimeout"}, dataplane, meshService},
		objects:   append([]client.Object{namespace("kuma-system"), namespace("kuma-demo")}, objects(pols)...),
		reads:     []schema.GroupKind{dataplane.GroupKind(), meshService.GroupKind()}, read: objects(read),
		leaf: creates(b, pols, onKind("Service")), top: creates(b, pols, onKind("Mesh")), levels: [2]string{"service", "mesh"}}
}
