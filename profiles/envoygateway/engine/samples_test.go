package engine

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/yaml"

	"github.com/precedent-dev/precedent/internal/crdcheck"
	"github.com/precedent-dev/precedent/internal/topology"
	"github.com/precedent-dev/precedent/test/egcrds"
)

const samples = "../../../config/samples/envoy-gateway"

func readSamples(t *testing.T, files ...string) []*unstructured.Unstructured {
	t.Helper()
	var out []*unstructured.Unstructured
	for _, f := range files {
		raw, err := os.ReadFile(filepath.Join(samples, f))
		if err != nil {
			t.Fatal(err)
		}
		for _, doc := range bytes.Split(raw, []byte("\n---")) {
			u := &unstructured.Unstructured{}
			if err := yaml.Unmarshal(doc, &u.Object); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			if len(u.Object) > 0 {
				out = append(out, u)
			}
		}
	}
	return out
}

// sampleWorld builds the samples' topology and reads their policies.
func sampleWorld(t *testing.T, files ...string) (Input, []*Policy) {
	t.Helper()
	var ti topology.Input
	var ps []*Policy
	for _, u := range readSamples(t, append([]string{"topology.yaml"}, files...)...) {
		switch u.GetKind() {
		case "Gateway":
			var gw gwv1.Gateway
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &gw); err != nil {
				t.Fatal(err)
			}
			ti.Gateways = append(ti.Gateways, gw)
		case "HTTPRoute":
			var r gwv1.HTTPRoute
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &r); err != nil {
				t.Fatal(err)
			}
			ti.HTTPRoutes = append(ti.HTTPRoutes, r)
		default:
			p, errs := Read(u)
			if len(errs) > 0 {
				t.Fatal(errs)
			}
			ps = append(ps, p)
		}
	}
	return Input{Graph: topology.Build(ti)}, ps
}

// Every Envoy Gateway object of the samples is valid against the real v1.9.1 CRDs, read from the
// module cache (schema, defaults and x-kubernetes-validations, as the API server applies them).
func TestSamplesAreValidAgainstEnvoyGatewayCRDs(t *testing.T) {
	crds, err := egcrds.Load()
	if err != nil {
		t.Fatal(err)
	}
	c, err := crdcheck.New(crds)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, u := range readSamples(t, "replacement.yaml", "merges.yaml", "ratelimits.yaml", "conflict.yaml") {
		n++
		if errs := c.Check(context.Background(), u.DeepCopy()); len(errs) > 0 {
			t.Errorf("%s %s/%s: %v", u.GetKind(), u.GetNamespace(), u.GetName(), errs.ToAggregate())
		}
	}
	if n != 9 {
		t.Errorf("checked %d sample policies, want 9", n)
	}
}

// The real CRDs refuse mergeType on a Gateway target and Replace, like Stateless does.
func TestCRDsAgreeWithStatelessOnMergeType(t *testing.T) {
	crds, err := egcrds.Load()
	if err != nil {
		t.Fatal(err)
	}
	c, err := crdcheck.New(crds)
	if err != nil {
		t.Fatal(err)
	}
	for _, c2 := range []struct {
		name string
		spec obj
	}{
		{"gateway target with mergeType", obj{"targetRefs": refs(ref("Gateway", "eg")), "mergeType": "StrategicMerge", "cors": obj{}}},
		{"route target with Replace", obj{"targetRefs": refs(ref("HTTPRoute", "cart")), "mergeType": "Replace", "cors": obj{}}},
	} {
		t.Run(c2.name, func(t *testing.T) {
			p := pol(t, SecurityPolicy, "shop", "x", 0, c2.spec)
			u := &unstructured.Unstructured{Object: obj{"apiVersion": Group + "/" + Version, "kind": SecurityPolicy,
				"metadata": obj{"namespace": "shop", "name": "x"}, "spec": c2.spec}}
			crdErrs, ours := c.Check(context.Background(), u), Stateless(p)
			if len(crdErrs) == 0 || len(ours) == 0 {
				t.Errorf("CRD errors %v, Stateless errors %v: want both to refuse", crdErrs, ours)
			}
		})
	}
}

func TestSamplesEffectiveAndWarnings(t *testing.T) {
	t.Run("8781 replacement warns", func(t *testing.T) {
		in, ps := sampleWorld(t, "replacement.yaml")
		s := snapshot(in, ps[0])
		want := []string{"PRC-W020 drops `jwt` from envoy-gateway-system/gw-auth on route shop/cart; set `mergeType: StrategicMerge` to keep it"}
		if d := cmp.Diff(want, s.Project(Write{New: ps[1]}).Warnings()); d != "" {
			t.Errorf("warnings (-want +got):\n%s", d)
		}
	})
	t.Run("strategic merge vs json merge", func(t *testing.T) {
		in, ps := sampleWorld(t, "merges.yaml")
		s := snapshot(in, ps...)
		got := map[string]map[string]string{}
		for _, it := range s.Items(BackendTrafficPolicy) {
			got[it.Route] = it.Sources
		}
		gw, shelf, search := "envoy-gateway-system/gw-traffic", "shop/shelf-traffic", "shop/search-traffic"
		want := map[string]map[string]string{
			"shop/cart": {"retry": gw, "timeout": gw, "compression": gw},
			"shop/shelf": {"retry": gw, "timeout.http.requestTimeout": gw, "timeout.http.connectionIdleTimeout": shelf,
				"compression[type=Gzip]": gw, "compression[type=Brotli]": shelf},
			"shop/search": {"retry": gw, "timeout.http.requestTimeout": gw, "timeout.http.connectionIdleTimeout": search, "compression": search},
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("sources (-want +got):\n%s", d)
		}
	})
	t.Run("rate limits of both levels apply", func(t *testing.T) {
		in, ps := sampleWorld(t, "ratelimits.yaml")
		r := at(t, snapshot(in, ps...), BackendTrafficPolicy, "shop/cart", "pay", "http")
		var ids []string
		for id := range r.Sources {
			ids = append(ids, id+"="+r.Sources[id])
		}
		sort.Strings(ids)
		want := []string{"rateLimit.global.rules[0]=envoy-gateway-system/gw-limits", "rateLimit.global.rules[1]=shop/pay-limits", "rateLimit.type=shop/pay-limits"}
		if d := cmp.Diff(want, ids); d != "" {
			t.Errorf("sources (-want +got):\n%s", d)
		}
	})
	t.Run("conflict names the holder", func(t *testing.T) {
		in, ps := sampleWorld(t, "conflict.yaml")
		want := []string{"PRC-W019 will be Conflicted on HTTPRoute shop/shelf: shop/shelf-cors is older and holds it"}
		if d := cmp.Diff(want, snapshot(in, ps[0]).Project(Write{New: ps[1]}).Warnings()); d != "" {
			t.Errorf("warnings (-want +got):\n%s", d)
		}
	})
}
