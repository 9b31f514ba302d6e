// Package picture_test renders the pictures of `precedent effective -o dot|mermaid` for every sample
// set, and the Mermaid that `precedent diff -o markdown` embeds, with the parsers of what draws them:
// the DOT must parse as one graph of nodes and edges with a DOT grammar's parser (gonum's
// graph/formats/dot, from the Go module proxy), and Mermaid's own parser must accept the Mermaid
// (the Makefile's picture-tools installs it from the npm registry). Nothing needs root.
package picture_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/graph/formats/dot"
	"gonum.org/v1/gonum/graph/formats/dot/ast"

	"github.com/precedent-dev/precedent/test/harness"
)

// parsesAsDOT says what is wrong with src as the DOT of one directed graph.
func parsesAsDOT(src string) error {
	f, err := dot.ParseString(src)
	if err != nil {
		return err
	}
	if len(f.Graphs) != 1 {
		return fmt.Errorf("%d graphs, want 1", len(f.Graphs))
	}
	g := f.Graphs[0]
	nodes, edges := 0, 0
	var count func(stmts []ast.Stmt)
	count = func(stmts []ast.Stmt) {
		for _, st := range stmts {
			switch x := st.(type) {
			case *ast.NodeStmt:
				nodes++
			case *ast.EdgeStmt:
				edges++
			case *ast.Subgraph:
				count(x.Stmts)
			}
		}
	}
	count(g.Stmts)
	// A sample set whose models draw no path gives an empty graph; one that does, nodes and edges.
	if !g.Directed || (strings.Contains(src, "->") && (nodes == 0 || edges == 0)) {
		return fmt.Errorf("directed %t, %d nodes, %d edges: want a directed graph, with nodes and edges where it draws any", g.Directed, nodes, edges)
	}
	return nil
}

func TestPicturesRender(t *testing.T) {
	check := mermaidCheck(t)
	bin, err := harness.BuildPrecedent(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	sets, err := filepath.Glob("../../config/samples/*")
	if err != nil || len(sets) == 0 {
		t.Fatalf("no sample sets: %v", err)
	}
	dir := t.TempDir()
	for _, set := range sets {
		name := filepath.Base(set)
		t.Run(name, func(t *testing.T) {
			for _, format := range []string{"dot", "mermaid"} {
				out, code := harness.RunPrecedent(t, bin, "effective", "-f", set, "-o", format)
				if code != 0 {
					t.Fatalf("-o %s: exit %d", format, code)
				}
				file := filepath.Join(dir, name+"."+format)
				if err := os.WriteFile(file, []byte(out), 0o600); err != nil {
					t.Fatal(err)
				}
				if format == "dot" {
					if err := parsesAsDOT(out); err != nil {
						t.Errorf("-o dot does not parse: %v\n%s", err, out)
					}
					continue
				}
				cmd := exec.Command("node", check, file)
				cmd.Dir = filepath.Dir(check) // where mermaid and jsdom are installed
				if b, err := cmd.CombinedOutput(); err != nil {
					t.Errorf("-o %s does not render: %v\n%s\n%s", format, err, b, out)
				}
			}
		})
	}
}

// TestDiffMarkdownMermaid: the ```mermaid block of `precedent diff -o markdown` (the PR comment) for
// cmd/precedent's diff fixtures and for sample sets against an empty base parses with Mermaid's parser.
func TestDiffMarkdownMermaid(t *testing.T) {
	check := mermaidCheck(t)
	bin, err := harness.BuildPrecedent(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	empty := t.TempDir()
	if err := os.WriteFile(filepath.Join(empty, "empty.yaml"), []byte("# no policy before the change\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: unrelated\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, tc := range []struct{ name, base, head string }{
		{"diff fixtures", "../../cmd/precedent/testdata/diff/base", "../../cmd/precedent/testdata/diff/head"},
		{"rfc samples added", empty, "../../config/samples/rfc"},
		{"gep713 samples added", empty, "../../config/samples/gep713"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, code := harness.RunPrecedent(t, bin, "diff", "--base", tc.base, "--head", tc.head, "-o", "markdown")
			if code != 1 {
				t.Fatalf("exit %d, want 1 (changes)\n%s", code, out)
			}
			block := mermaidBlock(out)
			if block == "" {
				t.Fatalf("no ```mermaid block in the markdown:\n%s", out)
			}
			file := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-")+".mmd")
			if err := os.WriteFile(file, []byte(block), 0o600); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command("node", check, file)
			cmd.Dir = filepath.Dir(check)
			if b, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("the embedded Mermaid does not parse: %v\n%s\n%s", err, b, block)
			}
		})
	}
}

// mermaidBlock is the body of the first ```mermaid fenced block of markdown ("" when none).
func mermaidBlock(markdown string) string {
	_, rest, ok := strings.Cut(markdown, "```mermaid\n")
	if !ok {
		return ""
	}
	body, _, _ := strings.Cut(rest, "\n```")
	return body + "\n"
}

// mermaidCheck is the Mermaid parser script picture-tools installs.
func mermaidCheck(t *testing.T) string {
	t.Helper()
	check := os.Getenv("PRECEDENT_MERMAID_CHECK")
	if _, err := os.Stat(check); check == "" || err != nil {
		t.Fatalf("Mermaid's parser is needed (make picture-tools sets PRECEDENT_MERMAID_CHECK): %q %v", check, err)
	}
	return check
}
