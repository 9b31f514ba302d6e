package install

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/profiles"
)

// configCRDs are the PrecedentConfig CRD's copies, relative to the repository root.
var configCRDs = []string{
	filepath.Join("config", "crd", "precedentconfig.yaml"),
	filepath.Join("charts", "precedent", "crds", "precedentconfig.yaml"),
}

// generatedLine finds, in a hand-written file, each line written by the generator: the line after
// a "# generated from the profiles' table" comment (indent, marker, YAML key).
var generatedLine = regexp.MustCompile("(?m)^([ ]*# generated from the profiles' table by `make generate`: do not edit\n[ ]*)([a-z]+): .*$")

// configCRD is the PrecedentConfig CRD at path with the lines the profiles' table defines rewritten:
// spec.kinds[].profile's enum (the names a kind line may take, so that the API server refuses any
// other before the webhook sees it) and spec.kinds[].status's description (which profiles have a
// status writer, and the default of each).
func configCRD(root, path string) ([]byte, error) {
	b, err := os.ReadFile(filepath.Join(root, path))
	if err != nil {
		return nil, err
	}
	lines := map[string]string{
		"enum":        "[" + strings.Join(profiles.Names(), ", ") + "]",
		"description": statusDescription(),
	}
	seen := map[string]int{}
	out := generatedLine.ReplaceAllFunc(b, func(m []byte) []byte {
		sub := generatedLine.FindSubmatch(m)
		key := string(sub[2])
		v, ok := lines[key]
		if !ok {
			return m
		}
		seen[key]++
		return fmt.Appendf(nil, "%s%s: %s", sub[1], key, v)
	})
	for key := range lines {
		if seen[key] != 1 {
			return nil, fmt.Errorf("%s: want one generated %s line (after the marker comment), found %d", path, key, seen[key])
		}
	}
	return out, nil
}

// statusDescription describes spec.kinds[].status from the profiles' models.
func statusDescription() string {
	var writers, none []string
	for name, m := range profiles.Models() {
		if m.Status != nil {
			writers = append(writers, string(name))
		}
		if m.Status == nil || m.Status.Default == policy.StatusNone {
			none = append(none, string(name))
		}
	}
	slices.Sort(writers)
	slices.Sort(none)
	return fmt.Sprintf("what the reconciler writes for this kind; full only for a profile with a status writer (%s); default none for %s, full otherwise",
		strings.Join(writers, ", "), strings.Join(none, ", "))
}
