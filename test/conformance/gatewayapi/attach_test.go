package gatewayapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

	"github.com/precedent-dev/precedent/internal/topology"
)

// module is Gateway API's conformance suite, a module of its own beside sigs.k8s.io/gateway-api.
const module = "sigs.k8s.io/gateway-api/conformance"

// scenario is one entry of testdata/scenarios.yaml.
type scenario struct {
	Name     string              `json:"name"`
	Follows  string              `json:"follows"`
	Manifest string              `json:"manifest"`
	Routes   map[string][]string `json:"routes"`
	// ListenerSets map namespace/name to the Gateway it attaches to, "" when refused.
	ListenerSets map[string]string `json:"listenerSets"`
}

func TestAttachmentScenarios(t *testing.T) {
	dir := conformanceDir(t)
	raw, err := os.ReadFile("testdata/scenarios.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Scenarios []scenario `json:"scenarios"`
	}
	if err := yaml.UnmarshalStrict(raw, &file); err != nil {
		t.Fatalf("reading testdata/scenarios.yaml: %v", err)
	}
	base := readManifest(t, filepath.Join(dir, "base", "manifests.yaml"))
	for _, sc := range file.Scenarios {
		t.Run(sc.Name, func(t *testing.T) {
			if _, err := os.Stat(filepath.Join(dir, sc.Follows)); err != nil {
				t.Fatalf("the conformance test it follows: %v", err)
			}
			g := topology.Build(input(t, append(slices.Clone(base), readManifest(t, filepath.Join(dir, sc.Manifest))...)))
			got := map[string][]string{}
			for r := range sc.Routes {
				kind, key, ok := strings.Cut(r, "/")
				ns, name, ok2 := strings.Cut(key, "/")
				if !ok || !ok2 {
					t.Fatalf("route %q: want Kind/namespace/name", r)
				}
				target := topology.Target{Kind: kind, Namespace: ns, Name: name}
				if _, ok := g.Route(target); !ok {
					t.Fatalf("route %s is not in the scenario's manifests", r)
				}
				got[r] = attachments(g, target)
			}
			if d := cmp.Diff(sc.Routes, got, cmpopts.EquateEmpty()); d != "" {
				t.Errorf("attachments (-conformance +topology), following %s:\n%s", sc.Follows, d)
			}
			gotLS := map[string]string{}
			for k := range sc.ListenerSets {
				ns, name, _ := strings.Cut(k, "/")
				key := topology.Key{Namespace: ns, Name: name}
				if _, ok := g.ListenerSet(key); !ok {
					t.Fatalf("ListenerSet %s is not in the scenario's manifests", k)
				}
				gotLS[k] = ""
				if _, gw, ok := g.AttachedListenerSet(key); ok {
					gotLS[k] = gw.String()
				}
			}
			if d := cmp.Diff(sc.ListenerSets, gotLS, cmpopts.EquateEmpty()); d != "" {
				t.Errorf("ListenerSets (-conformance +topology), following %s:\n%s", sc.Follows, d)
			}
		})
	}
}

// attachments lists where route t attaches: its paths' listeners, each once, sorted; empty (not
// nil) when refused everywhere.
func attachments(g *topology.Graph, t topology.Target) []string {
	out := []string{}
	for _, i := range g.PathsFor(t) {
		p := g.Paths[i]
		a := p.Gateway.String() + "#" + p.Listener
		if p.ListenerSet.Name != "" {
			a = "ListenerSet " + p.ListenerSet.String() + "#" + p.Listener
		}
		if !slices.Contains(out, a) {
			out = append(out, a)
		}
	}
	slices.Sort(out)
	return out
}

// conformanceDir downloads (or finds in the module cache) the conformance module at the version of
// gateway-api that go.mod pins, and returns its directory.
func conformanceDir(t *testing.T) string {
	t.Helper()
	v := pinned(t)
	cmd := exec.Command("go", "mod", "download", "-json", module+"@"+v)
	cmd.Dir = t.TempDir() // outside any module: the download needs no go.sum of ours
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("go mod download %s@%s: %v: %s", module, v, err, strings.TrimSpace(errb.String()))
	}
	var m struct{ Dir string }
	if err := json.Unmarshal(out.Bytes(), &m); err != nil || m.Dir == "" {
		t.Fatalf("go mod download %s@%s: no directory in %q", module, v, out.String())
	}
	return m.Dir
}

// pinned is the version of sigs.k8s.io/gateway-api in the repository's go.mod.
func pinned(t *testing.T) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "..", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(raw), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "sigs.k8s.io/gateway-api" {
			return f[1]
		}
	}
	t.Fatal("go.mod pins no sigs.k8s.io/gateway-api")
	return ""
}

// readManifest reads the objects of a multi-document manifest, with the suite's GatewayClass
// placeholder filled in.
func readManifest(t *testing.T, path string) []*unstructured.Unstructured {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	raw = bytes.ReplaceAll(raw, []byte("{GATEWAY_CLASS_NAME}"), []byte("conformance"))
	var out []*unstructured.Unstructured
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(raw), 4096)
	for {
		u := &unstructured.Unstructured{}
		if err := dec.Decode(&u.Object); err != nil {
			if err.Error() == "EOF" {
				return out
			}
			t.Fatalf("%s: %v", path, err)
		}
		if len(u.Object) > 0 {
			out = append(out, u)
		}
	}
}

// input is the topology's input from objs: the Gateway API kinds it reads and the namespaces'
// labels; other kinds (Services, Deployments, Secrets, ReferenceGrants) are left out.
func input(t *testing.T, objs []*unstructured.Unstructured) topology.Input {
	t.Helper()
	in := topology.Input{NamespaceLabels: map[string]map[string]string{}}
	for _, u := range objs {
		var err error
		switch u.GetKind() {
		case "Namespace":
			in.NamespaceLabels[u.GetName()] = u.GetLabels()
		case "GatewayClass":
			err = add(u, &in.GatewayClasses)
		case "Gateway":
			err = add(u, &in.Gateways)
		case "ListenerSet":
			err = add(u, &in.ListenerSets)
		case "HTTPRoute":
			err = add(u, &in.HTTPRoutes)
		case "GRPCRoute":
			err = add(u, &in.GRPCRoutes)
		}
		if err != nil {
			t.Fatalf("%s %s/%s: %v", u.GetKind(), u.GetNamespace(), u.GetName(), err)
		}
	}
	return in
}

func add[T any](u *unstructured.Unstructured, list *[]T) error {
	var v T
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &v); err != nil {
		return fmt.Errorf("converting: %w", err)
	}
	*list = append(*list, v)
	return nil
}
