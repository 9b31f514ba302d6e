package engine

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TestModes follows GetMergeStrategy and IsMergeable (pkg/pluginsdk/policy/merge.go): the parent
// route's annotation picks AugmentedShallow (prefer child), OverridableShallow (prefer parent),
// AugmentedDeep or OverridableDeep for the cross-hierarchy pass of MergePolicies; deep merging
// applies to `transformation` only (kgateway 2.1 release notes).
func TestModes(t *testing.T) {
	parentPolicy := obj{"timeouts": obj{"request": "10s"}, "rateLimit": obj{"local": obj{"tokenBucket": obj{"maxTokens": int64(100)}}},
		"transformation": obj{"request": obj{"set": list{obj{"name": "x-parent", "value": "p"}}}, "response": obj{"set": list{obj{"name": "x-resp", "value": "p"}}}}}
	childPolicy := obj{"rateLimit": obj{"local": obj{"tokenBucket": obj{"maxTokens": int64(5)}}},
		"transformation": obj{"request": obj{"set": list{obj{"name": "x-child", "value": "c"}}}}}
	cases := []struct {
		name      string
		mode      Mode
		want      map[string]string
		wantTrans obj
		displaced []Displacement
	}{
		{
			name:      "no annotation is ShallowMergePreferChild: the child keeps its fields, the parent fills the rest",
			want:      map[string]string{"timeouts": "root-tp", "rateLimit": "cart-tp", "transformation": "cart-tp"},
			wantTrans: childPolicy["transformation"].(obj),
			displaced: []Displacement{
				{Field: "rateLimit", Policy: Key{"infra", "root-tp"}, By: Key{"shop", "cart-tp"}, Owner: "route infra/root", Mode: ShallowPreferChild},
				{Field: "transformation", Policy: Key{"infra", "root-tp"}, By: Key{"shop", "cart-tp"}, Owner: "route infra/root", Mode: ShallowPreferChild},
			},
		},
		{
			name:      "ShallowMergePreferParent: the parent's top-level fields replace the child's",
			mode:      ShallowPreferParent,
			want:      map[string]string{"timeouts": "root-tp", "rateLimit": "root-tp", "transformation": "root-tp"},
			wantTrans: parentPolicy["transformation"].(obj),
			displaced: []Displacement{
				{Field: "rateLimit", Policy: Key{"shop", "cart-tp"}, By: Key{"infra", "root-tp"}, Owner: "route infra/root", Mode: ShallowPreferParent},
				{Field: "transformation", Policy: Key{"shop", "cart-tp"}, By: Key{"infra", "root-tp"}, Owner: "route infra/root", Mode: ShallowPreferParent},
			},
		},
		{
			name:      "DeepMergePreferChild: transformation merged key by key with the child's winning, rateLimit still shallow",
			mode:      DeepPreferChild,
			want:      map[string]string{"timeouts": "root-tp", "rateLimit": "cart-tp", "transformation": "cart-tp,root-tp"},
			wantTrans: obj{"request": childPolicy["transformation"].(obj)["request"], "response": parentPolicy["transformation"].(obj)["response"]},
			displaced: []Displacement{
				{Field: "rateLimit", Policy: Key{"infra", "root-tp"}, By: Key{"shop", "cart-tp"}, Owner: "route infra/root", Mode: DeepPreferChild},
			},
		},
		{
			// kgateway v2.2's defaultMerge keeps a field the child sets under either DeepMerge mode.
			name:      "DeepMergePreferParent: transformation merged with the parent's winning, rateLimit kept by the child",
			mode:      DeepPreferParent,
			want:      map[string]string{"timeouts": "root-tp", "rateLimit": "cart-tp", "transformation": "root-tp,cart-tp"},
			wantTrans: parentPolicy["transformation"].(obj),
			displaced: []Displacement{
				{Field: "rateLimit", Policy: Key{"infra", "root-tp"}, By: Key{"shop", "cart-tp"}, Owner: "route infra/root", Mode: DeepPreferParent},
			},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := foldCart(t, c.mode, parentPolicy, childPolicy)
			if d := cmp.Diff(c.want, fields(res)); d != "" {
				t.Errorf("sources (-want +got):\n%s", d)
			}
			if d := cmp.Diff(c.wantTrans, res.Fields["transformation"].Value); d != "" {
				t.Errorf("transformation (-want +got):\n%s", d)
			}
			if d := cmp.Diff(c.displaced, res.Displaced); d != "" {
				t.Errorf("displaced (-want +got):\n%s", d)
			}
		})
	}
}

// TestSameLevel follows merge with sameHierarchy true (AugmentedShallowMerge, whatever the
// annotation) over the order kgateway gives one route's policies: extensionRef filter, rule
// sectionName, route targetRef (route translation merges them as one hierarchy), then older first
// (pkg/krtcollections/policy.go), then by name for a stable answer.
func TestSameLevel(t *testing.T) {
	rule := obj{"name": "checkout", "filters": list{obj{"type": "ExtensionRef", "extensionRef": obj{"group": Group, "kind": TrafficPolicy, "name": "ext"}}},
		"backendRefs": list{obj{"name": "svc"}}}
	cases := []struct {
		name     string
		policies []*unstructured.Unstructured
		want     map[string]string
	}{
		{"extensionRef beats rule sectionName and route targetRef", []*unstructured.Unstructured{
			tp("shop", "route-tp", 0, list{ref("HTTPRoute", "cart", "")}, obj{"cors": obj{"allowOrigins": list{"a"}}}),
			tp("shop", "rule-tp", 1, list{ref("HTTPRoute", "cart", "checkout")}, obj{"cors": obj{"allowOrigins": list{"b"}}, "timeouts": obj{}}),
			tp("shop", "ext", 2, nil, obj{"cors": obj{"allowOrigins": list{"c"}}}),
		}, map[string]string{"cors": "ext", "timeouts": "rule-tp"}},
		{"rule sectionName beats route targetRef even when younger", []*unstructured.Unstructured{
			tp("shop", "route-tp", 0, list{ref("HTTPRoute", "cart", "")}, obj{"cors": obj{}}),
			tp("shop", "rule-tp", 5, list{ref("HTTPRoute", "cart", "checkout")}, obj{"cors": obj{}}),
		}, map[string]string{"cors": "rule-tp"}},
		{"at one specificity the older wins", []*unstructured.Unstructured{
			tp("shop", "b-new", 3, list{ref("HTTPRoute", "cart", "")}, obj{"cors": obj{}}),
			tp("shop", "z-old", 1, list{ref("HTTPRoute", "cart", "")}, obj{"cors": obj{}, "rateLimit": obj{}}),
		}, map[string]string{"cors": "z-old", "rateLimit": "z-old"}},
		{"same age: by name", []*unstructured.Unstructured{
			tp("shop", "b", 1, list{ref("HTTPRoute", "cart", "")}, obj{"cors": obj{}}),
			tp("shop", "a", 1, list{ref("HTTPRoute", "cart", "")}, obj{"cors": obj{}}),
		}, map[string]string{"cors": "a"}},
		{"at one specificity the heavier wins before the older", []*unstructured.Unstructured{
			tp("shop", "old", 0, list{ref("HTTPRoute", "cart", "")}, obj{"cors": obj{}}),
			weighted(tp("shop", "heavy", 3, list{ref("HTTPRoute", "cart", "")}, obj{"cors": obj{}}), "10"),
		}, map[string]string{"cors": "heavy"}},
		{"a negative weight loses to the default 0", []*unstructured.Unstructured{
			weighted(tp("shop", "light", 0, list{ref("HTTPRoute", "cart", "")}, obj{"cors": obj{}}), "-1"),
			tp("shop", "young", 3, list{ref("HTTPRoute", "cart", "")}, obj{"cors": obj{}}),
		}, map[string]string{"cors": "young"}},
		{"weight does not beat specificity", []*unstructured.Unstructured{
			weighted(tp("shop", "route-tp", 0, list{ref("HTTPRoute", "cart", "")}, obj{"cors": obj{}}), "100"),
			tp("shop", "rule-tp", 3, list{ref("HTTPRoute", "cart", "checkout")}, obj{"cors": obj{}}),
		}, map[string]string{"cors": "rule-tp"}},
		{"a route policy is more specific than the Gateway's (default mode)", []*unstructured.Unstructured{
			tp("shop", "gw-tp", 0, list{ref("Gateway", "gw", "")}, obj{"cors": obj{}, "extAuth": obj{}}),
			tp("shop", "route-tp", 1, list{ref("HTTPRoute", "cart", "")}, obj{"cors": obj{}}),
		}, map[string]string{"cors": "route-tp", "extAuth": "gw-tp"}},
		{"listener sectionName beats the whole Gateway", []*unstructured.Unstructured{
			tp("shop", "gw-tp", 0, list{ref("Gateway", "gw", "")}, obj{"cors": obj{}}),
			tp("shop", "listener-tp", 1, list{ref("Gateway", "gw", "http")}, obj{"cors": obj{}}),
		}, map[string]string{"cors": "listener-tp"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			objs := []*unstructured.Unstructured{gateway("shop", "gw", "")}
			r := route("shop", "cart", "", "", nil, rule)
			r.Object["spec"].(obj)["parentRefs"] = list{obj{"name": "gw", "sectionName": "http"}}
			objs = append(objs, r)
			w := New(append(objs, c.policies...))
			v := View{World: w}
			paths := v.Paths(Key{"shop", "cart"})
			if len(paths) != 1 {
				t.Fatalf("paths: got %d, want 1", len(paths))
			}
			if d := cmp.Diff(c.want, fields(v.Compute(paths[0]))); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

// TestDeepMergeProviders follows kgateway v2.2's mergeExtAuth under the DeepMerge modes: a parent
// route's extAuth provider that the child's does not name runs too, the preferred level's first; the
// same provider stays the child's alone.
func TestDeepMergeProviders(t *testing.T) {
	auth := func(name string) obj { return obj{"extensionRef": obj{"name": name, "namespace": "shop"}} }
	cases := []struct {
		name   string
		mode   Mode
		parent string
		want   string
	}{
		{"DeepMergePreferChild, another provider: both, the child's first", DeepPreferChild, "corp-auth", "cart-tp,root-tp"},
		{"DeepMergePreferParent, another provider: both, the parent's first", DeepPreferParent, "corp-auth", "root-tp,cart-tp"},
		{"DeepMergePreferParent, the same provider: the child's", DeepPreferParent, "shop-auth", "cart-tp"},
		{"ShallowMergePreferChild, another provider: the child's", ShallowPreferChild, "corp-auth", "cart-tp"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := foldCart(t, c.mode, obj{"extAuth": auth(c.parent)}, obj{"extAuth": auth("shop-auth")})
			if got := fields(res)["extAuth"]; got != c.want {
				t.Errorf("extAuth from %q, want %q", got, c.want)
			}
		})
	}
}

// foldCart folds the one path of route shop/cart, delegated to by infra/root (annotated mode) on
// Gateway infra/gw, with TrafficPolicy root-tp (parent) on the root and cart-tp (child) on cart.
func foldCart(t *testing.T, mode Mode, parent, child obj) Result {
	t.Helper()
	v := View{World: New([]*unstructured.Unstructured{
		gateway("infra", "gw", ""),
		route("infra", "root", "gw", mode, nil, delegate("shop", "cart")),
		route("shop", "cart", "", "", nil, backend()),
		tp("infra", "root-tp", 0, list{ref("HTTPRoute", "root", "")}, parent),
		tp("shop", "cart-tp", 1, list{ref("HTTPRoute", "cart", "")}, child),
	})}
	paths := v.Paths(Key{"shop", "cart"})
	if len(paths) != 1 {
		t.Fatalf("paths: got %d, want 1", len(paths))
	}
	return v.Compute(paths[0])
}
