package engine

import (
	"fmt"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/precedent-dev/precedent/internal/manifest"
)

// load reads policies and Dataplanes from testdata files; any invalid object fails the test.
func load(t testing.TB, paths ...string) ([]Policy, []Dataplane) {
	t.Helper()
	objs, err := manifest.Read(paths...)
	if err != nil {
		t.Fatal(err)
	}
	var policies []Policy
	var dps []Dataplane
	for _, o := range objs {
		if o.GetKind() == KindDataplane {
			dp, err := ParseDataplane(o.Unstructured)
			if err != nil {
				t.Fatalf("%s: %v", o.GetName(), err)
			}
			dps = append(dps, dp)
			continue
		}
		p, errs := Parse(o.Unstructured)
		if len(errs) > 0 {
			t.Fatalf("%s %s: %v", o.GetKind(), o.GetName(), errs.ToAggregate())
		}
		policies = append(policies, p)
	}
	return policies, dps
}

// obj decodes one YAML document into an unstructured object.
func obj(t testing.TB, doc string) *unstructured.Unstructured {
	t.Helper()
	var m map[string]interface{}
	if err := yaml.Unmarshal([]byte(doc), &m); err != nil {
		t.Fatal(err)
	}
	return &unstructured.Unstructured{Object: m}
}

// policy decodes and parses one policy written in YAML; it must be valid.
func policy(t testing.TB, doc string) Policy {
	t.Helper()
	p, errs := Parse(obj(t, doc))
	if len(errs) > 0 {
		t.Fatalf("%v", errs.ToAggregate())
	}
	return p
}

// proxy builds a Dataplane with one inbound (service and tags "k=v" pairs) and outbounds to services.
func proxy(name string, inbound map[string]string, outbounds ...string) Dataplane {
	dp := Dataplane{Name: name, Inbound: []map[string]string{inbound}}
	for _, s := range outbounds {
		dp.Outbound = append(dp.Outbound, map[string]string{ServiceTag: s})
	}
	return dp
}

// generate builds a mesh of n MeshTimeouts at all levels and one proxy with the given number of
// outbounds; the benchmark and the scale test share it.
func generate(n, outbounds int) ([]Policy, Dataplane) {
	dp := Dataplane{Name: "web-1", Inbound: []map[string]string{{ServiceTag: "web", "version": "v1", "kuma.io/zone": "us-east"}}}
	for i := 0; i < outbounds; i++ {
		dp.Outbound = append(dp.Outbound, map[string]string{ServiceTag: fmt.Sprintf("svc-%02d", i)})
	}
	tops := []TargetRef{
		{Kind: Mesh},
		{Kind: MeshSubset, Tags: map[string]string{"kuma.io/zone": "us-east"}},
		{Kind: Service, Name: "web"},
		{Kind: ServiceSubset, Name: "web", Tags: map[string]string{"version": "v1"}},
		{Kind: Proxy, Name: "web-1"},
		{Kind: Service, Name: "other"},
	}
	policies := make([]Policy, 0, n)
	for i := 0; i < n; i++ {
		p := Policy{Kind: KindMeshTimeout, Namespace: "mesh-1", Name: fmt.Sprintf("timeouts-%03d", i), TargetRef: tops[i%len(tops)]}
		p.To = []Element{
			NewElement(TargetRef{Kind: Service, Name: fmt.Sprintf("svc-%02d", i%outbounds)},
				map[string]interface{}{"http": map[string]interface{}{"requestTimeout": fmt.Sprintf("%ds", i+1)}}),
			NewElement(TargetRef{Kind: Service, Name: fmt.Sprintf("svc-%02d", (i*7)%outbounds)},
				map[string]interface{}{"connectTimeout": fmt.Sprintf("%dms", i+1)}),
			NewElement(TargetRef{Kind: Mesh},
				map[string]interface{}{"connectTimeout": "10s", "http": map[string]interface{}{"idleTimeout": "1h", "streamIdleTimeout": "30m"}}),
		}
		policies = append(policies, p)
	}
	return policies, dp
}

func sprintf(format string, args ...interface{}) string { return fmt.Sprintf(format, args...) }

// splitDoc splits "KIND|NAMESPACE|SPEC" test rows.
func splitDoc(s string) []string { return strings.SplitN(s, "|", 3) }
