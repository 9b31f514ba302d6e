package diff_test

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/precedent-dev/precedent/cel"
	"github.com/precedent-dev/precedent/internal/diff"
	"github.com/precedent-dev/precedent/internal/effective"
	"github.com/precedent-dev/precedent/internal/inventory"
	"github.com/precedent-dev/precedent/internal/manifest"
	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/topology"
	kuadrantengine "github.com/precedent-dev/precedent/profiles/kuadrant/engine"
)

var (
	rateLimits = policy.Builtin()[1]
	traffic    = policy.Builtin()[2]
	kuadrant   = kuadrantengine.KuadrantKind(schema.GroupVersionKind{Group: "kuadrant.io", Version: "v1", Kind: "RateLimitPolicy"})
)

// topologyYAML is a Gateway with two listeners and a route on both, with two rules.
const topologyYAML = `
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: infra}
spec:
  gatewayClassName: example
  listeners:
  - {name: http, port: 80, protocol: HTTP, allowedRoutes: {namespaces: {from: All}}}
  - {name: https, port: 443, protocol: HTTPS, allowedRoutes: {namespaces: {from: All}}}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r, namespace: shop}
spec:
  parentRefs: [{name: gw, namespace: infra}]
  rules: [{name: main}, {name: admin}]
`

// tree reads a topology and policies of kind k.
func tree(t *testing.T, k policy.Kind, docs string) (*inventory.Inventory, *topology.Graph) {
	t.Helper()
	objs, err := manifest.Decode("test.yaml", []byte(docs))
	if err != nil {
		t.Fatal(err)
	}
	us := make([]*unstructured.Unstructured, 0, len(objs))
	for _, o := range objs {
		us = append(us, o.Unstructured)
	}
	inv := inventory.Build(policy.NewRegistry(k), us, nil)
	if len(inv.Problems) > 0 {
		t.Fatal(inv.Problems)
	}
	return inv, topology.Build(inv.Topology)
}

// snapshots builds the snapshots of base and head, sharing base's graph when the topology is the same.
func snapshots(t *testing.T, k policy.Kind, base, head string) (*effective.Snapshot, *effective.Snapshot) {
	t.Helper()
	ev, err := cel.New(0)
	if err != nil {
		t.Fatal(err)
	}
	bi, bg := tree(t, k, base)
	hi, hg := tree(t, k, head)
	if diff.SameTopology(bi.Topology, hi.Topology) {
		hg = bg
	}
	return effective.NewSnapshot(k, bg, bi.Views(k), ev), effective.NewSnapshot(k, hg, hi.Views(k), ev)
}

// doc is one policy of kind k named name (created at minute age), targeting target ("Gateway/gw",
// "HTTPRoute/r", with #section), with spec body.
func doc(k policy.Kind, ns, name string, age int, target, body string) string {
	kind, rest, _ := cut(target, "/")
	tname, section, _ := cut(rest, "#")
	ref := fmt.Sprintf("{group: gateway.networking.k8s.io, kind: %s, name: %s", kind, tname)
	if section != "" {
		ref += ", sectionName: " + section
	}
	return fmt.Sprintf("---\napiVersion: %s\nkind: %s\nmetadata: {name: %s, namespace: %s, creationTimestamp: \"2024-01-01T00:%02d:00Z\"}\nspec:\n  targetRef: %s}\n%s\n",
		k.GVK.GroupVersion(), k.GVK.Kind, name, ns, age, ref, body)
}

func cut(s, sep string) (string, string, bool) {
	for i := 0; i+len(sep) <= len(s); i++ {
		if s[i:i+len(sep)] == sep {
			return s[:i], s[i+len(sep):], true
		}
	}
	return s, "", false
}

func limit(n int64) map[string]interface{} {
	return map[string]interface{}{"rates": []interface{}{map[string]interface{}{"limit": float64(n), "window": "1m"}}}
}

func limits(block string, l map[string]int64) string {
	s := "  " + block + ":\n"
	if block == "limits" {
		s = "  limits:\n"
	} else {
		s += "    strategy: merge\n    limits:\n"
	}
	indent := "    "
	if block != "limits" {
		indent = "      "
	}
	for _, id := range []string{"a", "b", "c"} {
		if n, ok := l[id]; ok {
			s += fmt.Sprintf("%s%s: {rates: [{limit: %d, window: 1m}]}\n", indent, id, n)
		}
	}
	return s
}

// on is a change of the route's path (listener and rule hidden), ruleId id.
func on(k policy.Kind, id string, t diff.Type, before, after *diff.Value) diff.Change {
	return diff.Change{Shape: diff.ShapePath, Kind: k.GVK.Kind, APIGroup: k.GVK.Group, Gateway: "infra/gw", Route: "shop/r", RuleID: id, Change: t, Before: before, After: after}
}

func val(v interface{}, from string) *diff.Value { return &diff.Value{Value: v, From: from} }

// TestEffectiveChangeTypes: each change type in each profile with effective policies.
func TestEffectiveChangeTypes(t *testing.T) {
	gwRL := func(k policy.Kind, l map[string]int64) string {
		block := "defaults"
		if k.Profile == policy.ProfileKuadrant {
			block = "defaults" // Kuadrant's RateLimitPolicy has defaults blocks too
		}
		return doc(k, "infra", "gw-limits", 0, "Gateway/gw", limits(block, l))
	}
	routeRL := func(k policy.Kind, l map[string]int64) string {
		return doc(k, "shop", "r-limits", 1, "HTTPRoute/r", limits("limits", l))
	}
	gwTP := func(request string) string {
		return doc(traffic, "infra", "gw-traffic", 0, "Gateway/gw", "  default:\n    timeouts: {request: "+request+"}")
	}
	routeTP := func(request string) string {
		return doc(traffic, "shop", "r-traffic", 1, "HTTPRoute/r", "  default:\n    timeouts: {request: "+request+"}")
	}
	type row struct {
		name       string
		k          policy.Kind
		base, head string
		want       []diff.Change
	}
	var rows []row
	for _, k := range []policy.Kind{rateLimits, kuadrant} {
		p := string(k.Profile) + " "
		rows = append(rows,
			row{p + "added: a new default", k, gwRL(k, map[string]int64{"a": 1}), gwRL(k, map[string]int64{"a": 1, "b": 2}),
				[]diff.Change{on(k, "b", diff.Added, nil, val(limit(2), "infra/gw-limits"))}},
			row{p + "removed: a default dropped", k, gwRL(k, map[string]int64{"a": 1, "b": 2}), gwRL(k, map[string]int64{"a": 1}),
				[]diff.Change{on(k, "b", diff.Removed, val(limit(2), "infra/gw-limits"), nil)}},
			row{p + "changed: another value", k, routeRL(k, map[string]int64{"a": 1}), routeRL(k, map[string]int64{"a": 3}),
				[]diff.Change{on(k, "a", diff.Changed, val(limit(1), "shop/r-limits"), val(limit(3), "shop/r-limits"))}},
			row{p + "moved: the same value from the Gateway once the route's policy is gone", k,
				gwRL(k, map[string]int64{"a": 1}) + routeRL(k, map[string]int64{"a": 1}), gwRL(k, map[string]int64{"a": 1}),
				[]diff.Change{on(k, "a", diff.Moved, val(limit(1), "shop/r-limits"), val(limit(1), "infra/gw-limits"))}},
			row{p + "no change: a policy rewritten alike", k, routeRL(k, map[string]int64{"a": 1}), routeRL(k, map[string]int64{"a": 1}), nil},
		)
	}
	rows = append(rows,
		row{"gep713 added: a route default", traffic, gwTP("10s"), gwTP("10s") + doc(traffic, "shop", "r-traffic", 1, "HTTPRoute/r", "  default:\n    timeouts: {connect: 1s}"),
			[]diff.Change{on(traffic, "timeouts.connect", diff.Added, nil, val("1s", "shop/r-traffic"))}},
		row{"gep713 removed: the only policy deleted", traffic, gwTP("10s"), "",
			[]diff.Change{on(traffic, "timeouts.request", diff.Removed, val("10s", "infra/gw-traffic"), nil)}},
		row{"gep713 changed: the route's default", traffic, gwTP("10s") + routeTP("5s"), gwTP("10s") + routeTP("3s"),
			[]diff.Change{on(traffic, "timeouts.request", diff.Changed, val("5s", "shop/r-traffic"), val("3s", "shop/r-traffic"))}},
		row{"gep713 moved: the route says what the Gateway says", traffic, gwTP("10s"), gwTP("10s") + routeTP("10s"),
			[]diff.Change{on(traffic, "timeouts.request", diff.Moved, val("10s", "infra/gw-traffic"), val("10s", "shop/r-traffic"))}},
	)
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			base, head := snapshots(t, r.k, topologyYAML+r.base, topologyYAML+r.head)
			if base.Graph != head.Graph {
				t.Fatal("the topology is the same: the snapshots must share one graph")
			}
			got := diff.Effective(base, head)
			if d := cmp.Diff(r.want, got); d != "" {
				t.Errorf("changes (-want +got):\n%s", d)
			}
		})
	}
}

// TestEffectiveKeys: a new listener-level policy splits the Gateway's paths by listener in head; the
// changes are shown per listener (the finer key), only where the effective policy changed (not on
// http, which shows its listener in head but did not change). A new
// route (another topology) adds its paths whole.
func TestEffectiveKeys(t *testing.T) {
	gw := doc(rateLimits, "infra", "gw-limits", 0, "Gateway/gw", limits("defaults", map[string]int64{"a": 1}))
	https := doc(rateLimits, "infra", "https-limits", 2, "Gateway/gw#https", limits("overrides", map[string]int64{"a": 5}))
	base, head := snapshots(t, rateLimits, topologyYAML+gw, topologyYAML+gw+https)
	want := []diff.Change{
		{Shape: diff.ShapePath, Kind: "RateLimitPolicy", APIGroup: "policy.precedent.dev", Gateway: "infra/gw", Listener: "https", Route: "shop/r", RuleID: "a", Change: diff.Changed,
			Before: val(limit(1), "infra/gw-limits"), After: val(limit(5), "infra/https-limits")},
	}
	if d := cmp.Diff(want, diff.Effective(base, head)); d != "" {
		t.Errorf("listener split (-want +got):\n%s", d)
	}
	// The same in reverse: the listener policy removed, the changes keep base's finer key.
	for i := range want {
		want[i].Before, want[i].After = want[i].After, want[i].Before
	}
	if d := cmp.Diff(want, diff.Effective(head, base)); d != "" {
		t.Errorf("listener merge (-want +got):\n%s", d)
	}

	route2 := `
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r2, namespace: shop}
spec:
  parentRefs: [{name: gw, namespace: infra, sectionName: http}]
  rules: [{name: main}]
`
	base, head = snapshots(t, rateLimits, topologyYAML+gw, topologyYAML+route2+gw)
	if base.Graph == head.Graph {
		t.Fatal("the topologies differ: the snapshots must not share a graph")
	}
	want = []diff.Change{{Shape: diff.ShapePath, Kind: "RateLimitPolicy", APIGroup: "policy.precedent.dev", Gateway: "infra/gw", Route: "shop/r2", RuleID: "a", Change: diff.Added,
		After: val(limit(1), "infra/gw-limits")}}
	if d := cmp.Diff(want, diff.Effective(base, head)); d != "" {
		t.Errorf("new route (-want +got):\n%s", d)
	}
}
