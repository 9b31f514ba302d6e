package reconcile_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/yaml"

	"github.com/precedent-dev/precedent/internal/reconcile"
	"github.com/precedent-dev/precedent/test/harness"
)

// TestKubectlPluginMatchesOffline runs `kubectl precedent effective` and `explain` against the
// cluster and `precedent … -f` over the same objects written to files, and expects the same output.
func TestKubectlPluginMatchesOffline(t *testing.T) {
	if _, err := exec.LookPath("kubectl"); err != nil {
		t.Fatalf("kubectl is needed for the plugin test: %v", err)
	}
	bin := pluginDir(t)
	ns := harness.Namespace(t, c)
	harness.Apply(t, c, ns, gatewayAndRoute)
	harness.Apply(t, c, ns, routePolicy, `
apiVersion: policy.precedent.dev/v1alpha1
kind: AuthPolicy
metadata: {name: gw-policy}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: gw}
  defaults:
    strategy: merge
    rules:
      authentication:
        a: {apiKey: {}}
  overrides:
    strategy: merge
    rules:
      authorization:
        b: {opa: {rego: allow = false}}
`)
	expect(t, ns, "route-policy", reconcile.TypeEnforced, metav1.ConditionFalse, "Overridden", "Policy has been overridden by "+ns+"/gw-policy")

	// The same objects, as files.
	dir := t.TempDir()
	var manifest bytes.Buffer
	for _, ref := range []struct{ apiVersion, kind, name string }{
		{"gateway.networking.k8s.io/v1", "Gateway", "gw"}, {"gateway.networking.k8s.io/v1", "HTTPRoute", "route"},
		{"policy.precedent.dev/v1alpha1", "AuthPolicy", "route-policy"}, {"policy.precedent.dev/v1alpha1", "AuthPolicy", "gw-policy"},
	} {
		u := &unstructured.Unstructured{}
		u.SetAPIVersion(ref.apiVersion)
		u.SetKind(ref.kind)
		if err := c.Get(context.Background(), types.NamespacedName{Namespace: ns, Name: ref.name}, u); err != nil {
			t.Fatal(err)
		}
		b, err := yaml.Marshal(u.Object)
		if err != nil {
			t.Fatal(err)
		}
		manifest.WriteString("---\n")
		manifest.Write(b)
	}
	if err := os.WriteFile(filepath.Join(dir, "objects.yaml"), manifest.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}

	cases := [][]string{
		{"effective", "--kind", "AuthPolicy", "-o", "json"},
		{"effective", "-o", "json"},                                          // every managed kind
		{"effective", "--kind", "AuthPolicy", "--target", "httproute/route"}, // TYPE/NAME in the namespace of -n
		{"effective", "--kind", "AuthPolicy"},
		{"explain", "--kind", "AuthPolicy", "--target", "httproute/" + ns + "/route", "--rule", "authorization.b"},
		{"explain", "--kind", "AuthPolicy", "--policy", ns + "/gw-policy"},
	}
	for _, args := range cases {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			kubectl := exec.Command("kubectl", append(append([]string{"precedent"}, args...), "--kubeconfig", h.Kubeconfig, "-n", ns)...)
			kubectl.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
			cluster, err := kubectl.Output()
			if err != nil {
				t.Fatalf("kubectl precedent %v: %v\n%s", args, err, stderr(err))
			}
			offline, err := exec.Command(filepath.Join(bin, "kubectl-precedent"), append(args, "-f", dir, "-n", ns)...).Output()
			if err != nil {
				t.Fatalf("precedent %v -f: %v\n%s", args, err, stderr(err))
			}
			if diff := cmp.Diff(string(offline), string(cluster)); diff != "" {
				t.Errorf("kubectl precedent %v differs from offline (-offline +cluster):\n%s", args, diff)
			}
			if len(cluster) == 0 || !strings.Contains(string(cluster), ns) {
				t.Errorf("kubectl precedent %v printed nothing about namespace %s:\n%s", args, ns, cluster)
			}
		})
	}
}

// TestKubectlPluginImpersonates: the plugin takes kubectl's --as, so what it shows is what that
// identity may read. A service account without RBAC gets no answer but an error naming the
// permission it lacks (exit 2: a CI job with too narrow an account must not pass on an empty
// table); granted list on what the command needs in its namespace, it gets the admin's answer
// with no line about other namespaces or kinds.
func TestKubectlPluginImpersonates(t *testing.T) {
	bin := pluginDir(t)
	ns := harness.Namespace(t, c)
	harness.Apply(t, c, ns, gatewayAndRoute)
	harness.Apply(t, c, ns, routePolicy)
	run := func(extra ...string) (string, string, int) {
		cmd := exec.Command("kubectl", append([]string{"precedent", "effective", "--kind", "AuthPolicy", "--kubeconfig", h.Kubeconfig, "-n", ns, "--request-timeout", "20s"}, extra...)...)
		cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return out.String(), errb.String(), code
	}
	admin, _, code := run()
	if code != 0 || !strings.Contains(admin, ns+"/route") {
		t.Fatalf("as the kubeconfig's user: exit %d\n%s", code, admin)
	}
	as := []string{"--as", "system:serviceaccount:" + ns + ":nobody", "--as-group", "system:serviceaccounts"}
	const settingsNote = "Note: PRC-N044 not allowed to read the cluster's PrecedentConfig cluster: using the defaults (give the settings with --config FILE)\n"
	out, errOut, code := run(as...)
	const missing = settingsNote + "error: PRC-E044 not allowed to list Gateway: the identity needs verb list on resource gateways in API group gateway.networking.k8s.io"
	if code != 2 || out != "" || !strings.HasPrefix(errOut, missing) || strings.Count(errOut, "\n") != 2 {
		t.Errorf("as a service account without RBAC: exit %d, stdout %q, stderr:\n%s\nwant exit 2 and two lines starting %q", code, out, errOut, missing)
	}
	harness.Apply(t, c, ns, `
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: precedent-reader}
rules:
- {apiGroups: [gateway.networking.k8s.io], resources: [gateways, httproutes], verbs: [list]}
- {apiGroups: [policy.precedent.dev], resources: [authpolicies], verbs: [list]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: precedent-reader}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: precedent-reader}
subjects:
- {kind: ServiceAccount, name: nobody, namespace: "{{ns}}"}`)
	harness.Eventually(t, "the granted service account gets the admin's answer", func() (bool, string) {
		out, errOut, code := run(as...)
		return code == 0 && out == admin && errOut == settingsNote, fmt.Sprintf("exit %d, stdout:\n%s\nstderr:\n%s", code, out, errOut)
	})
}

// plugin is the kubectl-precedent the package's tests run, built once.
var plugin struct {
	once sync.Once
	dir  string
	err  error
}

// pluginDir returns the folder holding kubectl-precedent, building it on the first call (TestMain
// removes the folder).
func pluginDir(t *testing.T) string {
	t.Helper()
	plugin.once.Do(func() {
		if plugin.dir, plugin.err = os.MkdirTemp("", "kubectl-precedent-"); plugin.err != nil {
			return
		}
		build := exec.Command("go", "build", "-tags", harness.BuildTags, "-o", filepath.Join(plugin.dir, "kubectl-precedent"), "github.com/precedent-dev/precedent/cmd/precedent")
		if out, err := build.CombinedOutput(); err != nil {
			plugin.err = fmt.Errorf("building kubectl-precedent: %w\n%s", err, out)
		}
	})
	if plugin.err != nil {
		t.Fatal(plugin.err)
	}
	return plugin.dir
}

func stderr(err error) string {
	if ee, ok := err.(*exec.ExitError); ok {
		return string(ee.Stderr)
	}
	return ""
}
