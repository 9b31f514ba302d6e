package effective

import (
	"sort"

	"github.com/precedent-dev/precedent/internal/policy"
)

// Holders are the policies the entries of ep come from, sorted by namespace/name.
func Holders(ep map[string]Entry) []policy.Ref { return holders(ep) }

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
