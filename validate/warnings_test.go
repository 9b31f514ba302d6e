package validate

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/precedent-dev/precedent/cel"
	"github.com/precedent-dev/precedent/internal/effective"
	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/topology"
	"github.com/precedent-dev/precedent/test/gen"
)

// TestLimit: duplicates go (in short and long lists alike), long warnings are cut at 240 bytes, and
// past n the last kept line counts the rest.
func TestLimit(t *testing.T) {
	long := strings.Repeat("x", 300)
	got := Limit([]string{"a", "b", "a", long, "c"}, 3)
	want := []string{"a", "b", "PRC-W040 and 2 more warnings"}
	if !slices.Equal(got, want) {
		t.Errorf("Limit = %q, want %q", got, want)
	}
	if got := Limit([]string{long}, 0); len(got) != 1 || len(got[0]) != 240 || !strings.HasSuffix(got[0], "...") {
		t.Errorf("a long warning is not cut to 240 bytes ending in ...: %d bytes", len(got[0]))
	}
	var many []string
	for i := 0; i < 40; i++ {
		many = append(many, fmt.Sprint(i%35)) // 35 distinct, 5 repeated
	}
	if got := Limit(many, 0); len(got) != 35 {
		t.Errorf("Limit of 40 warnings with 35 distinct kept %d", len(got))
	}
}

// TestSet: values are kept once, in first-seen order, below and above the length where the set
// starts to hash.
func TestSet(t *testing.T) {
	var s set[int]
	var want []int
	for i := 0; i < 100; i++ {
		v := (i * 7) % 40 // 0..39, each seen two or three times, not one after another
		s.add(v)
		s.add(v) // an immediate repeat
		if !slices.Contains(want, v) {
			want = append(want, v)
		}
	}
	if !slices.Equal(s.list, want) {
		t.Errorf("set = %v, want %v", s.list, want)
	}
}

// TestUnchangedRewrite: re-applying a policy unchanged (a copy of its view) warns exactly what the
// long way (a view with the copy written) does, for every policy of a generated world.
func TestUnchangedRewrite(t *testing.T) {
	w := gen.Generate(gen.Size{Gateways: 20, Routes: 200, Policies: 100})
	ev, err := cel.New(0)
	if err != nil {
		t.Fatal(err)
	}
	snap := effective.NewSnapshot(w.Kind, topology.Build(w.Input), w.Policies, ev)
	for _, p := range w.Policies {
		cp := *p
		cp.Generation++ // what an unchanged apply may bump; the engine does not read it
		got, _ := project(snap, p.Ref, &cp, true, false)
		want, _ := project(snap, p.Ref, &cp, false, false)
		if !slices.Equal(got, want) {
			t.Errorf("%s: warnings %q, the long way %q", p.Ref, got, want)
		}
	}
}

// TestWarningsEscapeRuleKeys: a rule key with a control character, a bidi override (U+202E) and a
// byte that is not UTF-8 is printed escaped in the admission warnings about it, and the field of a
// kind's bare rules is named as the kind names it (spec.limits, not spec.rules).
func TestWarningsEscapeRuleKeys(t *testing.T) {
	w := gen.Generate(gen.Size{Gateways: 1, Routes: 1, Policies: 0})
	ev, err := cel.New(0)
	if err != nil {
		t.Fatal(err)
	}
	const bad = "a\x00\u202e\xff"
	gw := gen.GatewayPolicy(w.Kind, 0, 0)
	gw.Defaults = nil
	gw.Overrides.When = ""
	gw.Overrides.Rules = map[string]interface{}{bad: map[string]interface{}{}}
	route := gen.RoutePolicy(w.Kind, 0, 0)
	route.Unset = nil
	route.Bare.Rules = map[string]interface{}{bad: map[string]interface{}{}, "per-user": map[string]interface{}{}}
	snap := effective.NewSnapshot(w.Kind, topology.Build(w.Input), []*policy.Policy{gw}, ev)
	got := Project(snap, route.Ref, route)
	want := []string{`PRC-W002 rule a\x00\u202e\xff on route app-0/route-0 is overridden by RateLimitPolicy infra/gw-policy-0`}
	if !slices.Equal(got, want) {
		t.Errorf("warnings %q, want %q", got, want)
	}
	for _, line := range got {
		if strings.ContainsAny(line, "\x00\u202e") || !utf8.ValidString(line) {
			t.Errorf("warning %q carries the raw key", line)
		}
	}

	// A newer bare policy on the same target replaces an atomic one whole: the warning to the older
	// names its field as the kind does.
	older := gen.RoutePolicy(gen.KuadrantKind, 1, 0)
	older.Unset = nil
	newer := gen.RoutePolicy(gen.KuadrantKind, 2, 0)
	newer.Unset = nil
	newer.Created = older.Created.Add(time.Hour)
	ksnap := effective.NewSnapshot(gen.KuadrantKind, topology.Build(w.Input), []*policy.Policy{newer}, ev)
	got = Project(ksnap, older.Ref, older)
	want = []string{"PRC-N001 spec.limits of this policy are replaced by RateLimitPolicy app-0/route-policy-2 on route app-0/route-0"}
	if !slices.Equal(got, want) {
		t.Errorf("warnings %q, want %q", got, want)
	}
}

// TestRuleList: displacement warnings name a few rule ids, sorted and quoted, and count the rest.
func TestRuleList(t *testing.T) {
	tests := []struct {
		ids  []string
		want string
	}{
		{[]string{"a"}, "`a`"},
		{[]string{"b", "a"}, "`a` and `b`"},
		{[]string{"c", "b", "a"}, "`a`, `b` and `c`"},
		{[]string{"e", "d", "c", "b", "a"}, "`a`, `b`, `c` and 2 more"},
		{[]string{"x\u202e"}, "`x\\u202e`"},
	}
	for _, tt := range tests {
		if got := ruleList(tt.ids); got != tt.want {
			t.Errorf("ruleList(%q) = %q, want %q", tt.ids, got, tt.want)
		}
	}
}
