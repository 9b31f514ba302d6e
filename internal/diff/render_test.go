package diff

import (
	"fmt"
	"strings"
	"testing"
)

// TestRenderFoldsAndEscapes: a route with more than FoldAbove changes is folded in <details>; names
// from the input are escaped in Markdown (markup) and in the table (control and bidi characters).
func TestRenderFoldsAndEscapes(t *testing.T) {
	var changes []Change
	for i := 0; i <= FoldAbove; i++ {
		changes = append(changes, Change{Kind: "RateLimitPolicy", Gateway: "infra/gw", Route: "shop/r", RuleID: fmt.Sprintf("id-%02d", i),
			Change: Added, After: &Value{Value: "x", From: "shop/p"}})
	}
	changes = append(changes, Change{Kind: "RateLimitPolicy", Gateway: "infra/gw", Route: "shop/evil", RuleID: "a|b<script>\u202e\x1b[31m",
		Change: Removed, Before: &Value{Value: "`|`", From: "shop/p"}})
	r := NewReport(changes, nil, nil)

	var md strings.Builder
	if err := Markdown(&md, &r); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"<details><summary>RateLimitPolicy on route shop/r: 11 changes</summary>",
		"#### RateLimitPolicy on route shop/evil",
		`| infra/gw |  |  | a\|b&lt;script&gt;\\u202e\\x1b\[31m | removed | <code>"&#96;&#124;&#96;"</code> from shop/p | - |`,
	} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, md.String())
		}
	}
	for _, wide := range []bool{false, true} {
		var tb strings.Builder
		if err := Table(&tb, &r, wide); err != nil {
			t.Fatal(err)
		}
		if strings.ContainsAny(tb.String(), "\u202e\x1b") || !strings.Contains(tb.String(), `a|b<script>\u202e\x1b[31m`) {
			t.Errorf("table (wide %t) does not escape the rule id:\n%s", wide, tb.String())
		}
	}
}

// TestMarkdownDiagram: the diagram is embedded as a mermaid block whose fence no run of backticks
// in it can end; no diagram, no block.
func TestMarkdownDiagram(t *testing.T) {
	for _, tc := range []struct {
		name, diagram, want string
	}{
		{"none", "", ""},
		{"plain", "flowchart LR\n  n0[\"Gateway infra/gw\"]\n",
			"\n#### Paths the change touches, after it\n\n```mermaid\nflowchart LR\n  n0[\"Gateway infra/gw\"]\n```\n"},
		{"backticks inside", "flowchart LR\n  n0[\"rule ````x\"]",
			"\n#### Paths the change touches, after it\n\n`````mermaid\nflowchart LR\n  n0[\"rule ````x\"]\n`````\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			writeDiagram(&b, tc.diagram)
			if b.String() != tc.want {
				t.Errorf("got %q, want %q", b.String(), tc.want)
			}
		})
	}
}
