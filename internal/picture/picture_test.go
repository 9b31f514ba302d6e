package picture

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// twoLevels is a Gateway-level and a route-level policy on one path: one rule of each in effect,
// the route's second rule overridden.
var twoLevels = Graph{
	Nodes: []Node{{ID: "GatewayClass eg", Label: "GatewayClass eg"}, {ID: "Gateway infra/gw", Label: "Gateway infra/gw"}, {ID: "HTTPRoute shop/cart", Label: "HTTPRoute shop/cart"}},
	Edges: []Edge{{From: "GatewayClass eg", To: "Gateway infra/gw"}, {From: "Gateway infra/gw", To: "HTTPRoute shop/cart"}},
	Policies: []Policy{
		{ID: "policy AuthPolicy infra/gw-policy", Label: "AuthPolicy infra/gw-policy", Targets: []string{"Gateway infra/gw"}},
		{ID: "policy AuthPolicy shop/cart", Label: "AuthPolicy shop/cart", Targets: []string{"HTTPRoute shop/cart"}},
	},
	Paths: []Path{{Node: "HTTPRoute shop/cart", Kind: "AuthPolicy", Rows: []Row{
		{Rule: "authorization.b", From: "infra/gw-policy"},
		{Rule: "authorization.c", From: "shop/cart"},
		{Rule: "authorization.b", From: "shop/cart", Struck: true},
	}}},
}

// odd has names and rule ids that must be escaped in both languages, and a path with no rules.
var odd = Graph{
	Nodes:    []Node{{ID: `Gateway "q"/gw`, Label: `Gateway "q"/gw`}},
	Policies: []Policy{{ID: "p", Label: `RateLimitPolicy a/<b>`, Targets: []string{`Gateway "q"/gw`}}},
	Paths: []Path{
		{Node: `Gateway "q"/gw`, Kind: "RateLimitPolicy", Rows: []Row{{Rule: `x<y>&"z"`, From: "a/<b>"}}},
		{Node: `Gateway "q"/gw`, Kind: "AuthPolicy"},
	},
}

func TestRender(t *testing.T) {
	for _, tt := range []struct {
		name string
		g    Graph
	}{{"two-levels", twoLevels}, {"escaping", odd}} {
		for _, r := range []struct {
			ext    string
			render func(*bytes.Buffer, Graph) error
		}{
			{"dot", func(b *bytes.Buffer, g Graph) error { return DOT(b, g) }},
			{"mmd", func(b *bytes.Buffer, g Graph) error { return Mermaid(b, g) }},
		} {
			t.Run(tt.name+"."+r.ext, func(t *testing.T) {
				var b bytes.Buffer
				if err := r.render(&b, tt.g); err != nil {
					t.Fatal(err)
				}
				golden := filepath.Join("testdata", tt.name+"."+r.ext)
				if *update {
					if err := os.WriteFile(golden, b.Bytes(), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				want, err := os.ReadFile(golden)
				if err != nil {
					t.Fatalf("%v (run go test -update)", err)
				}
				if diff := cmp.Diff(string(want), b.String()); diff != "" {
					t.Errorf("%s (-want +got):\n%s", golden, diff)
				}
			})
		}
	}
}

// The same policy always gets the same colour, whatever the order the policies come in, and
// colours repeat only after the palette's end.
func TestColours(t *testing.T) {
	g := Graph{Policies: []Policy{{Label: "b"}, {Label: "a"}}}
	h := Graph{Policies: []Policy{{Label: "a"}, {Label: "b"}}}
	if diff := cmp.Diff(g.colours(), h.colours()); diff != "" {
		t.Errorf("colours depend on order (-g +h):\n%s", diff)
	}
	if c := g.colours(); c["a"] == c["b"] {
		t.Errorf("two policies share colour %s", c["a"])
	}
}
