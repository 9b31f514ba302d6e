package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// overlayNotes are validate's notes on testdata/repo/overlays/prod, whose patch moves
// shop/route-auth from route cart (the base's target) to route search.
const overlayNotes = "Note: PRC-N003 AuthPolicy infra/gw-auth: this write changes the effective AuthPolicy of 1 route\n" +
	"Note: PRC-N001 AuthPolicy infra/gw-auth: spec.defaults of this policy are replaced by AuthPolicy shop/route-auth on route shop/search\n" +
	"Note: PRC-N005 AuthPolicy shop/route-auth: replaces infra/gw-auth's `authentication.jwt` on route shop/search (defaults-overrides: a more specific policy's rules replace defaults)\n"

// chartNotes are the files of testdata/repo/chart, skipped: none is a Kubernetes object.
const chartNotes = "Note: PRC-N040 testdata/repo/chart/Chart.yaml: skipped: no apiVersion and kind: not a Kubernetes object\n" +
	"Note: PRC-N040 testdata/repo/chart/templates/route.yaml: skipped: a template ({{ … }}), not a manifest: render it first (helm template) and give the output\n" +
	"Note: PRC-N040 testdata/repo/chart/values.yaml: skipped: no apiVersion and kind: not a Kubernetes object\n"

func mustRead(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestReadRepositories: -f reads what GitOps repositories hold: kustomize overlays (built, their
// patches applied), standard input, folders with Helm charts and CI workflows (skipped with a note
// each, hidden folders silently), exclusions, duplicates, and objects the API server would reject
// for their name or namespace.
func TestReadRepositories(t *testing.T) {
	tests := []struct {
		name  string
		stdin string
		args  []string
		want  cmdResult
	}{
		{
			name: "an overlay is built: its patch moves the policy to route search",
			args: []string{"validate", "testdata/repo/overlays/prod"},
			want: cmdResult{stdout: overlayNotes + "0 errors, 0 warnings, 3 notes in 5 objects\n"},
		},
		{
			name: "effective of the overlay: the patched target",
			args: []string{"effective", "-f", "testdata/repo/overlays/prod", "--kind", "AuthPolicy"},
			want: cmdResult{stdout: "GATEWAY   LISTENER  ROUTE        RULE  RULE ID                FROM\n" +
				"infra/gw  -         shop/cart    -     authentication.jwt     infra/gw-auth\n" +
				"infra/gw  -         shop/search  -     authentication.apiKey  shop/route-auth\n"},
		},
		{
			name: "the base alone: the policy on route cart",
			args: []string{"validate", "testdata/repo/base", "--quiet"},
			want: cmdResult{stdout: "0 errors, 0 warnings in 5 objects\n"},
		},
		{
			name: "--no-kustomize reads the overlay's folder as files: only a kustomization, skipped",
			args: []string{"validate", "--no-kustomize", "testdata/repo/overlays/prod"},
			want: cmdResult{code: 2, stdout: "PRC-E040 testdata/repo/overlays/prod: the folder holds no Kubernetes object in *.yaml, *.yml or *.json files\n" +
				"Note: PRC-N040 testdata/repo/overlays/prod/kustomization.yaml: skipped: a Kustomization of kustomize, read as plain files (--no-kustomize)\n" +
				"1 error, 0 warnings, 1 note in 0 objects\n",
				stderr: "error: the input cannot be read: testdata/repo/overlays/prod: the folder holds no Kubernetes object in *.yaml, *.yml or *.json files\n"},
		},
		{
			name: "a repository: the chart skipped with a note per file, .github and the ignored base unread",
			args: []string{"validate", "testdata/repo"},
			want: cmdResult{stdout: overlayNotes + chartNotes + "0 errors, 0 warnings, 6 notes in 5 objects\n"},
		},
		{
			name: "--exclude leaves the chart out",
			args: []string{"validate", "testdata/repo", "--exclude", "chart/"},
			want: cmdResult{stdout: overlayNotes + "0 errors, 0 warnings, 3 notes in 5 objects\n"},
		},
		{
			name: "--show-notes=false hides the notes, not the exit status",
			args: []string{"validate", "testdata/repo", "--show-notes=false", "--fail-on", "PRC-N040"},
			want: cmdResult{code: 1, stdout: "0 errors, 0 warnings in 5 objects\n", stderr: "error: 3 findings selected by --fail-on PRC-N040,error\n"},
		},
		{
			name: "the same object twice is an error naming both places",
			args: []string{"validate", "testdata/dup"},
			want: cmdResult{code: 1, stdout: `PRC-E041 AuthPolicy shop/cart-auth: metadata.name: Duplicate value: "cart-auth": AuthPolicy shop/cart-auth is defined at testdata/dup/policies.yaml:1 and again at testdata/dup/policies.yaml:10; the first is reviewed, this one left out` + "\n" +
				"1 error, 0 warnings in 4 objects\n", stderr: "error: 1 error\n"},
		},
		{
			name: "no name, no namespace: errors as the API server gives them",
			args: []string{"validate", "testdata/unnamed"},
			want: cmdResult{code: 1, stdout: "PRC-E042 Gateway gw: metadata.namespace: Required value: set it, or give -n as kubectl apply -n does\n" +
				"PRC-E042 HTTPRoute cart: metadata.namespace: Required value: set it, or give -n as kubectl apply -n does\n" +
				"PRC-E042 AuthPolicy shop/(no name): metadata.name: Required value: name or generateName is required\n" +
				"3 errors, 0 warnings in 3 objects\n", stderr: "error: 3 errors\n"},
		},
		{
			name: "-n gives the namespace to the objects without one",
			args: []string{"validate", "testdata/unnamed", "-n", "shop"},
			want: cmdResult{code: 1, stdout: "PRC-E042 AuthPolicy shop/(no name): metadata.name: Required value: name or generateName is required\n" +
				"1 error, 0 warnings in 3 objects\n", stderr: "error: 1 error\n"},
		},
		{
			name: "effective leaves the rejected policy out with a note",
			args: []string{"effective", "testdata/unnamed", "-n", "shop", "--kind", "AuthPolicy"},
			want: cmdResult{stderr: "Note: PRC-N042 testdata/unnamed/objects.yaml:17: left out, the API server would reject it: PRC-E042 AuthPolicy shop/(no name): metadata.name: Required value: name or generateName is required\n" +
				"No resources found\n"},
		},
		{
			name:  "standard input, as kubectl kustomize | precedent validate -f - gives it",
			stdin: mustRead(t, "testdata/repo/base/gateway.yaml") + "---\n" + mustRead(t, "testdata/repo/base/routes.yaml") + "---\n" + mustRead(t, "testdata/repo/base/policies.yaml"),
			args:  []string{"validate", "-f", "-", "-q"},
			want:  cmdResult{stdout: "0 errors, 0 warnings in 5 objects\n"},
		},
		{
			name: "standard input twice is exit 2",
			args: []string{"validate", "-f", "-", "-f", "-"},
			want: cmdResult{code: 2, stderr: "error: -f -: standard input can be read only once per command\n"},
		},
		{
			name:  "a syntax error on standard input names its line",
			stdin: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n   namespace: b\n",
			args:  []string{"validate", "-f", "-"},
			want: cmdResult{code: 2, stdout: "PRC-E040 STDIN:5: document 0: syntax error: mapping values are not allowed in this context\n1 error, 0 warnings in 0 objects\n",
				stderr: "error: the input cannot be read: STDIN:5: document 0: syntax error: mapping values are not allowed in this context\n"},
		},
		{
			name: "the first change that adds manifests: a base that does not exist, every object added",
			args: []string{"diff", "--base", "testdata/repo/none", "--head", "testdata/repo/overlays/prod", "-q"},
			want: cmdResult{code: 1, stdout: "2 changes on 2 paths of 2 routes: 2 added, 0 removed, 0 changed, 0 moved\n\n" +
				"KIND        GATEWAY   LISTENER  ROUTE        RULE  RULE ID                CHANGE  FROM\n" +
				"AuthPolicy  infra/gw  -         shop/cart    -     authentication.jwt     added   infra/gw-auth\n" +
				"AuthPolicy  infra/gw  -         shop/search  -     authentication.apiKey  added   shop/route-auth\n" +
				"0 errors, 0 warnings in 5 objects\n", stderr: "error: \n"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := runResultIn(tt.stdin, tt.args...)
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(cmdResult{})); diff != "" {
				t.Errorf("precedent %s (-want +got):\n%s", strings.Join(tt.args, " "), diff)
			}
		})
	}
}

// TestUnreadableJSON: an input with a syntax error still gives a complete -o json document (for
// validate and diff), naming the file and line, with exit 2.
func TestUnreadableJSON(t *testing.T) {
	for _, args := range [][]string{
		{"validate", "testdata/syntax", "-o", "json"},
		{"diff", "--base", diffBase, "--head", "testdata/syntax", "-o", "json"},
	} {
		r := runResult(args...)
		if r.code != 2 {
			t.Fatalf("%v: exit %d, want 2\n%s%s", args, r.code, r.stdout, r.stderr)
		}
		var doc struct {
			Findings []struct {
				Code, Severity, File string
				Line                 int
			} `json:"findings"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
			t.Fatalf("%v: not JSON: %v\n%s", args, err, r.stdout)
		}
		want := []struct {
			Code, Severity, File string
			Line                 int
		}{{"PRC-E040", "error", "testdata/syntax/policies.yaml", 12}}
		if diff := cmp.Diff(want, doc.Findings); diff != "" {
			t.Errorf("%v: findings (-want +got):\n%s", args, diff)
		}
	}
}
