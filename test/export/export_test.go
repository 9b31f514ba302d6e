package export_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/precedent-dev/precedent/test/harness"
)

// exampleConfig manages ExamplePolicy with the defaults-overrides profile, AuthPolicy's sections.
const exampleConfig = `
apiVersion: policy.precedent.dev/v1alpha1
kind: PrecedentConfig
metadata: {name: cluster}
spec:
  kinds:
  - gvk: {group: export.precedent.dev, version: v1, kind: ExamplePolicy}
    profile: defaults-overrides
    rulesField: rules
    sections: [authentication, metadata, authorization, response, callbacks]
    conditionField: when`

// installExample installs ExamplePolicy, a configured kind without any schema of its own (no
// default strategy, no rules): what the exported policies check and default is all there is.
func installExample(t *testing.T) {
	t.Helper()
	harness.InstallSchemaless(t, c, "export.precedent.dev", "ExamplePolicy")
}

// export runs `precedent export <what> --config FILE` with config written to FILE (a file path
// relative to the repository root when it names one) and returns its standard output.
func export(t *testing.T, what, config string, args ...string) string {
	t.Helper()
	file := filepath.Join("..", "..", config)
	if strings.Contains(config, "\n") {
		file = filepath.Join(t.TempDir(), "config.yaml")
		if err := os.WriteFile(file, []byte(config), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(bin, append([]string{"export", what, "--config", file}, args...)...)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+filepath.Join(t.TempDir(), "none"))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("precedent export %s: %v\n%s", what, err, stderr.String())
	}
	return string(out)
}

// applyStream creates every object of a YAML stream (cluster-scoped admission policies), failing
// the test when the API server refuses one, and deletes them when the test ends. It returns the
// names of the objects by kind.
func applyStream(t *testing.T, stream string) map[string][]string {
	t.Helper()
	names := map[string][]string{}
	for _, doc := range strings.Split(stream, "\n---\n") {
		u := &unstructured.Unstructured{}
		if err := yaml.Unmarshal([]byte(doc), &u.Object); err != nil {
			t.Fatalf("reading the export: %v\n%s", err, doc)
		}
		if len(u.Object) == 0 { // comments only
			continue
		}
		if err := c.Create(context.Background(), u); err != nil {
			t.Fatalf("the API server refuses the exported %s %s: %v", u.GetKind(), u.GetName(), err)
		}
		t.Cleanup(func() { _ = c.Delete(context.Background(), u) })
		names[u.GetKind()] = append(names[u.GetKind()], u.GetName())
	}
	return names
}

// deniedBy polls a server-side dry-run create of doc until the named ValidatingAdmissionPolicy
// denies it with the message want.
func deniedBy(t *testing.T, ns, policyName, want, doc string) {
	t.Helper()
	harness.EventuallyWithin(t, 30*time.Second, policyName+" denies "+want, func() (bool, string) {
		err := c.Create(context.Background(), harness.ObjectIn(ns, doc), client.DryRunAll)
		msg := harness.ErrString(err)
		return err != nil && strings.Contains(msg, "ValidatingAdmissionPolicy '"+policyName+"'") && strings.Contains(msg, want), "create: " + msg
	})
}

// admitted creates doc with a server-side dry-run and fails the test on any error.
func admitted(t *testing.T, ns, doc string) {
	t.Helper()
	if err := c.Create(context.Background(), harness.ObjectIn(ns, doc), client.DryRunAll); err != nil {
		t.Errorf("valid object rejected: %v", harness.ErrString(err))
	}
}

func TestVAPPrecedentKinds(t *testing.T) {
	installExample(t)
	names := applyStream(t, export(t, "vap", exampleConfig))
	for _, want := range []string{"precedent-authpolicy.policy.precedent.dev", "precedent-trafficpolicy.policy.precedent.dev",
		"precedent-examplepolicy.export.precedent.dev", "precedent-examplepolicy.export.precedent.dev-unset-switch"} {
		if !contains(names["ValidatingAdmissionPolicy"], want) {
			t.Errorf("export vap has no ValidatingAdmissionPolicy %s: %v", want, names)
		}
	}
	ns := harness.Namespace(t, c)
	// (the CRD's own rules catch bare rules with defaults first; this one only Precedent sees)
	deniedBy(t, ns, "precedent-authpolicy.policy.precedent.dev", "spec.unset[0]: Forbidden: rule authorization.a is declared by this policy", `
apiVersion: policy.precedent.dev/v1alpha1
kind: AuthPolicy
metadata: {name: unset-own, namespace: "{{ns}}"}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: cart}
  defaults: {rules: {authorization: {a: {}}}}
  unset: [authorization.a]`)
	admitted(t, ns, `
apiVersion: policy.precedent.dev/v1alpha1
kind: AuthPolicy
metadata: {name: valid, namespace: "{{ns}}"}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: cart}
  defaults: {strategy: merge, rules: {authorization: {a: {}}}}
  unset: [authentication.x]`)
	deniedBy(t, ns, "precedent-examplepolicy.export.precedent.dev", `spec.targetRefs[1].kind: Invalid value: "Gateway": all targetRefs must have the same kind (HTTPRoute)`, `
apiVersion: export.precedent.dev/v1
kind: ExamplePolicy
metadata: {name: mixed-kinds, namespace: "{{ns}}"}
spec:
  targetRefs:
  - {group: gateway.networking.k8s.io, kind: HTTPRoute, name: cart}
  - {group: gateway.networking.k8s.io, kind: Gateway, name: gw}
  rules: {authorization: {a: {}}}`)
	deniedBy(t, ns, "precedent-examplepolicy.export.precedent.dev", "spec.targetRefs[0].namespace: Forbidden: a local target reference has no namespace", `
apiVersion: export.precedent.dev/v1
kind: ExamplePolicy
metadata: {name: namespaced-target, namespace: "{{ns}}"}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: cart, namespace: other}]
  rules: {authorization: {a: {}}}`)
	admitted(t, ns, `
apiVersion: export.precedent.dev/v1
kind: ExamplePolicy
metadata: {name: two-routes, namespace: "{{ns}}"}
spec:
  targetRefs:
  - {group: gateway.networking.k8s.io, kind: HTTPRoute, name: cart}
  - {group: gateway.networking.k8s.io, kind: HTTPRoute, name: shop}
  overrides: {rules: {authorization: {a: {}}}}
  unset: [authentication.x]`)

	t.Run("unset switched off by the PrecedentConfig param", func(t *testing.T) {
		cfg := harness.Object(`
apiVersion: policy.precedent.dev/v1alpha1
kind: PrecedentConfig
metadata: {name: cluster}
spec: {unsetEnabled: false}`)
		harness.Create(t, c, cfg)
		t.Cleanup(func() { _ = c.Delete(context.Background(), cfg) })
		deniedBy(t, ns, "precedent-examplepolicy.export.precedent.dev-unset-switch", "spec.unset: Forbidden: unset is switched off", `
apiVersion: export.precedent.dev/v1
kind: ExamplePolicy
metadata: {name: unset, namespace: "{{ns}}"}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: cart}
  unset: [authentication.x]`)
	})
}

func TestVAPKuadrantKinds(t *testing.T) {
	names := applyStream(t, export(t, "vap", "config/kuadrant/precedentconfig.yaml"))
	for _, want := range []string{"precedent-ratelimitpolicy.kuadrant.io", "precedent-authpolicy.kuadrant.io", "precedent-tokenratelimitpolicy.kuadrant.io"} {
		if !contains(names["ValidatingAdmissionPolicy"], want) {
			t.Errorf("export vap has no ValidatingAdmissionPolicy %s: %v", want, names)
		}
	}
	for _, name := range names["ValidatingAdmissionPolicy"] {
		if strings.Contains(name, "kuadrant.io-unset-switch") {
			t.Errorf("export vap has an unset switch for a Kuadrant kind, which has no unset: %s", name)
		}
	}
	ns := harness.Namespace(t, c)
	// Kuadrant's CRD counts any spec.rules.response as a rule; Kuadrant's Empty() (and Precedent)
	// needs a response that says something: only the exported policy rejects this one.
	deniedBy(t, ns, "precedent-authpolicy.kuadrant.io", "spec.rules: Required value: at least one rule must be defined in spec.rules", `
apiVersion: kuadrant.io/v1
kind: AuthPolicy
metadata: {name: empty-response, namespace: "{{ns}}"}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: cart}
  rules: {response: {success: {headers: {}}}}`)
	admitted(t, ns, `
apiVersion: kuadrant.io/v1
kind: AuthPolicy
metadata: {name: valid, namespace: "{{ns}}"}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: cart}
  rules: {authorization: {allow-all: {opa: {rego: "allow = true"}}}}`)
	admitted(t, ns, `
apiVersion: kuadrant.io/v1
kind: RateLimitPolicy
metadata: {name: valid, namespace: "{{ns}}"}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: gw}
  defaults: {strategy: merge, limits: {global: {rates: [{limit: 10, window: 1m}]}}}`)
}

func TestVAPKumaKinds(t *testing.T) {
	out := export(t, "vap", "cmd/precedent/testdata/kuma-mesh/config.yaml")
	if strings.Contains(out, "has(object.spec.)") {
		t.Errorf("export vap writes invalid CEL for the mesh kinds:\n%s", out)
	}
	names := applyStream(t, out)
	for _, name := range names["ValidatingAdmissionPolicy"] {
		if strings.HasSuffix(name, ".kuma.io") {
			t.Errorf("export vap has a policy for a mesh kind, none of whose checks CEL expresses: %s", name)
		}
	}
	if !strings.Contains(out, "# MeshTimeout.kuma.io (profile mesh): ") {
		t.Errorf("export vap does not say why MeshTimeout.kuma.io has no policy:\n%s", out)
	}
	ns := harness.Namespace(t, c)
	// The shipped kinds' policies are in force, and they leave Kuma's kinds alone.
	deniedBy(t, ns, "precedent-ratelimitpolicy.policy.precedent.dev", `spec.unset[1]: Duplicate value: "a"`, strings.ReplaceAll(harness.Probe, "namespace: default", `namespace: "{{ns}}"`))
	admitted(t, ns, `
apiVersion: kuma.io/v1alpha1
kind: MeshTimeout
metadata: {name: valid, namespace: "{{ns}}", labels: {kuma.io/mesh: default}}
spec:
  targetRef: {kind: Mesh}
  to:
  - targetRef: {kind: Mesh}
    default: {connectionTimeout: 5s}`)
}

func TestMAP(t *testing.T) {
	installExample(t)
	names := applyStream(t, export(t, "map", exampleConfig))
	for _, want := range []string{"precedent-defaults-examplepolicy.export.precedent.dev", "precedent-defaults-accesspolicy.policy.precedent.dev"} {
		if !contains(names["MutatingAdmissionPolicy"], want) || !contains(names["MutatingAdmissionPolicyBinding"], want) {
			t.Errorf("export map has no MutatingAdmissionPolicy and binding %s: %v", want, names)
		}
	}
	ns := harness.Namespace(t, c)
	example := `
apiVersion: export.precedent.dev/v1
kind: ExamplePolicy
metadata: {name: no-strategy, namespace: "{{ns}}"}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: cart}
  defaults: {rules: {authorization: {a: {}}}}
  overrides: {strategy: merge, rules: {authorization: {b: {}}}}`
	harness.EventuallyWithin(t, 30*time.Second, "a write without strategy comes back with strategy atomic", func() (bool, string) {
		u := harness.ObjectIn(ns, example)
		if err := c.Create(context.Background(), u); err != nil {
			return false, "create: " + harness.ErrString(err)
		}
		defer func() { _ = c.Delete(context.Background(), u) }()
		d, _, _ := unstructured.NestedString(u.Object, "spec", "defaults", "strategy")
		o, _, _ := unstructured.NestedString(u.Object, "spec", "overrides", "strategy")
		return d == "atomic" && o == "merge", "defaults.strategy=" + d + " overrides.strategy=" + o
	})
	access := `
apiVersion: policy.precedent.dev/v1alpha1
kind: AccessPolicy
metadata: {name: sa-default, namespace: "{{ns}}"}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw}]
  rules:
  - {name: mine, source: {type: ServiceAccount, serviceAccount: {name: agent}}}
  - {name: theirs, source: {type: ServiceAccount, serviceAccount: {name: agent, namespace: other}}}`
	harness.EventuallyWithin(t, 30*time.Second, "a ServiceAccount source without namespace comes back in the policy's namespace", func() (bool, string) {
		u := harness.ObjectIn(ns, access)
		if err := c.Create(context.Background(), u); err != nil {
			return false, "create: " + harness.ErrString(err)
		}
		defer func() { _ = c.Delete(context.Background(), u) }()
		rules, _, _ := unstructured.NestedSlice(u.Object, "spec", "rules")
		var got []string
		for _, r := range rules {
			n, _, _ := unstructured.NestedString(r.(map[string]interface{}), "source", "serviceAccount", "namespace")
			got = append(got, n)
		}
		return strings.Join(got, ",") == ns+",other", "namespaces: " + strings.Join(got, ",")
	})
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
