package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var (
	link    = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	heading = regexp.MustCompile(`^#{1,6} (.+)$`)
	notSlug = regexp.MustCompile(`[^\p{L}\p{N} _-]`)
)

// TestLinks: every relative link of README.md, CONTRIBUTING.md and docs/ names a file that exists
// and, with a #fragment into a markdown file, an anchor one of its headings gives (as GitHub makes
// them: lower case, punctuation dropped, spaces as hyphens).
func TestLinks(t *testing.T) {
	files := append(markdownFiles(t), "CONTRIBUTING.md")
	for _, f := range files {
		raw, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		fence := false
		for i, line := range strings.Split(string(raw), "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), "```") {
				fence = !fence
			}
			if fence {
				continue
			}
			for _, m := range link.FindAllStringSubmatch(line, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				path, anchor, _ := strings.Cut(target, "#")
				file := filepath.Join(root, filepath.Dir(f), path)
				if path == "" {
					file = filepath.Join(root, f)
				}
				if _, err := os.Stat(file); err != nil {
					t.Errorf("%s:%d: the link %s names no file: %v", f, i+1, target, err)
					continue
				}
				if anchor != "" && strings.HasSuffix(file, ".md") && !anchors(t, file)[anchor] {
					t.Errorf("%s:%d: the link %s names no heading of %s", f, i+1, target, path)
				}
			}
		}
	}
}

// anchors are the anchors of a markdown file's headings.
func anchors(t *testing.T, file string) map[string]bool {
	t.Helper()
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	fence := false
	for _, line := range strings.Split(string(raw), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fence = !fence
		}
		if m := heading.FindStringSubmatch(line); m != nil && !fence {
			slug := strings.ReplaceAll(notSlug.ReplaceAllString(strings.ToLower(m[1]), ""), " ", "-")
			out[slug] = true
		}
	}
	return out
}
