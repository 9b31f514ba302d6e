package install

import (
	"flag"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the generated files (make generate)")

// root is the repository root, seen from this package.
const root = "../.."

// TestGenerated: every file the package generates is committed as generated (make generate
// rewrites them).
func TestGenerated(t *testing.T) {
	gen, err := files(root)
	if err != nil {
		t.Fatal(err)
	}
	paths := make([]string, 0, len(gen))
	for p := range gen {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	for _, p := range paths {
		path := filepath.Join(root, p)
		if *update {
			if err := os.WriteFile(path, gen[p], 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Errorf("%v (run make generate)", err)
			continue
		}
		if diff := cmp.Diff(string(want), string(gen[p])); diff != "" {
			t.Errorf("%s is stale (run make generate) (-file +generated):\n%s", p, diff)
		}
	}
}

// TestComponents: the components are those of the configurable profiles with a PrecedentConfig
// under config/, each with the kinds it names.
func TestComponents(t *testing.T) {
	cs, err := Components(root)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	for _, c := range cs {
		for _, k := range c.Kinds {
			got[c.Dir] = append(got[c.Dir], k.GVK.Group+"/"+k.GVK.Kind)
		}
	}
	want := map[string][]string{
		filepath.Join("config", "kuadrant"): {"kuadrant.io/RateLimitPolicy", "kuadrant.io/AuthPolicy", "kuadrant.io/TokenRateLimitPolicy"},
		filepath.Join("config", "envoy-gateway"): {"gateway.envoyproxy.io/BackendTrafficPolicy", "gateway.envoyproxy.io/SecurityPolicy",
			"gateway.envoyproxy.io/ClientTrafficPolicy", "gateway.envoyproxy.io/EnvoyExtensionPolicy"},
		filepath.Join("config", "nginx-gateway-fabric"): {"gateway.nginx.org/ClientSettingsPolicy", "gateway.nginx.org/UpstreamSettingsPolicy",
			"gateway.nginx.org/ObservabilityPolicy",
			"gateway.nginx.org/ProxySettingsPolicy", "gateway.nginx.org/RateLimitPolicy", "gateway.nginx.org/SnippetsPolicy", "gateway.nginx.org/WAFPolicy", "gateway.nginx.org/PayloadProcessor", "gateway.nginx.org/ExternalLoadBalancer"},
		filepath.Join("config", "kgateway"): {"gateway.kgateway.dev/TrafficPolicy"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("components (-want +got):\n%s", diff)
	}
}
