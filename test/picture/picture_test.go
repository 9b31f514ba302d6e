// Package picture_test renders the pictures of `precedent effective -o dot|mermaid` for every sample
// set with the tools that draw them: Graphviz's dot must render the DOT to SVG, and Mermaid's own
// parser must accept the Mermaid (the Makefile's picture-tools installs both).
package picture_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/precedent-dev/precedent/test/harness"
)

func TestPicturesRender(t *testing.T) {
	dot, err := exec.LookPath("dot")
	if err != nil {
		t.Fatalf("Graphviz's dot is needed (make picture-tools): %v", err)
	}
	check := os.Getenv("PRECEDENT_MERMAID_CHECK")
	if _, err := os.Stat(check); check == "" || err != nil {
		t.Fatalf("Mermaid's parser is needed (make picture-tools sets PRECEDENT_MERMAID_CHECK): %q %v", check, err)
	}
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
				var cmd *exec.Cmd
				if format == "dot" {
					cmd = exec.Command(dot, "-Tsvg", "-o", file+".svg", file)
				} else {
					cmd = exec.Command("node", check, file)
					cmd.Dir = filepath.Dir(check) // where mermaid and jsdom are installed
				}
				if b, err := cmd.CombinedOutput(); err != nil {
					t.Errorf("-o %s does not render: %v\n%s\n%s", format, err, b, out)
				}
				if format == "dot" {
					if svg, err := os.ReadFile(file + ".svg"); err != nil || !strings.Contains(string(svg), "<svg") {
						t.Errorf("dot wrote no SVG: %v", err)
					}
				}
			}
		})
	}
}
