package picture

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Mermaid writes g as a Mermaid flowchart, left to right, in the shapes of DOT: the hierarchy as
// boxes, each policy as a parallelogram in its colour with a dotted link to what it targets, and
// under each path's deepest node a box of its rules, those not in effect struck through. GitHub
// renders it in Markdown (```mermaid).
func Mermaid(w io.Writer, g Graph) error {
	b := bufio.NewWriter(w)
	c := g.colours()
	ids := map[string]string{}
	id := func(s string) string {
		if v, ok := ids[s]; ok {
			return v
		}
		v := "n" + strconv.Itoa(len(ids))
		ids[s] = v
		return v
	}
	fmt.Fprintln(b, "flowchart LR")
	for _, n := range g.Nodes {
		fmt.Fprintf(b, "  %s[\"%s\"]\n", id(n.ID), mtext(n.Label))
	}
	for _, e := range g.Edges {
		fmt.Fprintf(b, "  %s --> %s\n", id(e.From), id(e.To))
	}
	for _, p := range g.Policies {
		fmt.Fprintf(b, "  %s[/\"%s\"/]\n", id(p.ID), mtext(p.Label))
		fmt.Fprintf(b, "  style %s fill:%s,color:#ffffff\n", id(p.ID), c[p.Label])
		for _, t := range p.Targets {
			fmt.Fprintf(b, "  %s -.-> %s\n", id(p.ID), id(t))
		}
	}
	for i, p := range g.Paths {
		rows := []string{"<b>" + mtext(p.Kind) + " in effect</b>"}
		if len(p.Rows) == 0 {
			rows = append(rows, "<i>no rules</i>")
		}
		for _, r := range p.Rows {
			if r.Struck {
				rows = append(rows, "<s>"+mtext(r.Rule)+"</s> "+mtext(r.From))
				continue
			}
			rows = append(rows, mtext(r.Rule)+" ← "+mtext(r.From))
		}
		e := id("effective " + strconv.Itoa(i))
		fmt.Fprintf(b, "  %s[\"%s\"]\n", e, strings.Join(rows, "<br/>"))
		fmt.Fprintf(b, "  style %s fill:#f6f6f6,stroke:#bbbbbb\n", e)
		fmt.Fprintf(b, "  %s --- %s\n", id(p.Node), e)
	}
	return b.Flush()
}

// mtext escapes text for a quoted Mermaid label: quotes and angle brackets as entity codes, so
// names and rule ids cannot end the label or open markup.
func mtext(s string) string {
	r := strings.NewReplacer("&", "#amp;", `"`, "#quot;", "<", "#lt;", ">", "#gt;", "\n", " ")
	return r.Replace(s)
}
