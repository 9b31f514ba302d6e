package reconcile_test

import "strings"

// splitDocs splits a multi-document YAML string.
func splitDocs(y string) []string {
	var out []string
	for _, d := range strings.Split(y, "\n---\n") {
		if strings.TrimSpace(d) != "" {
			out = append(out, d)
		}
	}
	return out
}
