package envoygateway

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/precedent-dev/precedent/internal/inventory"
	"github.com/precedent-dev/precedent/internal/manifest"
	"github.com/precedent-dev/precedent/internal/profile"
	"github.com/precedent-dev/precedent/internal/settings"
	"github.com/precedent-dev/precedent/internal/topology"
	egengine "github.com/precedent-dev/precedent/profiles/envoygateway/engine"
	"github.com/precedent-dev/precedent/test/egcrds"
)

// testdata is where Envoy Gateway keeps its translator cases in its module.
const testdata = "internal/gatewayapi/testdata"

// policyKeys are the top-level keys of a case that hold the profile's kinds (Envoy Gateway's
// loader matches keys case-insensitively, and a few cases spell them in lower case).
var policyKeys = map[string]string{
	"backendtrafficpolicies": "BackendTrafficPolicy",
	"securitypolicies":       "SecurityPolicy",
	"clienttrafficpolicies":  "ClientTrafficPolicy",
	"envoyextensionpolicies": "EnvoyExtensionPolicy",
}

// corpusCase is one translator case: its input objects and the statuses Envoy Gateway wrote for
// its policies.
type corpusCase struct {
	Name     string
	Objects  []*unstructured.Unstructured
	Policies []*unstructured.Unstructured // the .out.yaml's policies, with status
	XDS      []xdsRoute                   // the HTTP routes of the .out.yaml's xdsIR
}

// loadCorpus reads every case of the pinned Envoy Gateway module whose input holds one of the
// four policy kinds, sorted by name.
func loadCorpus() ([]corpusCase, error) {
	dir, err := egcrds.Dir()
	if err != nil {
		return nil, err
	}
	ins, err := filepath.Glob(filepath.Join(dir, testdata, "*.in.yaml"))
	if err != nil {
		return nil, err
	}
	sort.Strings(ins)
	var out []corpusCase
	for _, in := range ins {
		objs, hasPolicy, err := readCase(in)
		if err != nil {
			return nil, err
		}
		if !hasPolicy {
			continue
		}
		outFile := strings.TrimSuffix(in, ".in.yaml") + ".out.yaml"
		outObjs, _, err := readCase(outFile)
		if os.IsNotExist(err) {
			continue // an input without expected output: the case tests an error
		}
		if err != nil {
			return nil, err
		}
		c := corpusCase{Name: strings.TrimSuffix(filepath.Base(in), ".in.yaml"), Objects: objs}
		if c.XDS, err = readXDS(outFile); err != nil {
			return nil, err
		}
		for _, o := range outObjs {
			if o.GroupVersionKind().Group == "gateway.envoyproxy.io" && isPolicyKind(o.GetKind()) {
				c.Policies = append(c.Policies, o)
			}
		}
		out = append(out, c)
	}
	return out, nil
}

func isPolicyKind(kind string) bool {
	for _, k := range policyKeys {
		if k == kind {
			return true
		}
	}
	return false
}

// readCase reads the objects of one case file: every list under a top-level key whose items are
// Kubernetes objects; it reports whether one of the lists holds a policy kind.
func readCase(file string) ([]*unstructured.Unstructured, bool, error) {
	raw, err := os.ReadFile(file)
	if err != nil {
		return nil, false, err
	}
	var doc map[string]interface{}
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		return nil, false, fmt.Errorf("reading %s: %w", file, err)
	}
	keys := make([]string, 0, len(doc))
	for k := range doc {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var objs []*unstructured.Unstructured
	hasPolicy := false
	for _, k := range keys {
		items, ok := doc[k].([]interface{})
		if !ok {
			if m, ok := doc[k].(map[string]interface{}); ok && m["kind"] != nil {
				items = []interface{}{m} // gatewayClass is a single object
			}
		}
		_, policies := policyKeys[strings.ToLower(k)]
		for _, it := range items {
			m, ok := it.(map[string]interface{})
			if !ok || m["kind"] == nil || m["apiVersion"] == nil {
				continue
			}
			hasPolicy = hasPolicy || policies
			objs = append(objs, &unstructured.Unstructured{Object: m})
		}
	}
	return objs, hasPolicy, nil
}

// translatorClass is the GatewayClass Envoy Gateway's translator tests translate for
// (internal/gatewayapi/translator_test.go builds its Translator with GatewayClassName
// "envoy-gateway-class"); the translator skips the Gateways of any other class (translator.go,
// "Skipping Gateway because GatewayClassName doesn't match").
const translatorClass = "envoy-gateway-class"

// otherController stands for the controller of the GatewayClasses a case names besides
// translatorClass.
const otherController = "example.com/another-gateway-controller"

// withClasses adds the GatewayClasses a case's Gateways name and the case does not hold, as the
// translator test sees them: translatorClass is Envoy Gateway's, any other another controller's.
// Most cases hold no GatewayClass: the translator is given its class, not the object.
func withClasses(objs []*unstructured.Unstructured) []*unstructured.Unstructured {
	have, named := map[string]bool{}, map[string]bool{}
	for _, o := range objs {
		switch o.GetKind() {
		case "GatewayClass":
			have[o.GetName()] = true
		case "Gateway":
			c, _, _ := unstructured.NestedString(o.Object, "spec", "gatewayClassName")
			named[c] = true
		}
	}
	names := make([]string, 0, len(named))
	for n := range named {
		names = append(names, n)
	}
	sort.Strings(names)
	out := append([]*unstructured.Unstructured(nil), objs...)
	for _, n := range names {
		if have[n] || n == "" {
			continue
		}
		controller := otherController
		if n == translatorClass {
			controller = egengine.ControllerName
		}
		out = append(out, &unstructured.Unstructured{Object: map[string]interface{}{
			"apiVersion": "gateway.networking.k8s.io/v1", "kind": "GatewayClass",
			"metadata": map[string]interface{}{"name": n}, "spec": map[string]interface{}{"controllerName": controller}}})
	}
	return out
}

// offline is a case's input as `precedent validate -f` reads it, with the profile's four kinds
// registered (config/envoy-gateway/precedentconfig.yaml, the component's kind lines).
func offline(objs []*unstructured.Unstructured) (*profile.Offline, error) {
	objs = withClasses(objs)
	cfg, err := manifest.Read(filepath.Join("..", "..", "..", "config", "envoy-gateway", "precedentconfig.yaml"))
	if err != nil {
		return nil, err
	}
	s, errs := settings.Decode(cfg[0].Unstructured)
	if len(errs) > 0 {
		return nil, errs.ToAggregate()
	}
	reg := s.Registry()
	inv := inventory.Build(reg, objs, nil)
	return &profile.Offline{Objects: objs, Settings: s, Registry: reg, Inv: inv, Graph: topology.Build(inv.Topology)}, nil
}
