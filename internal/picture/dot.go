package picture

import (
	"bufio"
	"fmt"
	"html"
	"io"
	"strconv"
)

// DOT writes g as a Graphviz digraph, left to right: the hierarchy as boxes, each policy as a note
// filled with its colour and joined by a dashed edge to what it targets, and under each path's
// deepest node a table of its rules, each in its policy's colour, those not in effect struck through.
func DOT(w io.Writer, g Graph) error {
	b := bufio.NewWriter(w)
	c := g.colours()
	fmt.Fprintln(b, "digraph precedent {")
	fmt.Fprintln(b, `  rankdir=LR;`)
	fmt.Fprintln(b, `  node [shape=box, style=rounded, fontname="Helvetica", fontsize=10];`)
	fmt.Fprintln(b, `  edge [color="#888888"];`)
	for _, n := range g.Nodes {
		fmt.Fprintf(b, "  %s [label=%s];\n", q(n.ID), q(n.Label))
	}
	for _, e := range g.Edges {
		fmt.Fprintf(b, "  %s -> %s;\n", q(e.From), q(e.To))
	}
	for _, p := range g.Policies {
		col := c[p.Label]
		fmt.Fprintf(b, "  %s [shape=note, style=filled, fillcolor=%s, fontcolor=white, label=%s];\n", q(p.ID), q(col), q(p.Label))
		for _, t := range p.Targets {
			fmt.Fprintf(b, "  %s -> %s [style=dashed, color=%s, arrowhead=odot];\n", q(p.ID), q(t), q(col))
		}
	}
	for i, p := range g.Paths {
		id := "effective " + strconv.Itoa(i)
		fmt.Fprintf(b, "  %s [shape=plaintext, label=<%s>];\n", q(id), table(p, c))
		fmt.Fprintf(b, "  %s -> %s [arrowhead=none, style=dotted];\n", q(p.Node), q(id))
	}
	fmt.Fprintln(b, "}")
	return b.Flush()
}

// table is the HTML-like label of one path's rules.
func table(p Path, c map[string]string) string {
	s := `<TABLE BORDER="0" CELLBORDER="1" CELLSPACING="0" CELLPADDING="3">`
	s += `<TR><TD BGCOLOR="#eeeeee"><B>` + html.EscapeString(p.Kind) + ` in effect</B></TD></TR>`
	if len(p.Rows) == 0 {
		s += `<TR><TD><I>no rules</I></TD></TR>`
	}
	for _, r := range p.Rows {
		col := fromColour(c, p.Kind, r.From)
		rule := html.EscapeString(r.Rule)
		if r.Struck {
			s += `<TR><TD ALIGN="LEFT"><FONT COLOR="#999999"><S>` + rule + `</S> ` + html.EscapeString(r.From) + `</FONT></TD></TR>`
			continue
		}
		s += `<TR><TD ALIGN="LEFT"><FONT COLOR="` + col + `">` + rule + ` ← ` + html.EscapeString(r.From) + `</FONT></TD></TR>`
	}
	return s + `</TABLE>`
}

// q quotes a DOT ID or string.
func q(s string) string { return strconv.Quote(s) }
