// Package pipeline_test runs the command lines of the places pipelines plug Precedent in — the
// pre-commit hooks (.pre-commit-hooks.yaml) and the composite GitHub Action (action.yml) — with the
// precedent binary built from this module, over a GitOps repository (a kustomize overlay, its base,
// a Helm chart, a workflow), as pre-commit and the Actions runner run them. No cluster is needed.
package pipeline_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/precedent-dev/precedent/test/harness"
)

// binDir holds the precedent binary built for the package.
var binDir string

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "precedent-pipeline-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	if _, err := harness.BuildPrecedent(dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	binDir = dir
	return m.Run()
}

// root is the repository's root, where the hooks' and the Action's files are.
var root = filepath.Join("..", "..")

// repoCopy copies the test repository (cmd/precedent/testdata/repo, hidden files included) into a
// temporary folder; broken adds a manifest with a YAML syntax error on line 4.
func repoCopy(t *testing.T, broken bool) string {
	t.Helper()
	src := filepath.Join(root, "cmd", "precedent", "testdata", "repo")
	dst := t.TempDir()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	if broken {
		doc := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n   namespace: shop\n"
		if err := os.WriteFile(filepath.Join(dst, "configmap.yaml"), []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// exitCode is the exit status of a finished command (err from Run).
func exitCode(t *testing.T, err error) int {
	t.Helper()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		return ee.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	return 0
}

// hook is an entry of .pre-commit-hooks.yaml.
type hook struct {
	ID            string   `json:"id"`
	Name          string   `json:"name"`
	Description   string   `json:"description"`
	Entry         string   `json:"entry"`
	Args          []string `json:"args"`
	Language      string   `json:"language"`
	Files         string   `json:"files"`
	PassFilenames *bool    `json:"pass_filenames"`
}

// TestPreCommitHooks: each hook's command line (entry, then args; pre-commit runs it in the
// repository's root, with the binary its language installs on PATH) passes a clean repository and
// fails one with a syntax error, naming the file and line.
func TestPreCommitHooks(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(root, ".pre-commit-hooks.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var hooks []hook
	if err := yaml.UnmarshalStrict(data, &hooks); err != nil {
		t.Fatal(err)
	}
	if len(hooks) == 0 {
		t.Fatal("no hook")
	}
	for _, h := range hooks {
		if h.PassFilenames == nil || *h.PassFilenames {
			t.Errorf("hook %s passes file names: the policies must be reviewed against the whole tree", h.ID)
		}
		if _, err := regexp.Compile(h.Files); err != nil {
			t.Errorf("hook %s: files: %v", h.ID, err)
		}
		for _, tc := range []struct {
			name   string
			broken bool
			code   int
			want   string
		}{
			{"a clean repository passes", false, 0, "0 errors, 0 warnings, 6 notes in 5 objects\n"},
			{"a syntax error fails it, at its line", true, 2, "PRC-E040 configmap.yaml:5: document 0: syntax error: mapping values are not allowed in this context\n"},
		} {
			t.Run(h.ID+": "+tc.name, func(t *testing.T) {
				line := append(strings.Fields(h.Entry), h.Args...)
				t.Setenv("PATH", binDir+string(os.PathListSeparator)+os.Getenv("PATH")) // where pre-commit installs it
				cmd := exec.Command(line[0], line[1:]...)
				cmd.Dir = repoCopy(t, tc.broken)
				var out, errb bytes.Buffer
				cmd.Stdout, cmd.Stderr = &out, &errb
				code := exitCode(t, cmd.Run())
				if code != tc.code || !strings.Contains(out.String(), tc.want) {
					t.Errorf("%s: exit %d, want %d and a line %q; stdout:\n%s\nstderr:\n%s", strings.Join(line, " "), code, tc.code, tc.want, out.String(), errb.String())
				}
			})
		}
	}
}

// action is the part of action.yml the runner reads.
type action struct {
	Inputs map[string]struct {
		Default string `json:"default"`
	} `json:"inputs"`
	Runs struct {
		Using string `json:"using"`
		Steps []step `json:"steps"`
	} `json:"runs"`
}

type step struct {
	ID    string            `json:"id"`
	Name  string            `json:"name"`
	If    string            `json:"if"`
	Shell string            `json:"shell"`
	Run   string            `json:"run"`
	Uses  string            `json:"uses"`
	With  map[string]string `json:"with"`
	Env   map[string]string `json:"env"`
}

// runner runs a composite action's steps as the Actions runner does: expressions of the inputs,
// the steps' outputs and the github context substituted, each run step in bash with
// RUNNER_TEMP, GITHUB_PATH (prepended to PATH for the later steps), GITHUB_OUTPUT and
// GITHUB_STEP_SUMMARY, and the `if:` conditions this action uses (always(), comparisons of inputs
// with ”). A `uses:` step is not run; the test checks what it would be given.
type runner struct {
	t       *testing.T
	dir     string
	temp    string
	inputs  map[string]string
	github  map[string]string
	outputs map[string]map[string]string
	paths   []string
	summary string
	uses    []step
}

var expr = regexp.MustCompile(`\$\{\{\s*(.*?)\s*\}\}`)

func (r *runner) value(e string) string {
	switch {
	case strings.HasPrefix(e, "inputs."):
		return r.inputs[strings.TrimPrefix(e, "inputs.")]
	case strings.HasPrefix(e, "steps."):
		parts := strings.SplitN(strings.TrimPrefix(e, "steps."), ".outputs.", 2)
		return r.outputs[parts[0]][parts[1]]
	case strings.HasPrefix(e, "github."):
		return r.github[strings.TrimPrefix(e, "github.")]
	}
	r.t.Fatalf("expression %q: not one the test knows", e)
	return ""
}

func (r *runner) substitute(s string) string {
	return expr.ReplaceAllStringFunc(s, func(m string) string { return r.value(expr.FindStringSubmatch(m)[1]) })
}

// condition evaluates an if: of the forms `always()`, `inputs.x != ”`, `inputs.x == ”`, joined by &&.
func (r *runner) condition(c string) bool {
	c = strings.TrimSpace(c)
	if m := expr.FindStringSubmatch(c); m != nil {
		c = m[1]
	}
	for _, term := range strings.Split(c, "&&") {
		term = strings.TrimSpace(term)
		switch {
		case term == "always()":
		case strings.HasSuffix(term, "!= ''"):
			if r.value(strings.TrimSpace(strings.TrimSuffix(term, "!= ''"))) == "" {
				return false
			}
		case strings.HasSuffix(term, "== ''"):
			if r.value(strings.TrimSpace(strings.TrimSuffix(term, "== ''"))) != "" {
				return false
			}
		default:
			r.t.Fatalf("if: %q: not a condition the test knows", c)
		}
	}
	return true
}

// runAll runs the steps and returns the exit status of the first that fails (0 when none does).
func (r *runner) runAll(steps []step) int {
	for _, s := range steps {
		if s.If != "" && !r.condition(s.If) {
			continue
		}
		if s.Uses != "" {
			with := map[string]string{}
			for k, v := range s.With {
				with[k] = r.substitute(v)
			}
			r.uses = append(r.uses, step{Uses: s.Uses, With: with})
			continue
		}
		if s.Shell != "bash" {
			r.t.Fatalf("step %q: shell %q, want bash", s.Name, s.Shell)
		}
		out := filepath.Join(r.temp, fmt.Sprintf("output-%d", len(r.outputs)))
		env := append(os.Environ(), "RUNNER_TEMP="+r.temp, "GITHUB_PATH="+filepath.Join(r.temp, "path"),
			"GITHUB_OUTPUT="+out, "GITHUB_STEP_SUMMARY="+r.summary,
			"PATH="+strings.Join(append(r.paths, os.Getenv("PATH")), string(os.PathListSeparator)))
		for k, v := range s.Env {
			env = append(env, k+"="+r.substitute(v))
		}
		cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", r.substitute(s.Run))
		cmd.Dir, cmd.Env = r.dir, env
		logs, err := cmd.CombinedOutput()
		r.t.Logf("step %q:\n%s", s.Name, logs)
		code := exitCode(r.t, err)
		if data, err := os.ReadFile(filepath.Join(r.temp, "path")); err == nil {
			for _, p := range strings.Split(strings.TrimSpace(string(data)), "\n") {
				if !slices.Contains(r.paths, p) {
					r.paths = append([]string{p}, r.paths...)
				}
			}
		}
		if s.ID != "" {
			r.outputs[s.ID] = map[string]string{}
			if data, err := os.ReadFile(out); err == nil {
				for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
					if k, v, ok := strings.Cut(l, "="); ok {
						r.outputs[s.ID][k] = v
					}
				}
			}
		}
		if code != 0 {
			return code
		}
	}
	return 0
}

// TestAction: the Action's steps, run as the runner runs them on a pull request: the binary
// installed on PATH, validate's SARIF written for the upload step, the markdown diff against the
// base in the job summary and posted with gh, and the job failing with validate's exit status.
func TestAction(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(root, "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var a action
	if err := yaml.Unmarshal(data, &a); err != nil {
		t.Fatal(err)
	}
	if a.Runs.Using != "composite" {
		t.Fatalf("runs.using %q, want composite", a.Runs.Using)
	}
	// gh posts the comment: a stand-in on PATH records its command line.
	stubs := t.TempDir()
	if err := os.WriteFile(filepath.Join(stubs, "gh"), []byte("#!/bin/sh\necho \"$@\" > \"$GH_LOG\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		broken   bool
		base     string // relative to the repository; "none": a base without manifests (the first change)
		code     int
		sarif    []string // ruleId file:line of each result
		summary  string   // a line the job summary holds
		comments bool
	}{
		{name: "the first pull request: no base, every object added, passing", base: "none", code: 0,
			summary: "| infra/gw |  |  | authentication.apiKey | added | - | <code>{\"header\":\"x-api-key\"}</code> from shop/route-auth |", comments: true},
		{name: "a change against its base: the overlay moves the policy", base: "base", code: 0,
			summary: "| infra/gw |  |  | authentication.apiKey | removed | <code>{\"header\":\"x-api-key\"}</code> from shop/route-auth | - |", comments: true},
		{name: "a syntax error: the SARIF names its line, the job fails with exit 2", broken: true, code: 2,
			sarif: []string{"PRC-E040 configmap.yaml:5", "PRC-N040 chart/Chart.yaml:0", "PRC-N040 chart/templates/route.yaml:0", "PRC-N040 chart/values.yaml:0"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := repoCopy(t, tc.broken)
			r := &runner{t: t, dir: dir, temp: t.TempDir(), outputs: map[string]map[string]string{},
				inputs:  map[string]string{},
				github:  map[string]string{"event_name": "pull_request", "event.pull_request.number": "7", "token": "test-token"},
				paths:   []string{stubs},
				summary: filepath.Join(t.TempDir(), "summary.md")}
			for k, in := range a.Inputs {
				r.inputs[k] = in.Default
			}
			r.inputs["binary"] = filepath.Join(binDir, "precedent")
			r.inputs["base"] = tc.base
			if !tc.broken {
				r.inputs["paths"] = "overlays/prod"
			}
			ghLog := filepath.Join(t.TempDir(), "gh.log")
			t.Setenv("GH_LOG", ghLog)
			if code := r.runAll(a.Runs.Steps); code != tc.code {
				t.Errorf("the job exits %d, want %d", code, tc.code)
			}
			if len(r.uses) != 1 || r.uses[0].Uses != "github/codeql-action/upload-sarif@v3" || r.uses[0].With["sarif_file"] != "precedent.sarif" {
				t.Fatalf("uses steps run: %+v, want the SARIF upload of precedent.sarif", r.uses)
			}
			got := sarifResults(t, filepath.Join(dir, "precedent.sarif"))
			if tc.sarif != nil && strings.Join(got, "\n") != strings.Join(tc.sarif, "\n") {
				t.Errorf("SARIF results %q, want %q", got, tc.sarif)
			}
			summary, _ := os.ReadFile(r.summary)
			if tc.summary != "" && !strings.Contains(string(summary), tc.summary) {
				t.Errorf("the job summary lacks %q:\n%s", tc.summary, summary)
			}
			logged, err := os.ReadFile(ghLog)
			if tc.comments && (err != nil || string(logged) != "pr comment 7 --body-file "+filepath.Join(r.temp, "precedent-diff.md")+"\n") {
				t.Errorf("gh was run as %q (%v), want pr comment 7 --body-file the diff", logged, err)
			}
			if !tc.comments && err == nil {
				t.Errorf("gh was run as %q without a base", logged)
			}
		})
	}
}

// sarifResults reads a SARIF log and returns "ruleId uri:line" of each result (line 0: the result
// names a file, not a line); a file that is not
// a SARIF 2.1.0 log fails the test.
func sarifResults(t *testing.T, file string) []string {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var log struct {
		Version string `json:"version"`
		Runs    []struct {
			Results []struct {
				RuleID    string `json:"ruleId"`
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct{ URI string }    `json:"artifactLocation"`
						Region           struct{ StartLine int } `json:"region"`
					} `json:"physicalLocation"`
				} `json:"locations"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(data, &log); err != nil || log.Version != "2.1.0" || len(log.Runs) != 1 {
		t.Fatalf("%s is not a SARIF 2.1.0 log (%v):\n%s", file, err, data)
	}
	var out []string
	for _, res := range log.Runs[0].Results {
		l := res.Locations[0].PhysicalLocation
		out = append(out, fmt.Sprintf("%s %s:%d", res.RuleID, l.ArtifactLocation.URI, l.Region.StartLine))
	}
	return out
}
