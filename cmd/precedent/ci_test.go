package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/precedent-dev/precedent/internal/warning"
)

const ciDir = "testdata/ci/in"

// bareWithBlocks is the code of the check that rejects bare rules beside spec.defaults or
// spec.overrides: the code table's when it has one, else a code of this package's range
// registered for the tests, so that the code field is exercised either way.
var bareWithBlocks = func() *warning.Code {
	if c := warning.ForCheck("do-bare-with-blocks"); c != nil {
		return c
	}
	c := warning.Register(warning.Code{ID: "PRC-E120", Severity: warning.SeverityError, Title: "bare rules beside defaults or overrides (test)",
		Meaning: "registered by cmd/precedent's tests", Fix: "move the rules into spec.defaults"})
	warning.RegisterCheck("do-bare-with-blocks", c)
	return c
}()

// TestValidateCI: the CI contract of validate: -o json and sarif, the summary line, --fail-on and
// its exit codes, paths as arguments, and inputs that are not there.
func TestValidateCI(t *testing.T) {
	empty := t.TempDir()
	blank := filepath.Join(t.TempDir(), "blank.yaml")
	list := filepath.Join(t.TempDir(), "list.yaml")
	if err := os.WriteFile(blank, []byte("# nothing yet\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(list, []byte("# two objects\n- apiVersion: v1\n  kind: Namespace\n  metadata: {name: a}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	samples := "../../config/samples/rfc/c1" // a Gateway override of the route's rule: two warnings, a note
	const samplesSummary = "0 errors, 2 warnings, 1 note in 4 objects\n"
	runCases(t, []cmdCase{
		{
			name: "a path as argument, the summary line last",
			args: []string{"validate", ciDir},
			want: cmdResult{code: 1, stdout: "PRC-E043 RateLimitPolicy shop/mixed: spec.limits: Forbidden: bare limits cannot be combined with spec.defaults or spec.overrides: move them into spec.defaults\n" +
				"AuthPolicy shop/route-policy: spec.unset[0]: Forbidden: PRC-E023 rule authorization.b is set by the overrides of AuthPolicy gateway-system/gw-policy and cannot be unset: remove it from spec.unset\n" +
				"Warning: PRC-W005 AuthPolicy gateway-system/gw-policy: the override of authorization.b makes the unset in AuthPolicy shop/route-policy ineffective on route shop/cart\n" +
				"Note: PRC-N003 AuthPolicy gateway-system/gw-policy: this write changes the effective AuthPolicy of 1 route\n" +
				"2 errors, 1 warning, 1 note in 5 objects\n",
				stderr: "error: 2 errors\n"},
		},
		{
			name: "warnings pass by default",
			args: []string{"validate", samples},
			want: cmdResult{stdout: strings.Join(samplesWarnings, "") + samplesSummary},
		},
		{
			name: "--fail-on warning fails on them",
			args: []string{"validate", samples, "--fail-on", "warning"},
			want: cmdResult{code: 1, stdout: strings.Join(samplesWarnings, "") + samplesSummary, stderr: "error: 2 findings selected by --fail-on error,warning\n"},
		},
		{
			name: "--fail-on a code",
			args: []string{"validate", "-f", ciDir, "--fail-on", "PRC-W005", "-o", "json"},
			want: cmdResult{code: 1, stdout: golden(t, "validate.json"), stderr: "2 errors, 1 warning, 1 note in 5 objects\nerror: 3 findings selected by --fail-on PRC-W005,error\n"},
		},
		{
			name: "an unknown --fail-on is exit 2",
			args: []string{"validate", ciDir, "--fail-on", "warnings"},
			want: cmdResult{code: 2, stderr: `error: --fail-on "warnings": want error, warning, note or a registered code (PRC-W012); see the code table` + "\n"},
		},
		{
			name: "an unknown -o is exit 2",
			args: []string{"validate", ciDir, "-o", "yaml"},
			want: cmdResult{code: 2, stderr: `error: -o "yaml": want text, json, sarif` + "\n"},
		},
		{
			name: "a path that does not exist is exit 2",
			args: []string{"validate", "testdata/ci/in/missing"},
			want: unreadableResult("testdata/ci/in/missing: no such file or directory"),
		},
		{
			name: "an empty folder is exit 2",
			args: []string{"validate", ciDir, empty},
			want: unreadableResult(empty + ": the folder holds no Kubernetes object in *.yaml, *.yml or *.json files"),
		},
		{
			name: "an empty file is exit 2",
			args: []string{"validate", "-f", blank},
			want: unreadableResult(blank + ": the file holds no object"),
		},
		{
			name: "a top-level YAML list is exit 2 with a plain message",
			args: []string{"validate", list},
			want: unreadableResult(list + ":2: document 0: a YAML list at the top level is not a Kubernetes object: write each object as its own document (separated by ---), or wrap them in kind: List with the objects under items"),
		},
		{
			name: "effective takes paths as arguments too",
			args: []string{"effective", ciDir, "--kind", "AuthPolicy", "--target", "httproute/shop/cart"},
			// shop/route-policy unsets the Gateway's override: the reconciler does not accept it.
			want: cmdResult{stdout: "GATEWAY            LISTENER  ROUTE      RULE  RULE ID          FROM\n" +
				"gateway-system/gw  -         shop/cart  -     authorization.b  gateway-system/gw-policy\n",
				stderr: "Note: PRC-N042 testdata/ci/in/list.yaml:33: left out, the API server would reject it: PRC-E043 RateLimitPolicy shop/mixed: spec.limits: Forbidden: bare limits cannot be combined with spec.defaults or spec.overrides: move them into spec.defaults\n" +
					"Note: PRC-N300 AuthPolicy shop/route-policy: left out, not accepted: Invalid: Policy is invalid: spec.unset[0]: Forbidden: rule authorization.b is set by the overrides of AuthPolicy gateway-system/gw-policy and cannot be unset: remove it from spec.unset\n"},
		},
		{
			name: "no path at all is exit 2",
			args: []string{"validate"},
			want: cmdResult{code: 2, stderr: "error: no input: give one or more paths (FILE|DIR, or -f FILE|DIR)\n"},
		},
	})
}

// unreadableResult is what validate gives for an input it cannot read: the problem as a finding
// (PRC-E040) on stdout, the summary line, and the exit-2 error naming it.
func unreadableResult(problem string) cmdResult {
	return cmdResult{code: 2, stdout: "PRC-E040 " + problem + "\n1 error, 0 warnings in 0 objects\n", stderr: "error: the input cannot be read: " + problem + "\n"}
}

var samplesWarnings = []string{
	"Warning: PRC-W001 AuthPolicy c1/gw-policy: spec.overrides replaces rule authorization.c of AuthPolicy c1/route-policy on route c1/route\n",
	"Warning: PRC-W002 AuthPolicy c1/route-policy: rule authorization.c on route c1/route is overridden by AuthPolicy c1/gw-policy\n",
	"Note: PRC-N003 AuthPolicy c1/gw-policy: this write changes the effective AuthPolicy of 1 route\n",
}

// golden returns testdata/ci/<name>, rewritten from the command's output with -update by the
// test that reads it (see TestValidateJSONGolden).
func golden(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata/ci", name))
	if err != nil && !*update {
		t.Fatal(err)
	}
	return string(b)
}

// TestValidateJSONGolden writes the golden file of `validate -o json` (with -update) and checks it.
func TestValidateJSONGolden(t *testing.T) {
	out, _, code := run("validate", ciDir, "-o", "json")
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s", code, out)
	}
	path := filepath.Join("testdata/ci", "validate.json")
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if diff := cmp.Diff(golden(t, "validate.json"), out); diff != "" {
		t.Errorf("validate -o json (-golden +got; regenerate with -update):\n%s", diff)
	}
	var r struct {
		Findings []struct {
			Code, Severity string
			Object         struct{ Kind, Name string }
			Field          string
			Line           int
		}
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	type row struct {
		Code, Severity, Object, Field string
		Line                          int
	}
	var got []row
	for _, f := range r.Findings {
		got = append(got, row{f.Code, f.Severity, f.Object.Kind + "/" + f.Object.Name, f.Field, f.Line})
	}
	want := []row{
		{"PRC-E043", "error", "RateLimitPolicy/mixed", "spec.limits", 33}, // the built-in CRD's rule
		{"PRC-N003", "note", "AuthPolicy/gw-policy", "", 5},
		{"PRC-W005", "warning", "AuthPolicy/gw-policy", "", 5},
		{"PRC-E023", "error", "AuthPolicy/route-policy", "spec.unset[0]", 26},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
}

// sarifSchema is the SARIF 2.1.0 JSON schema, fetched by `make sarif-schema` (a dependency of
// `make test` and `make unit`) into the cache and named by PRECEDENT_SARIF_SCHEMA; without it the
// test fails, saying how to get it: an untested SARIF output must not pass green.
func sarifSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	path := os.Getenv("PRECEDENT_SARIF_SCHEMA")
	if path == "" {
		t.Fatal("PRECEDENT_SARIF_SCHEMA is not set: run `make unit` or `make test` (they fetch the schema and set it), or `make sarif-schema` and set it to the file it names")
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("PRECEDENT_SARIF_SCHEMA: %v (run `make sarif-schema`)", err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("sarif-schema-2.1.0.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("sarif-schema-2.1.0.json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestValidateSARIFSchema: validate -o sarif and diff -o sarif are valid SARIF 2.1.0 (against the
// official JSON schema), and each result points at the line where its object starts, in
// multi-document files with comments and separators (policies.yaml) and in the items of a kind:
// List (list.yaml).
func TestValidateSARIFSchema(t *testing.T) {
	schema := sarifSchema(t)
	for _, tc := range []struct {
		name string
		args []string
		code int
		want []string // ruleId level uri:line of each result
	}{
		{
			name: "validate",
			args: []string{"validate", ciDir, "-o", "sarif"},
			code: 1,
			want: []string{
				"PRC-E043 error testdata/ci/in/list.yaml:33", // the built-in CRD's rule
				"PRC-N003 note testdata/ci/in/policies.yaml:5",
				"PRC-W005 warning testdata/ci/in/policies.yaml:5",
				"PRC-E023 error testdata/ci/in/policies.yaml:26",
			},
		},
		{
			name: "diff",
			args: []string{"diff", "--base", diffBase, diffInvalid, "-o", "sarif"},
			code: 2,
		},
		{
			name: "a syntax error is a result at its line, exit 2",
			args: []string{"validate", "testdata/syntax", "-o", "sarif"},
			code: 2,
			want: []string{"PRC-E040 error testdata/syntax/policies.yaml:12"},
		},
		{
			name: "diff: a syntax error in head is a result at its line, exit 2",
			args: []string{"diff", "--base", diffBase, "--head", "testdata/syntax", "-o", "sarif"},
			code: 2,
			want: []string{"PRC-E040 error testdata/syntax/policies.yaml:12"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, stderr, code := run(tc.args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\n%s%s", code, tc.code, out, stderr)
			}
			inst, err := jsonschema.UnmarshalJSON(bytes.NewReader([]byte(out)))
			if err != nil {
				t.Fatal(err)
			}
			if err := schema.Validate(inst); err != nil {
				t.Fatalf("not valid SARIF 2.1.0: %v\n%s", err, out)
			}
			if tc.want == nil {
				return
			}
			var log struct {
				Runs []struct {
					Results []struct {
						RuleID    string `json:"ruleId"`
						Level     string `json:"level"`
						Locations []struct {
							PhysicalLocation struct {
								ArtifactLocation struct{ URI string }    `json:"artifactLocation"`
								Region           struct{ StartLine int } `json:"region"`
							} `json:"physicalLocation"`
						} `json:"locations"`
					} `json:"results"`
				} `json:"runs"`
			}
			if err := json.Unmarshal([]byte(out), &log); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range log.Runs[0].Results {
				l := r.Locations[0].PhysicalLocation
				got = append(got, fmt.Sprintf("%s %s %s:%d", r.RuleID, r.Level, l.ArtifactLocation.URI, l.Region.StartLine))
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("results (-want +got):\n%s", diff)
			}
		})
	}
}
