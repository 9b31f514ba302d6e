package effective

import (
	"sort"

	"github.com/precedent-dev/precedent/policy"
)

func sortedIDs(m map[string]interface{}) []string {
	ids := make([]string, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

func entryBodies(m map[string]Entry) map[string]interface{} {
	out := make(map[string]interface{}, len(m))
	for id, e := range m {
		out[id] = e.Body
	}
	return out
}

// holders lists the distinct policies holding rules of ep, sorted.
func holders(ep map[string]Entry) []policy.Ref {
	seen := map[policy.Ref]bool{}
	var out []policy.Ref
	for _, e := range ep {
		if !seen[e.Source] {
			seen[e.Source] = true
			out = append(out, e.Source)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out
}
