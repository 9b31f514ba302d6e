package engine

import (
	"gomodules.xyz/jsonpatch/v2"
)

// DefaultMergeType gives a route-targeted policy without mergeType the configured default
// (envoyproxy/gateway #9334: a cluster-wide default mergeType), as JSON patch operations. It
// returns nothing for ClientTrafficPolicy (no mergeType), for a policy that sets mergeType, for a
// policy with any non-route target (CEL would refuse the default there), and for an empty or
// invalid default.
func DefaultMergeType(p *Policy, def MergeType) []jsonpatch.Operation {
	if (def != StrategicMerge && def != JSONMerge) || p.Kind == ClientTrafficPolicy || p.MergeType != "" {
		return nil
	}
	if len(p.Targets) == 0 && len(p.Selectors) == 0 {
		return nil
	}
	for _, t := range p.Targets {
		if !routeKinds[t.Kind] {
			return nil
		}
	}
	for _, s := range p.Selectors {
		if !routeKinds[s.Kind] {
			return nil
		}
	}
	return []jsonpatch.Operation{jsonpatch.NewOperation("add", "/spec/mergeType", string(def))}
}
