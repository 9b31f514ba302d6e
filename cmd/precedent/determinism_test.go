package main

import (
	"context"
	"encoding/json"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"

	"github.com/precedent-dev/precedent/internal/manifest"
	meshprofile "github.com/precedent-dev/precedent/profiles/mesh"
)

// Go randomises map iteration on every range, so an output that depends on map order differs
// between runs: within 5 runs almost always, within 20 all but surely. `make test` runs each view of
// the representative samples 5 times; `make test-exhaustive` runs every view of every sample 20
// times (-determinism-runs 20 -determinism-all).
var (
	runs           = flag.Int("determinism-runs", 5, "TestDeterministicOutput, TestDeterministicErrors: runs of each command line")
	allSamples     = flag.Bool("determinism-all", false, "TestDeterministicOutput: every sample folder, not the representative ones")
	representative = []string{"access", "envoy-gateway", "gep713", "kgateway", "kuadrant", "mesh", "nginx-gateway-fabric", "rfc/e2", "rfc/f1"}
)

// TestDeterministicOutput: every offline view of the CLI (validate, effective, explain --policy,
// --target and --reach, diff, and the mesh and access simulators) over the sample folders (one per
// model, and the RFC's constraint and unset examples; -determinism-all for all of them) is a function
// of the input alone: every run gives the same bytes on stdout and stderr and the same exit code.
func TestDeterministicOutput(t *testing.T) {
	for _, dir := range sampleDirs(t, "../../config/samples") {
		name, _ := filepath.Rel("../../config/samples", dir)
		if !*allSamples && !slices.Contains(representative, filepath.ToSlash(name)) {
			continue
		}
		t.Run(name, func(t *testing.T) {
			for _, args := range views(t, dir) {
				same(t, args)
			}
		})
	}
}

// TestDeterministicErrors: the errors and warnings of invalid input, whose checks walk the objects'
// maps (the CRDs' schemas and rules, the policies' own readers), and the mesh warnings the samples
// do not raise, are a function of the input too.
func TestDeterministicErrors(t *testing.T) {
	for _, args := range [][]string{
		{"validate", "-f", "testdata/many-errors"},
		{"validate", "-f", "testdata/many-errors", "--crd", "../../config/crd/authpolicy.yaml", "--crd", "../../config/crd/ratelimitpolicy.yaml", "--crd", kuadrantCRDs},
		{"validate", "-f", "testdata/invalid"},
		{"validate", "-f", "testdata/kuadrant-invalid", "--crd", kuadrantCRDs, "--config", kuadrantConfig},
		{"validate", "-f", kumaRules, "--config", "testdata/kuma-mesh/config.yaml"},
		{"validate", "-f", "testdata/mesh-warning-limit"},
		{"diff", "--base", diffBase, "--head", "testdata/many-errors", "-o", "json"},
		{"diff", "--base", diffBase, "--head", diffInvalid, "-o", "markdown"},
		{"diff", "--base", diffBase, "--head", diffHead, "-o", "table"},
		{"diff", "--base", diffBase, "--head", diffHead, "-o", "wide"},
		{"diff", "--base", diffBase, "--head", "testdata/many-errors", "-o", "sarif"},
		{"validate", "-f", "testdata/many-errors", "-o", "json"},
		{"validate", "-f", "testdata/many-errors", "-o", "sarif"},
		{"validate", "-f", ciDir, "-o", "sarif", "--fail-on", "warning"},
	} {
		same(t, args)
	}
}

// same runs the command line runs times and fails if a run differs from the first.
func same(t *testing.T, args []string) {
	t.Helper()
	first := runResult(args...)
	for i := 1; i < *runs; i++ {
		if got := runResult(args...); got != first {
			t.Fatalf("precedent %s: run %d differs from run 1 (-first +run %d):\n%s", strings.Join(args, " "), i+1, i+1,
				cmp.Diff(first, got, cmp.AllowUnexported(cmdResult{})))
		}
	}
}

// sampleDirs are the folders beneath root that hold manifests themselves, each a sample with its
// config.
func sampleDirs(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if dir := filepath.Dir(path); strings.HasSuffix(path, ".yaml") && !slices.Contains(out, dir) {
			out = append(out, dir)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

// simulators are the requests of the mesh and access simulators the samples of a folder fit.
var simulators = map[string][][]string{
	"mesh": {
		{"mesh", "--kind", "MeshTimeout", "--proxy", "web-v1", "--outbound", "backend"},
		{"mesh", "--kind", "MeshTimeout", "--proxy", "web-v2", "--outbound", "payments"},
		{"mesh", "--kind", "MeshTrafficPermission", "--proxy", "backend-1", "--from", "web,version=v1"},
		{"mesh", "--kind", "MeshTrafficPermission", "--proxy", "backend-1", "--from", "infra-logger,kuma.io/zone=us-east"},
		{"mesh", "--kind", "MeshTrafficPermission", "--proxy", "web-v2", "--from", "backend"},
	},
	"access": {
		{"access", "--gateway", "prod/prod-gateway", "--backend", "prod/payment-service", "--source", "serviceaccount:prod/payment-agent", "--tool", "get_payment"},
		{"access", "--gateway", "prod/prod-gateway", "--backend", "prod/payment-service", "--source", "serviceaccount:prod/payment-agent", "--tool", "refund_payment", "--external-auth", "prod/gateway-policy-audit=allow"},
		{"access", "--gateway", "prod/prod-gateway", "--backend", "prod/payment-service", "--source", "spiffe:spiffe://eu.example.org/ns/agents/sa/planner", "--tool", "get_payment", "--combine", "allAllow"},
	},
}

// simulated are the kinds of the simulators' folders, whose diff is per proxy or per request.
var simulated = map[string][]string{
	"mesh":   {"MeshTimeout", "MeshTrafficPermission"},
	"access": {"AccessPolicy"},
}

// diffs are the diffs of dir without each policy of kind named in policies, and of dir without
// all of them against dir.
func diffs(t *testing.T, dir, kind, kindArg string, policies []string) [][]string {
	t.Helper()
	var out [][]string
	for _, p := range policies {
		out = append(out, []string{"diff", "--kind", kindArg, "--base", dir, "--head", folderWithout(t, dir, kind, p), "-o", "json"})
	}
	if len(policies) > 0 {
		out = append(out, []string{"diff", "--kind", kindArg, "--base", folderWithout(t, dir, kind, policies...), "--head", dir, "-o", "markdown"})
	}
	return out
}

// views are the command lines run over one sample folder: validate; the simulators' requests the
// folder fits; per managed kind with policies in the folder (mesh kinds aside), effective,
// explain --policy of each policy, explain --reach of each rule id in effect (per policy too where
// it comes from several) and explain --target of each Gateway reached with each rule id (a
// Gateway's explanation covers its routes), and the diffs of removing each policy and of adding
// them all (for the simulators' kinds too).
// Each view runs in one output format or two, enough to cover each printer: the time goes to
// reading the manifests on every run.
func views(t *testing.T, dir string) [][]string {
	t.Helper()
	o, err := (&sources{files: []string{dir}}).loadFiles(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	out := [][]string{{"validate", "-f", dir}, {"validate", "-f", dir, "-o", "sarif"}}
	for _, args := range simulators[filepath.Base(dir)] {
		out = append(out, append(slices.Clone(args), "-f", dir, "-o", "json")) // their only format
	}
	for _, k := range o.registry.Kinds() {
		if k.Profile == meshprofile.Name {
			continue // merged per proxy: the mesh simulator's requests above
		}
		kind := k.GVK.Kind + "." + k.GVK.Group
		var policies []string
		for _, u := range o.objects {
			if u.GroupVersionKind().GroupKind() == k.GVK.GroupKind() {
				policies = append(policies, u.GetNamespace()+"/"+u.GetName())
			}
		}
		if len(policies) == 0 {
			continue
		}
		base := []string{"-f", dir, "--kind", kind}
		for _, format := range []string{"json", "table"} {
			out = append(out, append([]string{"effective", "-o", format}, base...))
		}
		out = append(out, append([]string{"explain", "--policy", policies[0]}, base...)) // the text printer
		for _, p := range policies {
			out = append(out, append([]string{"explain", "-o", "json", "--policy", p}, base...))
		}
		rules, gateways := reached(t, base)
		for _, r := range rules {
			out = append(out, append([]string{"explain", "--reach", "--rule", r.id}, base...))
			for _, gw := range gateways {
				out = append(out, append([]string{"explain", "-o", "json", "--target", gw, "--rule", r.id}, base...))
			}
			if len(r.from) > 1 { // a merged field: --policy picks one policy's paths
				for _, p := range r.from {
					out = append(out, append([]string{"explain", "-o", "json", "--reach", "--rule", r.id, "--policy", p}, base...))
				}
			}
		}
		out = append(out, diffs(t, dir, k.GVK.Kind, kind, policies)...)
	}
	for _, kind := range simulated[filepath.Base(dir)] {
		objs, err := manifest.Read(dir)
		if err != nil {
			t.Fatal(err)
		}
		var policies []string
		for _, o := range objs {
			if o.GetKind() == kind {
				policies = append(policies, o.GetNamespace()+"/"+o.GetName())
			}
		}
		out = append(out, diffs(t, dir, kind, kind, policies)...)
	}
	return out
}

// reachedRule is a rule id in effect and the policies it comes from, sorted.
type reachedRule struct {
	id   string
	from []string
}

// reached are the rule ids in effect and the Gateways of the paths of one kind, sorted, read from
// `effective -o json`.
func reached(t *testing.T, base []string) (rules []reachedRule, gateways []string) {
	t.Helper()
	r := runResult(append([]string{"effective", "-o", "json"}, base...)...)
	if r.code != 0 {
		t.Fatalf("effective %s: exit %d\n%s", strings.Join(base, " "), r.code, r.stderr)
	}
	var got struct {
		Items []struct {
			Gateway string
			Sources map[string]string
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
		t.Fatal(err)
	}
	from := map[string][]string{}
	for _, it := range got.Items {
		if gw := "gateway/" + it.Gateway; !slices.Contains(gateways, gw) {
			gateways = append(gateways, gw)
		}
		for id, p := range it.Sources {
			if !slices.Contains(from[id], p) {
				from[id] = append(from[id], p)
			}
		}
	}
	for id, ps := range from {
		sort.Strings(ps)
		rules = append(rules, reachedRule{id: id, from: ps})
	}
	slices.SortFunc(rules, func(a, b reachedRule) int { return strings.Compare(a.id, b.id) })
	sort.Strings(gateways)
	return rules, gateways
}

// folderWithout writes the manifests of dir, all but the policies of kind named refs, to a file
// of its own folder and returns the folder.
func folderWithout(t *testing.T, dir, kind string, refs ...string) string {
	t.Helper()
	objs, err := manifest.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, o := range objs {
		if o.GetKind() == kind && slices.Contains(refs, o.GetNamespace()+"/"+o.GetName()) {
			continue
		}
		y, err := yaml.Marshal(o.Object)
		if err != nil {
			t.Fatal(err)
		}
		b.WriteString("---\n")
		b.Write(y)
	}
	out := t.TempDir()
	if err := os.WriteFile(filepath.Join(out, "objects.yaml"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}
