package diff

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/precedent-dev/precedent/internal/printable"
	"github.com/precedent-dev/precedent/internal/warning"
)

// FoldAbove is the number of lines (rows of one table, errors, warnings) above which Markdown folds
// a list into a <details> block.
const FoldAbove = 10

// maxValue is the width at which the Markdown and table forms cut a value (JSON has it whole).
const maxValue = 80

// SummaryLine is the report's one-line summary.
func (r *Report) SummaryLine() string {
	s := r.Summary
	var line string
	if len(r.Changes) == 0 {
		line = "no change to the effective policies"
	} else {
		line = fmt.Sprintf("%d change%s on %d path%s of %d route%s: %d added, %d removed, %d changed, %d moved",
			len(r.Changes), plural(len(r.Changes)), s.Paths, plural(s.Paths), s.Routes, plural(s.Routes), s.Added, s.Removed, s.Changed, s.Moved)
	}
	if n := len(r.Errors); n > 0 {
		line += fmt.Sprintf("; %d error%s the webhook would reject", n, plural(n))
	}
	return line
}

// group is the changes of one table: one kind, one route (Gateway, Backend, proxy).
type group struct {
	title   string
	changes []Change
}

// groups splits sorted changes into tables, in order of first appearance.
func groups(changes []Change) []group {
	var out []group
	index := map[string]int{}
	for i := range changes {
		c := &changes[i]
		title := c.shape().Title(c)
		i, ok := index[title]
		if !ok {
			i = len(out)
			index[title] = i
			out = append(out, group{title: title})
		}
		out[i].changes = append(out[i].changes, *c)
	}
	return out
}

// valueText is a value as compact JSON, cut at maxValue characters.
func valueText(x interface{}) string {
	b, err := json.Marshal(x)
	val := string(b)
	if err != nil {
		val = fmt.Sprint(x)
	}
	if r := []rune(val); len(r) > maxValue {
		val = string(r[:maxValue-1]) + "…"
	}
	return val
}

// Markdown writes the report as a pull-request comment: the summary line, then a table per route
// (Gateway without route, Backend, proxy); tables, errors and warnings longer than FoldAbove lines
// are folded in <details>. Every string from the input is escaped.
func Markdown(w io.Writer, r *Report) error {
	var b strings.Builder
	b.WriteString("**precedent diff**: " + md(r.SummaryLine()) + "\n")
	list := func(title string, lines []string) {
		if len(lines) == 0 {
			return
		}
		b.WriteString("\n")
		fold := len(lines) > FoldAbove
		if fold {
			fmt.Fprintf(&b, "<details><summary>%s (%d)</summary>\n\n", title, len(lines))
		} else {
			fmt.Fprintf(&b, "%s:\n\n", title)
		}
		for _, l := range lines {
			b.WriteString("- " + md(l) + "\n")
		}
		if fold {
			b.WriteString("\n</details>\n")
		}
	}
	list("Errors the webhook would reject", r.Errors)
	for _, g := range groups(r.Changes) {
		b.WriteString("\n")
		fold := len(g.changes) > FoldAbove
		if fold {
			fmt.Fprintf(&b, "<details><summary>%s: %d changes</summary>\n\n", md(g.title), len(g.changes))
		} else {
			fmt.Fprintf(&b, "#### %s\n\n", md(g.title))
		}
		shape := g.changes[0].shape()
		cols := shape.Columns()
		b.WriteString("| " + strings.Join(cols, " | ") + " |\n|" + strings.Repeat(" --- |", len(cols)) + "\n")
		for i := range g.changes {
			c := &g.changes[i]
			cs := shape.Cells(c)
			for j := range cs {
				cs[j] = md(cs[j])
			}
			cs[len(cs)-2], cs[len(cs)-1] = mdValue(c.Before, shape), mdValue(c.After, shape)
			b.WriteString("| " + strings.Join(cs, " | ") + " |\n")
		}
		if fold {
			b.WriteString("\n</details>\n")
		}
	}
	writeDiagram(&b, r.Diagram)
	warns, notes := warning.Notes(r.Warnings)
	list("Warnings", warns)
	list("Notes", notes)
	_, err := io.WriteString(w, b.String())
	return err
}

// writeDiagram embeds a Mermaid diagram as a ```mermaid block (GitHub renders it), fenced with more
// backticks than any run in the diagram so nothing in it ends the block; nothing when it is empty.
func writeDiagram(b *strings.Builder, diagram string) {
	if diagram == "" {
		return
	}
	fence, run := "```", ""
	for _, r := range diagram {
		if r != '`' {
			run = ""
			continue
		}
		if run += "`"; len(run) >= len(fence) {
			fence = run + "`"
		}
	}
	b.WriteString("\n#### Paths the change touches, after it\n\n")
	b.WriteString(fence + "mermaid\n" + strings.TrimSuffix(diagram, "\n") + "\n" + fence + "\n")
}

// mdEscaper escapes what Markdown (GitHub's, with HTML) would read as markup.
var mdEscaper = strings.NewReplacer(
	"\\", "\\\\", "`", "\\`", "*", "\\*", "_", "\\_", "[", "\\[", "]", "\\]", "|", "\\|",
	"<", "&lt;", ">", "&gt;", "&", "&amp;", "#", "\\#", "~", "\\~",
)

// mdValue renders one side of a change in Markdown: "-" for none.
func mdValue(v *Value, s Shape) string {
	if v == nil {
		return md(Text(v, s))
	}
	return s.Markdown(v)
}

// mdCode renders a value in Markdown: the value as code, then where it came from.
func mdCode(v *Value) string {
	return "<code>" + htmlEscaper.Replace(printable.String(valueText(v.Value))) + "</code> from " + md(v.From)
}

// htmlEscaper escapes text inside an HTML element of a Markdown table cell.
var htmlEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", "|", "&#124;", "\\", "&#92;", "`", "&#96;")

// md makes an untrusted string one safe line of Markdown text.
func md(s string) string { return mdEscaper.Replace(printable.String(s)) }

// Table writes the report for a terminal: the summary line, then one aligned table per shape of
// change (Gateway API paths, and each profile's own shapes), errors and warnings. Every string
// from the input is escaped (printable.String). Unless wide, the values before and after are left
// out and one FROM column names the policies they come from (to fit 120 columns); wide shows them.
func Table(w io.Writer, r *Report, wide bool) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, printable.String(r.SummaryLine()))
	var last Shape
	for i := range r.Changes {
		c := &r.Changes[i]
		if s := c.shape(); i == 0 || s != last {
			last = s
			fmt.Fprintln(tw)
			cols := s.TableColumns()
			if !wide {
				cols = append(cols[:len(cols)-2:len(cols)-2], "from")
			}
			fmt.Fprintln(tw, strings.ToUpper(strings.Join(cols, "\t")))
		}
		cs := last.TableCells(c)
		if !wide {
			cs = append(cs[:len(cs)-2:len(cs)-2], sources(c.Before, c.After))
		}
		for j := range cs {
			cs[j] = printable.String(dash(cs[j]))
		}
		fmt.Fprintln(tw, strings.Join(cs, "\t"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, e := range r.Errors {
		fmt.Fprintln(w, printable.String(e))
	}
	warns, notes := warning.Notes(r.Warnings)
	for _, wn := range warns {
		fmt.Fprintln(w, "Warning: "+printable.String(wn))
	}
	for _, n := range notes {
		fmt.Fprintln(w, "Note: "+printable.String(n))
	}
	return nil
}

// sources names where the sides of a change come from: the policy (or the decision and the
// policy deciding it), "before → after" when they differ.
func sources(before, after *Value) string {
	b, a := source(before), source(after)
	switch {
	case before == nil:
		return a
	case after == nil || a == b:
		return b
	}
	return b + " → " + a
}

func source(v *Value) string {
	switch {
	case v == nil:
		return ""
	case v.From != "":
		return v.From
	case v.Policy != "":
		return v.Decision + " (" + v.Policy + ")"
	}
	return v.Decision
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
