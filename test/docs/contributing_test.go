package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// root is the repository root (this package is test/docs).
var root = filepath.Join("..", "..")

// exampleModel is the folder the checklist names as the example to copy.
const exampleModel = "kgateway"

var backticked = regexp.MustCompile("`([^`]+)`")

// checklist is the "Add a model" section of CONTRIBUTING.md.
func checklist(t *testing.T) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(root, "CONTRIBUTING.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(raw), "\n## Add a model\n")
	if !ok {
		t.Fatal(`CONTRIBUTING.md has no "## Add a model" section`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	return section
}

// between is the text of s between the marker lines <!-- checklist: from --> and the next marker.
func between(t *testing.T, s, from string) string {
	t.Helper()
	_, rest, ok := strings.Cut(s, "<!-- checklist: "+from+" -->\n")
	if !ok {
		t.Fatalf("the checklist has no <!-- checklist: %s --> marker", from)
	}
	rest, _, _ = strings.Cut(rest, "<!-- checklist: ")
	return rest
}

// TestAddAModelChecklist: the files the checklist says a profile folder holds are what
// profiles/kgateway holds, its registration line is the one in profiles/profiles.go's table, and
// every path it names for kgateway exists.
func TestAddAModelChecklist(t *testing.T) {
	section := checklist(t)

	// The folder's files: the names in backquotes before each item's colon (a name holding "<" is the
	// pattern, not the example's file).
	var listed []string
	for _, line := range strings.Split(between(t, section, "files"), "\n") {
		item, ok := strings.CutPrefix(strings.TrimSpace(line), "- ")
		if !ok {
			continue
		}
		head, _, _ := strings.Cut(item, ":")
		for _, m := range backticked.FindAllStringSubmatch(head, -1) {
			if !strings.Contains(m[1], "<") {
				listed = append(listed, m[1])
			}
		}
	}
	entries, err := os.ReadDir(filepath.Join(root, "profiles", exampleModel))
	if err != nil {
		t.Fatal(err)
	}
	var held []string
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() {
			name += "/"
		}
		held = append(held, name)
	}
	sort.Strings(listed)
	sort.Strings(held)
	if diff := cmp.Diff(held, listed); diff != "" {
		t.Errorf("CONTRIBUTING.md's checklist lists other files than profiles/%s holds (-folder +checklist):\n%s", exampleModel, diff)
	}

	// The registration line, in the table of profiles/profiles.go.
	reg := between(t, section, "registration")
	_, code, ok := strings.Cut(reg, "```go\n")
	if !ok {
		t.Fatal("the registration step has no ```go block")
	}
	code, _, _ = strings.Cut(code, "```")
	line := strings.TrimSpace(code)
	table, err := os.ReadFile(filepath.Join(root, "profiles", "profiles.go"))
	if err != nil {
		t.Fatal(err)
	}
	_, block, ok := strings.Cut(string(table), "var registered = []profile.Profile{\n")
	if !ok {
		t.Fatal("profiles/profiles.go has no table `var registered = []profile.Profile{`")
	}
	block, _, _ = strings.Cut(block, "\n}\n")
	found := false
	for _, l := range strings.Split(block, "\n") {
		if strings.TrimSpace(l) == line {
			found = true
		}
	}
	if !found {
		t.Errorf("the checklist's registration line %q is not a line of profiles/profiles.go's table:\n%s", line, block)
	}

	// Every path the checklist names (a backquoted name with a slash, no pattern) exists.
	for _, m := range backticked.FindAllStringSubmatch(section, -1) {
		p := m[1]
		if !strings.Contains(strings.TrimSuffix(p, "/"), "/") || strings.ContainsAny(p, "< (") || strings.HasPrefix(p, "-") {
			continue
		}
		if _, err := os.Stat(filepath.Join(root, p)); err != nil {
			t.Errorf("the checklist names %s, which does not exist: %v", p, err)
		}
	}
}
