package policy

import (
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func TestBareFormRoundTrip(t *testing.T) {
	auth, limits, traffic := Builtin()[0], Builtin()[1], Builtin()[2]
	tests := []struct {
		name  string
		kind  Kind
		rules map[string]interface{}
		want  map[string]interface{}
	}{
		{"sections", auth, map[string]interface{}{"authorization.b": 1, "authentication.a": 2},
			map[string]interface{}{"rules": map[string]interface{}{"authorization": map[string]interface{}{"b": 1}, "authentication": map[string]interface{}{"a": 2}}}},
		{"flat", limits, map[string]interface{}{"x": 1}, map[string]interface{}{"limits": map[string]interface{}{"x": 1}}},
		{"empty", limits, map[string]interface{}{}, map[string]interface{}{"limits": map[string]interface{}{}}},
		{"gep713 leaves", traffic, map[string]interface{}{"cdn.enabled": true, "cdn.cachePolicy.includeHost": false, "timeouts.request": "1s"},
			map[string]interface{}{"cdn": map[string]interface{}{"enabled": true, "cachePolicy": map[string]interface{}{"includeHost": false}}, "timeouts": map[string]interface{}{"request": "1s"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := BareForm(tt.kind, tt.rules)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("BareForm (-want +got):\n%s", diff)
			}
			if tt.kind.Profile == ProfileGEP713 {
				if diff := cmp.Diff(tt.rules, Flatten(got)); diff != "" {
					t.Errorf("Flatten(BareForm) (-want +got):\n%s", diff)
				}
			}
		})
	}
}

func TestValidRuleID(t *testing.T) {
	auth, limits := Builtin()[0], Builtin()[1]
	for _, c := range []struct {
		k    Kind
		id   string
		want bool
	}{
		{auth, "authorization.b", true}, {auth, "authorization.b.c", true}, {auth, "b", false},
		{auth, "authz.b", false}, {auth, "authorization.", false}, {limits, "x", true}, {limits, "", false},
	} {
		if got := ValidRuleID(c.k, c.id); got != c.want {
			t.Errorf("ValidRuleID(%s, %q) = %v, want %v", c.k, c.id, got, c.want)
		}
	}
}

// TestSameAs: two views of one object are the same whatever their generation, labels or field
// order; any change the engine reads (a rule body, a condition, the strategy, a target, the unset
// list, the creation time) makes them differ.
func TestSameAs(t *testing.T) {
	limits := Builtin()[1]
	base := func() map[string]interface{} {
		return map[string]interface{}{
			"apiVersion": "policy.precedent.dev/v1alpha1", "kind": "RateLimitPolicy",
			"metadata": map[string]interface{}{"name": "p", "namespace": "ns", "creationTimestamp": "2024-01-01T00:00:00Z", "generation": int64(1)},
			"spec": map[string]interface{}{
				"targetRef": map[string]interface{}{"group": "gateway.networking.k8s.io", "kind": "Gateway", "name": "gw"},
				"defaults":  map[string]interface{}{"strategy": "merge", "when": "true", "limits": map[string]interface{}{"x": map[string]interface{}{"rates": []interface{}{map[string]interface{}{"limit": int64(5)}}}}},
				"unset":     []interface{}{"y"},
			},
		}
	}
	view := func(edit func(o map[string]interface{})) *Policy {
		o := base()
		if edit != nil {
			edit(o)
		}
		p, errs := View(limits, &unstructured.Unstructured{Object: o})
		if p == nil {
			t.Fatalf("View: %v", errs)
		}
		return p
	}
	spec := func(o map[string]interface{}) map[string]interface{} { return o["spec"].(map[string]interface{}) }
	defaults := func(o map[string]interface{}) map[string]interface{} {
		return spec(o)["defaults"].(map[string]interface{})
	}
	same := map[string]func(map[string]interface{}){
		"unchanged":      nil,
		"new generation": func(o map[string]interface{}) { o["metadata"].(map[string]interface{})["generation"] = int64(7) },
		"labels": func(o map[string]interface{}) {
			o["metadata"].(map[string]interface{})["labels"] = map[string]interface{}{"a": "b"}
		},
	}
	differ := map[string]func(map[string]interface{}){
		"rule body": func(o map[string]interface{}) { defaults(o)["limits"].(map[string]interface{})["x"] = int64(6) },
		"new rule":  func(o map[string]interface{}) { defaults(o)["limits"].(map[string]interface{})["z"] = int64(1) },
		"condition": func(o map[string]interface{}) { defaults(o)["when"] = "false" },
		"strategy":  func(o map[string]interface{}) { defaults(o)["strategy"] = "atomic" },
		"target":    func(o map[string]interface{}) { spec(o)["targetRef"].(map[string]interface{})["name"] = "other" },
		"unset":     func(o map[string]interface{}) { spec(o)["unset"] = []interface{}{"z"} },
		"created": func(o map[string]interface{}) {
			o["metadata"].(map[string]interface{})["creationTimestamp"] = "2025-01-01T00:00:00Z"
		},
		"overrides too": func(o map[string]interface{}) {
			spec(o)["overrides"] = map[string]interface{}{"limits": map[string]interface{}{}}
		},
	}
	ref := view(nil)
	for name, edit := range same {
		if !view(edit).SameAs(ref) {
			t.Errorf("%s: not the same as the original", name)
		}
	}
	for name, edit := range differ {
		if view(edit).SameAs(ref) || ref.SameAs(view(edit)) {
			t.Errorf("%s: the same as the original", name)
		}
	}
}

func TestParseRefAndCompare(t *testing.T) {
	for _, s := range []string{"shop/cart", "a-b/c", "/x", "ns/"} {
		if got := ParseRef(s).String(); got != s {
			t.Errorf("ParseRef(%q).String() = %q", s, got)
		}
	}
	// Compare sorts as the Strings do: "a-b/c" before "a/z" ('-' < '/'), not namespace first.
	refs := []Ref{ParseRef("a/z"), ParseRef("a-b/c"), ParseRef("a/b")}
	slices.SortFunc(refs, Ref.Compare)
	if got := fmt.Sprint(refs); got != "[a-b/c a/b a/z]" {
		t.Errorf("sorted = %s, want [a-b/c a/b a/z]", got)
	}
}
