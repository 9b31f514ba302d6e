package effective_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/precedent-dev/precedent/cel"
	"github.com/precedent-dev/precedent/internal/effective"
	"github.com/precedent-dev/precedent/internal/policy"
)

var limitsKind = policy.Builtin()[1] // RateLimitPolicy: flat rule ids

func pol(name string, day int, mod func(p *policy.Policy)) *policy.Policy {
	p := &policy.Policy{Kind: limitsKind, Ref: policy.Ref{Namespace: "ns", Name: name}, Created: time.Date(2024, 1, day, 0, 0, 0, 0, time.UTC)}
	mod(p)
	return p
}

func block(strategy string, rules ...string) *policy.Block {
	b := &policy.Block{Strategy: strategy, Rules: map[string]interface{}{}}
	for _, r := range rules {
		b.Rules[r] = r + "-body"
	}
	return b
}

func ref(name string) *policy.Ref { return &policy.Ref{Namespace: "ns", Name: name} }

func TestFold(t *testing.T) {
	ev, err := cel.New(0)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		levels  [][]*policy.Policy // most specific first
		sources map[string]string
		events  []effective.Event
	}{
		{
			name: "oldest wins merge defaults on one target",
			levels: [][]*policy.Policy{{
				pol("newer", 2, func(p *policy.Policy) { p.Defaults = block("merge", "a", "b") }),
				pol("older", 1, func(p *policy.Policy) { p.Defaults = block("merge", "a") }),
			}},
			sources: map[string]string{"a": "ns/older", "b": "ns/newer"},
		},
		{
			name: "oldest wins atomic defaults on one target",
			levels: [][]*policy.Policy{{
				pol("older", 1, func(p *policy.Policy) { p.Defaults = block("atomic", "a") }),
				pol("newer", 2, func(p *policy.Policy) { p.Defaults = block("atomic", "b") }),
			}},
			sources: map[string]string{"a": "ns/older"},
		},
		{
			name: "oldest wins merge overrides on one target",
			levels: [][]*policy.Policy{{
				pol("older", 1, func(p *policy.Policy) { p.Overrides = block("merge", "a") }),
				pol("newer", 2, func(p *policy.Policy) { p.Overrides = block("merge", "a", "b") }),
			}},
			sources: map[string]string{"a": "ns/older", "b": "ns/newer"},
		},
		{
			name: "same creation time: namespace/name decides",
			levels: [][]*policy.Policy{{
				pol("b", 1, func(p *policy.Policy) { p.Overrides = block("merge", "x") }),
				pol("a", 1, func(p *policy.Policy) { p.Overrides = block("merge", "x") }),
			}},
			sources: map[string]string{"x": "ns/a"},
		},
		{
			name: "bare rules are atomic defaults",
			levels: [][]*policy.Policy{
				{pol("route", 2, func(p *policy.Policy) { p.Bare = block("atomic", "r") })},
				{pol("gw", 1, func(p *policy.Policy) { p.Bare = block("atomic", "g") })},
			},
			sources: map[string]string{"r": "ns/route"},
			events: []effective.Event{
				{Type: effective.Added, Rule: "r", Policy: *ref("route"), Block: "rules"},
				{Type: effective.Replaced, Policy: *ref("gw"), Block: "rules", Other: ref("route")},
			},
		},
		{
			name: "higher atomic override replaces lower merge override",
			levels: [][]*policy.Policy{
				{pol("route", 2, func(p *policy.Policy) { p.Overrides = block("merge", "a", "b") })},
				{pol("gw", 1, func(p *policy.Policy) { p.Overrides = block("atomic", "c") })},
			},
			sources: map[string]string{"c": "ns/gw"},
			events: []effective.Event{
				{Type: effective.Added, Rule: "a", Policy: *ref("route"), Block: "overrides"},
				{Type: effective.Added, Rule: "b", Policy: *ref("route"), Block: "overrides"},
				{Type: effective.Overridden, Rule: "a", Policy: *ref("gw"), Block: "overrides", Other: ref("route")},
				{Type: effective.Overridden, Rule: "b", Policy: *ref("gw"), Block: "overrides", Other: ref("route")},
				{Type: effective.Added, Rule: "c", Policy: *ref("gw"), Block: "overrides"},
			},
		},
		{
			name: "unset applies to higher levels only and never removes an override",
			levels: [][]*policy.Policy{
				{pol("route", 3, func(p *policy.Policy) { p.Bare = block("atomic", "r"); p.Unset = []string{"a", "o"} })},
				{pol("gw", 1, func(p *policy.Policy) { p.Defaults = block("merge", "a", "b"); p.Overrides = block("merge", "o") })},
			},
			sources: map[string]string{"r": "ns/route", "b": "ns/gw", "o": "ns/gw"},
			events: []effective.Event{
				{Type: effective.Added, Rule: "r", Policy: *ref("route"), Block: "rules"},
				{Type: effective.Unset, Rule: "a", Policy: *ref("gw"), Block: "defaults", Other: ref("route")},
				{Type: effective.Added, Rule: "b", Policy: *ref("gw"), Block: "defaults"},
				{Type: effective.Added, Rule: "o", Policy: *ref("gw"), Block: "overrides"},
				{Type: effective.UnsetIneffective, Rule: "o", Policy: *ref("gw"), Block: "overrides", Other: ref("route")},
			},
		},
		{
			name: "when with nothing below sees an empty map",
			levels: [][]*policy.Policy{
				{pol("gw", 1, func(p *policy.Policy) { p.Defaults = block("merge", "a"); p.Defaults.When = "size(self.limits) == 0" })},
			},
			sources: map[string]string{"a": "ns/gw"},
		},
		{
			name: "when false skips the block",
			levels: [][]*policy.Policy{
				{pol("route", 2, func(p *policy.Policy) { p.Bare = block("atomic", "r") })},
				{pol("gw", 1, func(p *policy.Policy) { p.Overrides = block("merge", "r"); p.Overrides.When = "!has(self.limits.r)" })},
			},
			sources: map[string]string{"r": "ns/route"},
			events: []effective.Event{
				{Type: effective.Added, Rule: "r", Policy: *ref("route"), Block: "rules"},
				{Type: effective.ConditionFalse, Policy: *ref("gw"), Block: "overrides"},
			},
		},
		{
			name: "defaults and overrides in one policy",
			levels: [][]*policy.Policy{
				{pol("route", 2, func(p *policy.Policy) { p.Bare = block("atomic", "a", "o") })},
				{pol("gw", 1, func(p *policy.Policy) { p.Defaults = block("merge", "a", "d"); p.Overrides = block("merge", "o") })},
			},
			sources: map[string]string{"a": "ns/route", "d": "ns/gw", "o": "ns/gw"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			levels := make([]effective.Level, len(tt.levels))
			for i, ps := range tt.levels {
				sorted := append([]*policy.Policy(nil), ps...)
				for a := range sorted {
					for b := a + 1; b < len(sorted); b++ {
						if policy.Less(sorted[b], sorted[a]) {
							sorted[a], sorted[b] = sorted[b], sorted[a]
						}
					}
				}
				levels[i] = effective.Level{Policies: sorted}
			}
			r := effective.Fold(limitsKind, levels, ev)
			got := map[string]string{}
			for id, e := range r.Rules {
				got[id] = e.Source.String()
				if e.Body != id+"-body" {
					t.Errorf("rule %s has body %v", id, e.Body)
				}
			}
			if diff := cmp.Diff(tt.sources, got); diff != "" {
				t.Errorf("sources (-want +got):\n%s", diff)
			}
			if tt.events != nil {
				if diff := cmp.Diff(tt.events, r.Events, cmpopts.EquateEmpty()); diff != "" {
					t.Errorf("events (-want +got):\n%s", diff)
				}
			}
		})
	}
}

// TestUnionPaths: sorted lists merge sorted, without duplicates.
func TestUnionPaths(t *testing.T) {
	for _, c := range []struct{ a, b, want []int }{
		{nil, []int{1, 3}, []int{1, 3}},
		{[]int{1, 3}, nil, []int{1, 3}},
		{[]int{1, 3}, []int{1, 3}, []int{1, 3}},
		{[]int{1, 4, 7}, []int{2, 4, 9}, []int{1, 2, 4, 7, 9}},
		{[]int{5}, []int{1, 2}, []int{1, 2, 5}},
	} {
		if got := effective.UnionPaths(c.a, c.b); !cmp.Equal(got, c.want, cmpopts.EquateEmpty()) {
			t.Errorf("UnionPaths(%v, %v) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}
