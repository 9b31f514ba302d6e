package docs

import (
	"fmt"
	"regexp"
	"strings"
)

// A command block is a fenced code block of a markdown file whose first line starts with "$ ": each
// "$ " line is a command (a line ending in a backslash continues on the next), and the lines after
// it, up to the next "$ " line or the fence's end, are what it prints. A line "..." in what it
// prints stands for any number of lines, so a trailing "..." compares a prefix.

// Modes of a block, set by a marker comment on the line before its fence.
const (
	offline = ""        // run with the built binary, no cluster
	cluster = "cluster" // <!-- doc-test: cluster -->: run against the cluster `make run` starts
	skip    = "skip"    // <!-- doc-test: skip REASON -->: not run, listed with the reason
)

// elision is the line that stands for any number of lines of output.
const elision = "..."

type block struct {
	file   string
	line   int    // 1-based line of the opening fence
	indent string // the fence's indentation, which every line of the block carries
	mode   string
	reason string // why a skipped block is not run
	cmds   []command
}

type command struct {
	line int    // 1-based line of the "$ " line
	text string // the command, continuation lines joined with newlines
	want []string
	// from and to are the 0-based lines of the file that hold want, [from, to).
	from, to int
}

var marker = regexp.MustCompile(`^<!--\s*doc-test:\s*(\S+)\s*(.*?)\s*-->$`)

// parse returns the command blocks of a markdown file's lines.
func parse(file string, lines []string) ([]block, error) {
	var out []block
	for i := 0; i < len(lines); i++ {
		trimmed := strings.TrimLeft(lines[i], " ")
		if !strings.HasPrefix(trimmed, "```") {
			continue
		}
		indent := lines[i][:len(lines[i])-len(trimmed)]
		end := i + 1
		for end < len(lines) && strings.TrimSpace(lines[end]) != "```" {
			end++
		}
		if end == len(lines) {
			return nil, fmt.Errorf("%s:%d: the code block is not closed", file, i+1)
		}
		b := block{file: file, line: i + 1, indent: indent}
		if i > 0 {
			if m := marker.FindStringSubmatch(strings.TrimSpace(lines[i-1])); m != nil {
				b.mode, b.reason = m[1], m[2]
				if b.mode != cluster && b.mode != skip {
					return nil, fmt.Errorf("%s:%d: unknown doc-test marker %q (cluster or skip)", file, i, m[1])
				}
				if b.mode == skip && b.reason == "" {
					return nil, fmt.Errorf("%s:%d: a skipped block needs a reason: <!-- doc-test: skip REASON -->", file, i)
				}
			}
		}
		body := func(j int) string { return strings.TrimPrefix(lines[j], indent) }
		if i+1 < end && strings.HasPrefix(body(i+1), "$ ") {
			for j := i + 1; j < end; {
				c := command{line: j + 1, text: strings.TrimPrefix(body(j), "$ ")}
				for strings.HasSuffix(c.text, `\`) && j+1 < end {
					j++
					c.text += "\n" + body(j)
				}
				j++
				c.from = j
				for j < end && !strings.HasPrefix(body(j), "$ ") {
					c.want = append(c.want, body(j))
					j++
				}
				c.to = j
				b.cmds = append(b.cmds, c)
			}
			out = append(out, b)
		} else if b.mode != offline {
			return nil, fmt.Errorf("%s:%d: a doc-test marker before a block with no $ command", file, i)
		}
		i = end
	}
	return out, nil
}

// matches reports whether got is what want says, a line "..." of want standing for any number of
// lines of got.
func matches(want, got []string) bool {
	if len(want) == 0 {
		return len(got) == 0
	}
	if want[0] == elision {
		for k := 0; k <= len(got); k++ {
			if matches(want[1:], got[k:]) {
				return true
			}
		}
		return false
	}
	return len(got) > 0 && want[0] == got[0] && matches(want[1:], got[1:])
}

// rewritten is what -update writes for a command whose output got does not match want: got, with
// the abbreviation of want kept (as many lines before the first "..." and after the last as want
// has, when got has that many).
func rewritten(want, got []string) []string {
	first, last := -1, -1
	for i, l := range want {
		if l == elision {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	if first < 0 {
		return got
	}
	head, tail := first, len(want)-last-1
	if head+tail >= len(got) {
		return got
	}
	out := append([]string(nil), got[:head]...)
	out = append(out, elision)
	return append(out, got[len(got)-tail:]...)
}

// unified is a unified diff of want (the file's lines, from its line from) and got.
func unified(file string, from int, want, got []string) string {
	// The longest common subsequence, by dynamic programming: outputs are short.
	n, m := len(want), len(got)
	lcs := make([][]int, n+1)
	for i := range lcs {
		lcs[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if want[i] == got[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "--- %s:%d (written)\n+++ %s:%d (printed)\n@@ -%d,%d +%d,%d @@\n", file, from, file, from, from, n, from, m)
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && want[i] == got[j]:
			b.WriteString(" " + want[i] + "\n")
			i++
			j++
		case j < m && (i == n || lcs[i][j+1] >= lcs[i+1][j]):
			b.WriteString("+" + got[j] + "\n")
			j++
		default:
			b.WriteString("-" + want[i] + "\n")
			i++
		}
	}
	return b.String()
}
