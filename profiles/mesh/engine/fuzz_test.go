package engine

import (
	"encoding/json"
	"os"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/precedent-dev/precedent/internal/manifest"
)

// FuzzParse feeds arbitrary JSON objects to Parse, Merge and Shadowed: malformed input must give
// field errors, never a panic. Seeds are the MADR examples and Kuma's documented ones (kuma.io), rules among them.
func FuzzParse(f *testing.F) {
	for _, file := range []string{"testdata/madr/meshtimeouts.yaml", "testdata/madr/meshtrafficpermissions.yaml",
		"testdata/kuma/meshtimeouts.yaml", "testdata/kuma/meshtrafficpermissions.yaml"} {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		objs, err := manifest.Decode(file, data)
		if err != nil {
			f.Fatal(err)
		}
		for _, o := range objs {
			b, err := json.Marshal(o.Object)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(b)
		}
	}
	f.Add([]byte(`{"kind":"MeshTimeout","spec":{"targetRef":{"kind":"Mesh","tags":{"a":1}},"to":[null,{"targetRef":{"kind":"Service"},"http":"x"}]}}`))
	f.Add([]byte(`{"kind":"MeshTrafficPermission","spec":{"targetRef":[],"from":[{"targetRef":{"kind":"MeshSubset","tags":{"":""}},"action":{}}]}}`))
	f.Add([]byte(`{"apiVersion":"kuma.io/v1alpha1","kind":"MeshTimeout","metadata":{"namespace":"app"},"spec":{"targetRef":{"kind":"Dataplane","labels":{"a":1},"proxyTypes":[]},"to":[{"targetRef":{"kind":"MeshService"},"default":{"http":{}}}],"from":[{"default":null}]}}`))
	f.Add([]byte(`{"apiVersion":"kuma.io/v1alpha1","kind":"MeshTrafficPermission","metadata":{"labels":{"kuma.io/policy-role":"x"}},"spec":{"rules":[1],"from":[{"targetRef":{"kind":"MeshServiceSubset","tags":"t"},"default":{"action":1}}]}}`))
	f.Add([]byte(`{"apiVersion":"kuma.io/v1alpha1","kind":"MeshTimeout","metadata":{"namespace":"app"},"spec":{"rules":[{"matches":[{"spiffeID":{"type":"Prefix","value":"spiffe://td/ns"}},{"sni":{"type":"Exact","value":"a.b"}},{}],"default":{"http":{"requestTimeout":"1s"}}},{"matches":"x","default":{"idleTimeout":"1h"}}]}}`))
	f.Add([]byte(`{"apiVersion":"kuma.io/v1alpha1","kind":"MeshTrafficPermission","spec":{"rules":[{"default":{"deny":[{"spiffeID":{"type":"Prefix","value":"spiffe://td"}}],"allow":[{"spiffeID":{"type":"Exact","value":"spiffe://td/a"},"sni":{"type":1}},{}],"allowWithShadowDeny":"x"}}]}}`))
	dps := []Dataplane{
		proxy("web-v1", map[string]string{ServiceTag: "web", "version": "v1"}, "backend"),
		proxy("backend-1", map[string]string{ServiceTag: "backend"}),
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var m map[string]interface{}
		if err := yaml.Unmarshal(data, &m); err != nil || m == nil {
			return
		}
		p, errs := Parse(&unstructured.Unstructured{Object: m})
		for _, e := range errs {
			if e.Field == "" {
				t.Errorf("error without a path: %v", e)
			}
		}
		policies := []Policy{p}
		for _, d := range []Direction{To, From} {
			_ = Merge(p.Kind, policies, dps[0], d, Selector{Service: "backend"})
		}
		_ = Shadowed(policies, dps)
		_ = MergeInbound(p.GroupKind(), policies, dps[1], nil)
		_ = MergeInbound(p.GroupKind(), policies, dps[1], &Source{SpiffeID: "spiffe://td/a", SNI: "a.b"})
		_ = Deprecations(&p)
		_ = NewIndex(p.GroupKind(), nil, dps).WriteWarnings(p, true)
	})
}
