package finding

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/precedent-dev/precedent/internal/warning"
)

// Test codes, in this package's range (PRC-E120..E139, PRC-W120..W139).
var (
	testWarning = warning.Register(warning.Code{ID: "PRC-W139", Severity: warning.SeverityWarning, Title: "test warning", Meaning: "a warning of the tests", Fix: "none"})
	testError   = warning.Register(warning.Code{ID: "PRC-E139", Severity: warning.SeverityError, Title: "test error"})
)

func init() { warning.RegisterCheck("test-check", testError) }

func policy() *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion("policy.precedent.dev/v1alpha1")
	u.SetKind("AuthPolicy")
	u.SetNamespace("shop")
	u.SetName("p")
	return u
}

func TestWarning(t *testing.T) {
	obj := ObjectOf(policy())
	tests := []struct {
		name, text string
		want       Finding // but its line
		line       string  // Text
	}{
		{"subject added", "rule a is overridden", Finding{Severity: warning.SeverityWarning, Object: obj, Message: "rule a is overridden"}, "AuthPolicy shop/p: rule a is overridden"},
		{"subject already first is kept once", "AuthPolicy shop/p will be Conflicted", Finding{Severity: warning.SeverityWarning, Object: obj, Message: "AuthPolicy shop/p will be Conflicted"}, "AuthPolicy shop/p will be Conflicted"},
		{"subject already first with a colon", "AuthPolicy shop/p: spec.x is dropped", Finding{Severity: warning.SeverityWarning, Object: obj, Message: "AuthPolicy shop/p: spec.x is dropped"}, "AuthPolicy shop/p: spec.x is dropped"},
		{"another object first keeps the subject", "AuthPolicy shop/q never takes effect", Finding{Severity: warning.SeverityWarning, Object: obj, Message: "AuthPolicy shop/q never takes effect"}, "AuthPolicy shop/p: AuthPolicy shop/q never takes effect"},
		{"a registered code", testWarning.Line("rule a is overridden"), Finding{Code: "PRC-W139", Severity: warning.SeverityWarning, Object: obj, Message: "rule a is overridden"}, "PRC-W139 AuthPolicy shop/p: rule a is overridden"},
		{"an unregistered code is text", "PRC-W999 rule a", Finding{Severity: warning.SeverityWarning, Object: obj, Message: "PRC-W999 rule a"}, "AuthPolicy shop/p: PRC-W999 rule a"},
		{"a kind without object name", "3 objects are not checked", Finding{Severity: warning.SeverityWarning, Message: "3 objects are not checked"}, "3 objects are not checked"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := obj
			if tt.want.Object == (Object{}) {
				o = Object{}
			}
			got := Warning(o, tt.text)
			if diff := cmp.Diff(tt.want, got, cmpopts.IgnoreUnexported(Finding{})); diff != "" {
				t.Errorf("Warning (-want +got):\n%s", diff)
			}
			if got.Text() != tt.line {
				t.Errorf("Warning(%q).Text() = %q, want %q", tt.text, got.Text(), tt.line)
			}
		})
	}
}

func TestWithCode(t *testing.T) {
	obj := ObjectOf(policy())
	tests := []struct {
		name string
		in   Finding
		want string // Text
	}{
		{"a warning gets the code first", Warning(obj, "rule a is overridden"), "PRC-E139 AuthPolicy shop/p: rule a is overridden"},
		{"a coded warning's code is replaced on its line only when it differs", Warning(obj, testWarning.Line("rule a")), "PRC-E139 PRC-W139 AuthPolicy shop/p: rule a"},
		{"a line that starts with the code keeps it once", Warning(Object{}, testError.Line("3 objects")), "PRC-E139 3 objects"},
		{"an error", Errors(policy(), field.ErrorList{field.Required(field.NewPath("spec"), "set it")}, nil)[0], "PRC-E139 AuthPolicy shop/p: spec: Required value: set it"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.in.WithCode(testError)
			if got.Text() != tt.want || got.Code != testError.ID || got.Severity != testError.Severity {
				t.Errorf("WithCode: %q (%s, %s), want %q (%s, %s)", got.Text(), got.Code, got.Severity, tt.want, testError.ID, testError.Severity)
			}
		})
	}
}

func TestErrors(t *testing.T) {
	u := policy()
	errs := field.ErrorList{
		field.Forbidden(field.NewPath("spec", "unset").Index(0), "rule a is an override"),
		field.Required(field.NewPath("spec", "targetRef"), "set it"),
	}
	obj := ObjectOf(u)
	want := []Finding{
		{Code: "PRC-E139", Severity: warning.SeverityError, Object: obj, Field: "spec.unset[0]", Message: "Forbidden: rule a is an override", line: "AuthPolicy shop/p: spec.unset[0]: Forbidden: PRC-E139 rule a is an override"},
		{Severity: warning.SeverityError, Object: obj, Field: "spec.targetRef", Message: "Required value: set it", line: "AuthPolicy shop/p: spec.targetRef: Required value: set it"},
	}
	if diff := cmp.Diff(want, Errors(u, errs, []string{"test-check", ""}), cmp.AllowUnexported(Finding{})); diff != "" {
		t.Errorf("Errors (-want +got):\n%s", diff)
	}
	got := Error(u, errors.New("cache not synced"))
	if got.Text() != "AuthPolicy shop/p: cache not synced" || got.Field != "" || got.Severity != warning.SeverityError {
		t.Errorf("Error = %+v", got)
	}
}

func TestGate(t *testing.T) {
	obj := ObjectOf(policy())
	err := Finding{Severity: warning.SeverityError, Object: obj}
	coded := Finding{Code: "PRC-W139", Severity: warning.SeverityWarning, Object: obj}
	plain := Finding{Severity: warning.SeverityWarning, Object: obj}
	note := Finding{Severity: warning.SeverityNote, Object: obj}
	all := []Finding{err, coded, plain, note}
	tests := []struct {
		spec    string
		want    int
		wantErr string
	}{
		{spec: "error", want: 1},
		{spec: "", want: 1},
		{spec: "warning", want: 3},
		{spec: "note", want: 4},
		{spec: "PRC-W139", want: 2},
		{spec: "prc-w139, error", want: 2},
		{spec: "PRC-W001", wantErr: `--fail-on "PRC-W001": want error, warning, note or a registered code (PRC-W012); see the code table`},
		{spec: "warnings", wantErr: `--fail-on "warnings": want error, warning, note or a registered code (PRC-W012); see the code table`},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			g, err := ParseGate(tt.spec)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("ParseGate(%q) error = %v, want %q", tt.spec, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := g.Failing(all); got != tt.want {
				t.Errorf("--fail-on %s fails %d findings, want %d", tt.spec, got, tt.want)
			}
		})
	}
}

func TestSummary(t *testing.T) {
	tests := []struct {
		name string
		s    Summary
		want string
	}{
		{"plural", Summary{Errors: 3, Warnings: 2, Objects: 41}, "3 errors, 2 warnings in 41 objects"},
		{"singular", Summary{Errors: 1, Warnings: 1, Objects: 1}, "1 error, 1 warning in 1 object"},
		{"notes when there are some", Summary{Warnings: 2, Notes: 1, Objects: 4}, "0 errors, 2 warnings, 1 note in 4 objects"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.s.String(); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// TestSARIFShape: codes become rules, findings results located at their object's file and line;
// findings without a code get a rule per severity. (The schema check is cmd/precedent's
// TestValidateSARIFSchema.)
func TestSARIFShape(t *testing.T) {
	obj := ObjectOf(policy())
	fs := []Finding{
		{Code: "PRC-E139", Severity: warning.SeverityError, Object: obj, Field: "spec.unset[0]", Message: "Forbidden: x", File: "./a b/p.yaml", Line: 7, line: "AuthPolicy shop/p: spec.unset[0]: Forbidden: x"},
		{Severity: warning.SeverityWarning, Object: obj, Message: "w", File: "p.yaml", Line: 3, line: "AuthPolicy shop/p: w"},
	}
	var b bytes.Buffer
	if err := WriteSARIF(&b, fs, "v1.2.3"); err != nil {
		t.Fatal(err)
	}
	var log sarifLog
	if err := json.Unmarshal(b.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	run := log.Runs[0]
	type result struct {
		Rule, Level, URI string
		Line             int
	}
	var got []result
	for _, r := range run.Results {
		if run.Tool.Driver.Rules[r.RuleIndex].ID != r.RuleID {
			t.Errorf("result %s points at rule %d (%s)", r.RuleID, r.RuleIndex, run.Tool.Driver.Rules[r.RuleIndex].ID)
		}
		l := r.Locations[0].PhysicalLocation
		got = append(got, result{r.RuleID, r.Level, l.ArtifactLocation.URI, l.Region.StartLine})
	}
	want := []result{{"PRC-E139", "error", "a%20b/p.yaml", 7}, {"uncoded-warning", "warning", "p.yaml", 3}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
	ids := map[string]bool{}
	for _, r := range run.Tool.Driver.Rules {
		ids[r.ID] = true
	}
	for _, id := range []string{"PRC-E139", "PRC-W139", "uncoded-warning"} {
		if !ids[id] {
			t.Errorf("rules lack %s", id)
		}
	}
	if ids["uncoded-error"] {
		t.Error("a rule for uncoded errors without any")
	}
}
