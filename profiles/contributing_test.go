package profiles

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestContributingChecklist: CONTRIBUTING.md's "Add a policy model" lists the files of its worked
// example's folder, and they are the folder's (its tests aside); its registration line is the
// table's; and every registered model has its guide in docs/profiles and a line in
// docs/architecture.md's table.
func TestContributingChecklist(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "CONTRIBUTING.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	_, block, ok := strings.Cut(doc, "<!-- model-files: ")
	if !ok {
		t.Fatal("CONTRIBUTING.md has no model-files block")
	}
	model, block, _ := strings.Cut(block, " ")
	block, _, _ = strings.Cut(block, "<!-- end model-files -->")
	var listed []string
	for _, l := range strings.Split(block, "\n") {
		if name, ok := strings.CutPrefix(l, "- `"); ok {
			name, _, _ = strings.Cut(name, "`")
			listed = append(listed, name)
		}
	}
	entries, err := os.ReadDir(model)
	if err != nil {
		t.Fatal(err)
	}
	var held []string
	for _, e := range entries {
		switch {
		case e.IsDir():
			held = append(held, e.Name()+"/")
		case strings.HasSuffix(e.Name(), "_test.go"):
		default:
			held = append(held, e.Name())
		}
	}
	sort.Strings(listed)
	sort.Strings(held)
	if d := cmp.Diff(held, listed); d != "" {
		t.Errorf("CONTRIBUTING.md's files of profiles/%s (-folder +checklist):\n%s", model, d)
	}

	table, err := os.ReadFile("profiles.go")
	if err != nil {
		t.Fatal(err)
	}
	line := model + ".Profile{},"
	if !strings.Contains(doc, "`"+line+"`") || !strings.Contains(string(table), "\t"+line+"\n") {
		t.Errorf("the registration line %q is not both in CONTRIBUTING.md and in the table of profiles.go", line)
	}

	arch, err := os.ReadFile(filepath.Join("..", "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	folders, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range folders {
		if _, err := os.Stat(filepath.Join(f.Name(), "engine")); !f.IsDir() || err != nil {
			continue // a model's folder holds its engine
		}
		if !strings.Contains(string(arch), "| `profiles/"+f.Name()+"` |") {
			t.Errorf("docs/architecture.md's table has no line for profiles/%s", f.Name())
		}
	}
}
