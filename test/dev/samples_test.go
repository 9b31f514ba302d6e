package dev

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/precedent-dev/precedent/test/harness"

	"github.com/precedent-dev/precedent/internal/install"
	"github.com/precedent-dev/precedent/internal/manifest"
	"github.com/precedent-dev/precedent/profiles"
)

// allApplied checks in dev's output that every set of config/samples was applied whole (a ✓ line
// counting all its objects), that nothing is marked ✗ (a set skipped or not wholly applied), and
// that the kind lines of every component (each model's kinds) were added to the PrecedentConfig.
func allApplied(t *testing.T, log []string) {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(root, "config", "samples"))
	if err != nil {
		t.Fatal(err)
	}
	sets := 0
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		sets++
		objs, err := manifest.Read(filepath.Join(root, "config", "samples", e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if want := fmt.Sprintf("  ✓ samples config/samples/%s applied: %d objects", e.Name(), len(objs)); !contains(log, want) {
			t.Errorf("no line %q:\n%s", want, strings.Join(log, "\n"))
		}
	}
	t.Logf("%d sample sets in config/samples", sets)
	for _, l := range log {
		if strings.HasPrefix(l, "  ✗ ") || strings.HasPrefix(l, "    rejected:") {
			t.Errorf("not done: %s", l)
		}
	}
	profiles.Install() // the models the components' settings name
	cs, err := install.Components(root)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range cs {
		names = append(names, c.Name())
	}
	if want := "  ✓ PrecedentConfig cluster: the kind lines of the components " + strings.Join(names, ", ") + ", webhooks registered for them"; !contains(log, want) {
		t.Errorf("no line %q:\n%s", want, strings.Join(log, "\n"))
	}
}

// tours are, per profile, a command of its tour (README.md, docs/profiles/) over its whole sample
// set: offline with -f (and the component's PrecedentConfig), and in the cluster of `make run`.
var tours = []struct {
	profile string
	args    []string // the command, its output flags and what it asks
	offline []string // where the objects come from offline
	cluster []string // what the cluster needs besides --kubeconfig (-A: every namespace, as -f does)
}{
	{"defaults-overrides", []string{"effective", "--kind", "AuthPolicy.policy.precedent.dev"},
		[]string{"-f", "config/samples/rfc"}, []string{"-A"}},
	{"gep713", []string{"effective", "--kind", "TrafficPolicy.policy.precedent.dev", "-o", "wide"},
		[]string{"-f", "config/samples/gep713"}, []string{"-A"}},
	{"kuadrant", []string{"effective", "--kind", "RateLimitPolicy.kuadrant.io"},
		[]string{"-f", "config/samples/kuadrant", "--config", "config/kuadrant/precedentconfig.yaml"}, []string{"-A"}},
	{"envoy-gateway", []string{"explain", "--kind", "BackendTrafficPolicy.gateway.envoyproxy.io", "--target", "httproute/shop/cart", "--rule", "rateLimit"},
		[]string{"-f", "config/samples/envoy-gateway", "--config", "config/envoy-gateway/precedentconfig.yaml"}, nil},
	{"envoy-gateway", []string{"effective", "--kind", "SecurityPolicy.gateway.envoyproxy.io"},
		[]string{"-f", "config/samples/envoy-gateway", "--config", "config/envoy-gateway/precedentconfig.yaml"}, []string{"-A"}},
	{"kgateway", []string{"effective", "--kind", "TrafficPolicy.gateway.kgateway.dev"},
		[]string{"-f", "config/samples/kgateway", "--config", "config/kgateway/precedentconfig.yaml"}, []string{"-A"}},
	{"nginx-gateway-fabric", []string{"effective", "--kind", "ClientSettingsPolicy.gateway.nginx.org", "-o", "wide"},
		[]string{"-f", "config/samples/nginx-gateway-fabric", "--config", "config/nginx-gateway-fabric/precedentconfig.yaml"}, []string{"-A"}},
	{"access", []string{"access", "--gateway", "prod/prod-gateway", "--backend", "prod/payment-service", "--source", "serviceaccount:prod/payment-agent", "--tool", "refund_payment", "-o", "json"},
		[]string{"-f", "config/samples/access"}, nil},
	{"mesh", []string{"mesh", "--kind", "MeshTimeout", "--proxy", "web-v1", "--outbound", "backend", "-o", "json"},
		[]string{"-f", "config/samples/mesh"}, nil},
}

// sameAnswers checks that each tour's command prints in the cluster (kubeconfig) what it prints
// offline, with the same exit status. A read of the cluster is asked again for up to 30 s until it
// matches: the status reconciler writes after the samples are applied.
func sameAnswers(t *testing.T, bin, kubeconfig string) {
	t.Helper()
	for _, tc := range tours {
		offline := append(append([]string{}, tc.args...), tc.offline...)
		want, wantCode, wantErr := run(t, bin, offline)
		if want == "" {
			t.Errorf("%s: %s printed nothing offline (stderr: %s): nothing to compare", tc.profile, strings.Join(offline, " "), wantErr)
			continue
		}
		cluster := append(append(append([]string{}, tc.args...), tc.cluster...), "--kubeconfig", kubeconfig)
		var got, gotErr string
		var gotCode int
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(time.Second) {
			got, gotCode, gotErr = run(t, bin, cluster)
			if (got == want && gotCode == wantCode) || time.Now().After(deadline) {
				break
			}
		}
		if got != want || gotCode != wantCode {
			t.Errorf("%s: in the cluster\n  precedent %s\nexits %d and prints\n%s(stderr: %s)\noffline\n  precedent %s\nexits %d and prints\n%s(stderr: %s)",
				tc.profile, strings.Join(cluster, " "), gotCode, got, gotErr, strings.Join(offline, " "), wantCode, want, wantErr)
		}
	}
}

// run runs the built binary in the repository root: its standard output, exit status and standard error.
func run(t *testing.T, bin string, args []string) (string, int, string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = root
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return out.String(), 0, errb.String()
	case errors.As(err, &exit):
		return out.String(), exit.ExitCode(), errb.String()
	}
	t.Fatalf("running precedent %s: %v", strings.Join(args, " "), err)
	return "", 0, ""
}

// TestSkippedSetNotTicked: `precedent dev` with its default CRD folders (the Gateway API's and
// Precedent's only) marks each set that uses a kind it does not serve ✗ skipped, naming the kind,
// never ✓, and still applies the others.
func TestSkippedSetNotTicked(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "precedent")
	build := exec.Command("go", "build", "-tags", harness.BuildTags, "-o", bin, "./cmd/precedent")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building precedent: %v\n%s", err, out)
	}
	dev, lines, stderr := startDev(t, exec.Command(bin, "dev", "--kubeconfig-out", filepath.Join(t.TempDir(), "dev.kubeconfig")))
	log, _ := readCommands(t, lines, stderr, 5)
	log = interrupt(t, dev, lines, log, stderr)
	for set, missing := range map[string]string{
		"access":               "XBackend (agentic.prototype.x-k8s.io/v0alpha0)",
		"envoy-gateway":        "(gateway.envoyproxy.io/v1alpha1)",
		"kgateway":             "TrafficPolicy (gateway.kgateway.dev/v1alpha1)",
		"kuadrant":             "(kuadrant.io/v1)",
		"nginx-gateway-fabric": "(gateway.nginx.org/v1alpha1)",
		"gep713":               "",
		"mesh":                 "",
		"rfc":                  "",
	} {
		var got []string
		for _, l := range log {
			if strings.Contains(l, " samples config/samples/"+set+" ") {
				got = append(got, l)
			}
		}
		ok := len(got) == 1
		if missing == "" {
			ok = ok && strings.HasPrefix(got[0], "  ✓ samples config/samples/"+set+" applied: ")
		} else {
			ok = ok && strings.HasPrefix(got[0], "  ✗ samples config/samples/"+set+" skipped: ") && strings.Contains(got[0], missing) && strings.HasSuffix(got[0], " not installed")
		}
		if !ok {
			t.Errorf("set %s: lines %q, want one, ✓ applied if it needs no more CRDs, else ✗ skipped naming %q", set, got, missing)
		}
	}
}
