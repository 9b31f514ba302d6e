package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/precedent-dev/precedent/internal/diff"
)

// update is -update of front_test.go: it also rewrites the golden files of the diff tests.

const (
	diffBase    = "testdata/diff/base"
	diffHead    = "testdata/diff/head"
	diffInvalid = "testdata/diff/invalid"
)

// TestDiffMarkdownGolden: the PR comment for testdata/diff (every change type, a listener split).
func TestDiffMarkdownGolden(t *testing.T) {
	out, stderr, code := run("diff", "--base", diffBase, "--head", diffHead, "-o", "markdown")
	if code != 1 {
		t.Fatalf("exit %d, want 1 (changes)\n%s%s", code, out, stderr)
	}
	golden := "testdata/diff/markdown.golden"
	if *update {
		if err := os.WriteFile(golden, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(string(want), out); d != "" {
		t.Errorf("markdown (-golden +got; regenerate with -update):\n%s", d)
	}
}

// TestDiffExitCodes: 0 without change, 1 with changes, 2 for a head the webhook would reject (its
// errors listed as validate lists them) and for unreadable input.
func TestDiffExitCodes(t *testing.T) {
	validateOut, _, code := run("validate", "-f", diffInvalid)
	if code != 1 {
		t.Fatalf("validate of the invalid tree: exit %d, want 1\n%s", code, validateOut)
	}
	var validateErrs []string
	lines := strings.Split(strings.TrimSpace(validateOut), "\n")
	for _, l := range lines[:len(lines)-1] { // the last is the summary line
		if !strings.HasPrefix(l, "Warning: ") && !strings.HasPrefix(l, "Note: ") {
			validateErrs = append(validateErrs, l)
		}
	}
	for _, c := range []struct {
		name      string
		args      []string
		code      int
		changes   int
		errs      []string
		stderrHas string
	}{
		{name: "no change", args: []string{"--base", diffBase, "--head", diffBase}, code: 0},
		{name: "changes", args: []string{"--base", diffBase, "--head", diffHead}, code: 1, changes: 8},
		{name: "changes of one kind only", args: []string{"--kind", "AuthPolicy", "--base", diffBase, "--head", diffHead}, code: 0},
		// The head object its built-in CRD rejects is left out of the head, as the API server would keep
		// it out of the cluster: its limits show as removed.
		{name: "head rejected by the webhook", args: []string{"--base", diffBase, "--head", diffInvalid}, code: 2, changes: 5, errs: validateErrs},
		{name: "unreadable head", args: []string{"--base", diffBase, "--head", "testdata/diff/missing"}, code: 2, stderrHas: "missing"},
		{name: "base without head", args: []string{"--base", diffBase}, code: 2, stderrHas: "give both --base and --head"},
		{name: "unknown kind", args: []string{"--kind", "Nope", "--base", diffBase, "--head", diffHead}, code: 2, stderrHas: `--kind "Nope"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, stderr, code := run(append([]string{"diff", "-o", "json"}, c.args...)...)
			if code != c.code {
				t.Fatalf("exit %d, want %d\n%s%s", code, c.code, out, stderr)
			}
			if c.stderrHas != "" {
				// run returns the command's error, which main prints on stderr.
				if _, errOut, _ := runErr(append([]string{"diff"}, c.args...)...); !strings.Contains(errOut, c.stderrHas) {
					t.Errorf("error %q does not say %q", errOut, c.stderrHas)
				}
				return
			}
			var r struct {
				Changes []json.RawMessage `json:"changes"`
				Summary diff.Summary      `json:"summary"`
				Errors  []string          `json:"errors"`
			}
			if err := json.Unmarshal([]byte(out), &r); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			if len(r.Changes) != c.changes {
				t.Errorf("%d changes, want %d\n%s", len(r.Changes), c.changes, out)
			}
			if c.errs == nil {
				c.errs = []string{}
			}
			if d := cmp.Diff(c.errs, r.Errors); d != "" {
				t.Errorf("errors (-validate's +diff's):\n%s", d)
			}
		})
	}
}

// runErr runs the command and returns its error text as main prints it.
func runErr(args ...string) (stdout, errText string, err error) {
	cmd := newRootCmd()
	var out strings.Builder
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	cmd.SetArgs(args)
	err = cmd.Execute()
	if err != nil {
		errText = err.Error()
	}
	return out.String(), errText, err
}

// TestDiffJSON: the contract's shape of one change and of the summary.
func TestDiffJSON(t *testing.T) {
	out, _, code := run("diff", "--base", diffBase, "--head", diffHead, "-o", "json", "--kind", "RateLimitPolicy")
	if code != 1 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	var r struct {
		Changes  []map[string]interface{} `json:"changes"`
		Summary  map[string]int           `json:"summary"`
		Errors   []string                 `json:"errors"`
		Warnings []string                 `json:"warnings"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	want := map[string]interface{}{
		"kind": "RateLimitPolicy", "group": "policy.precedent.dev", "gateway": "infra/gw", "listener": "http", "route": "shop/search", "rule": "", "ruleId": "per-user", "change": "moved",
		"before": map[string]interface{}{"value": map[string]interface{}{"rates": []interface{}{map[string]interface{}{"limit": 100.0, "window": "1m"}}}, "from": "shop/search-limits"},
		"after":  map[string]interface{}{"value": map[string]interface{}{"rates": []interface{}{map[string]interface{}{"limit": 100.0, "window": "1m"}}}, "from": "infra/gw-limits"},
	}
	if d := cmp.Diff(want, r.Changes[6]); d != "" {
		t.Errorf("change 6 (-want +got):\n%s", d)
	}
	if d := cmp.Diff(map[string]int{"paths": 3, "routes": 2, "added": 3, "removed": 1, "changed": 3, "moved": 1}, r.Summary); d != "" {
		t.Errorf("summary (-want +got):\n%s", d)
	}
}

// TestDiffCI: diff's side of the CI contract: the table fits 120 columns (the values are behind
// -o wide), a path as argument is the head, --fail-on note fails on the head's notes (exit 2, as
// errors do; the head's findings here are notes only), and -o json carries the findings with their file and line.
func TestDiffCI(t *testing.T) {
	for _, c := range []struct {
		name   string
		args   []string
		code   int
		stderr string
		check  func(t *testing.T, out string)
	}{
		{name: "the table fits 120 columns", args: []string{"--base", diffBase, diffHead}, code: 1, check: func(t *testing.T, out string) {
			table := strings.Split(strings.Split(out, "\nWarning: ")[0], "\nNote: ")[0] // one line per finding follows the table
			for _, l := range strings.Split(table, "\n") {
				if n := len([]rune(l)); n > 120 {
					t.Errorf("a line of %d columns:\n%s", n, l)
				}
			}
			if !strings.Contains(table, "infra/gw-limits → infra/https-limits") || strings.Contains(table, "BEFORE") {
				t.Errorf("want a FROM column naming the policies, no values:\n%s", table)
			}
		}},
		{name: "-o wide shows the values", args: []string{"--base", diffBase, diffHead, "-o", "wide"}, code: 1, check: func(t *testing.T, out string) {
			if !strings.Contains(out, "BEFORE") || !strings.Contains(out, "AFTER") || !strings.Contains(out, `(from infra/https-limits)`) {
				t.Errorf("want the values before and after:\n%s", out)
			}
		}},
		{name: "--fail-on note fails on the head's notes", args: []string{"--base", diffBase, "--head", diffHead, "--fail-on", "note"}, code: 2,
			stderr: "5 findings selected by --fail-on error,note"},
		{name: "-o json carries the findings", args: []string{"--base", diffBase, diffInvalid, "-o", "json"}, code: 2, stderr: "head has 1 error the webhook would reject", check: func(t *testing.T, out string) {
			var r struct {
				Errors   []string `json:"errors"`
				Findings []struct {
					Severity, File string
					Line           int
				} `json:"findings"`
			}
			if err := json.Unmarshal([]byte(out), &r); err != nil {
				t.Fatal(err)
			}
			errs := 0
			for _, f := range r.Findings {
				if f.File == "" || f.Line < 1 {
					t.Errorf("a finding without its place: %+v", f)
				}
				if f.Severity == "error" {
					errs++
				}
			}
			if errs != len(r.Errors) || errs == 0 {
				t.Errorf("%d error findings for %d error lines", errs, len(r.Errors))
			}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := runResult(append([]string{"diff"}, c.args...)...)
			out, stderr := r.stdout, r.stderr
			if r.code != c.code {
				t.Fatalf("exit %d, want %d\n%s\n%s", r.code, c.code, out, stderr)
			}
			if c.stderr != "" && !strings.Contains(stderr, c.stderr) {
				t.Errorf("stderr %q does not say %q", stderr, c.stderr)
			}
			if c.check != nil {
				c.check(t, out)
			}
		})
	}
}
