package kgateway

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"

	"github.com/precedent-dev/precedent/profiles/kgateway/engine"
)

// expectation is one entry of testdata/expectations.yaml: a question of a case Precedent does not
// answer as kgateway does for a reason out of its scope.
type expectation struct {
	Case     string `json:"case"`
	Question string `json:"question"`
	Reason   string `json:"reason"`
}

// The three questions.
const (
	qEffects  = "effects"
	qAccepted = "acceptance"
	qServed   = "served"
)

// diffs are the questions of a case the two sides answer differently, with the differences.
func diffs(kg, pr answers) map[string]string {
	out := map[string]string{}
	ke, pe := map[string]map[string][]string{}, map[string]map[string][]string{}
	for k, v := range kg.Effects {
		if _, ok := pr.Effects[k]; ok && (len(v) > 0 || len(pr.Effects[k]) > 0) {
			ke[k.String()], pe[k.String()] = v, pr.Effects[k]
		}
	}
	if d := cmp.Diff(ke, pe); d != "" {
		out[qEffects] = d
	}
	pa := map[string]bool{}
	for k := range kg.Accepted {
		pa[k] = pr.Accepted[k]
	}
	if d := cmp.Diff(kg.Accepted, pa); d != "" {
		out[qAccepted] = d
	}
	if d := cmp.Diff(kg.Served, pr.Served); d != "" {
		out[qServed] = d
	}
	return out
}

func readExpectations(t *testing.T) map[string]expectation {
	raw, err := os.ReadFile(filepath.Join("testdata", "expectations.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var list []expectation
	if err := yaml.UnmarshalStrict(raw, &list); err != nil {
		t.Fatalf("reading testdata/expectations.yaml: %v", err)
	}
	out := map[string]expectation{}
	for _, e := range list {
		out[e.Case+" "+e.Question] = e
	}
	return out
}

// TestCorpus compares the engine with every kgateway golden that holds a TrafficPolicy and prints
// the table. A disagreement passes only when testdata/expectations.yaml gives an out-of-scope
// reason for it, or when knownWrong lists it as Precedent's fault not fixed yet; an entry of
// either that now agrees fails, so both lists only shrink.
func TestCorpus(t *testing.T) {
	cases, err := loadCorpus()
	if err != nil {
		t.Fatal(err)
	}
	expect := readExpectations(t)
	used := map[string]bool{}
	policies, agree := 0, 0
	outOfScope, wrong := map[string]int{}, map[string]int{}
	for _, c := range cases {
		w := engine.New(c.Objects)
		for range w.Policies() {
			policies++
		}
		ds := diffs(kgatewayAnswers(c, w), precedentAnswers(c, w))
		if len(ds) == 0 {
			agree++
		}
		scoped, wronged := false, false
		for _, q := range sortedKeys(ds) {
			key := c.Name + " " + q
			used[key] = true
			if e, ok := expect[key]; ok {
				outOfScope[e.Reason]++
				scoped = true
				continue
			}
			if cause, ok := knownWrong[key]; ok {
				wrong[cause]++
				wronged = true
				continue
			}
			t.Errorf("%s: Precedent answers %s differently (-kgateway +Precedent):\n%s", c.Name, q, ds[q])
		}
		_, _ = scoped, wronged
	}
	for k := range expect {
		if !used[k] {
			t.Errorf("testdata/expectations.yaml: %s now agrees (or is no case): drop the entry", k)
		}
	}
	for k := range knownWrong {
		if !used[k] {
			t.Errorf("knownWrong: %s now agrees (or is no case): drop the entry", k)
		}
	}
	t.Logf("kgateway corpus: %d cases (%d TrafficPolicies), %d agree on all three questions\n%s%s", len(cases), policies, agree,
		table("out of scope (question-cases by reason)", outOfScope), table("PRECEDENT WRONG, not fixed yet (question-cases by cause)", wrong))
}

func table(title string, m map[string]int) string {
	if len(m) == 0 {
		return title + ": none\n"
	}
	var b strings.Builder
	b.WriteString(title + ":\n")
	for _, k := range sortedKeys(m) {
		fmt.Fprintf(&b, "  %4d  %s\n", m[k], k)
	}
	return b.String()
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
