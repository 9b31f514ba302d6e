package envoygateway

import (
	"fmt"
	"strings"

	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/profile"
	"github.com/precedent-dev/precedent/internal/vap"
	engine "github.com/precedent-dev/precedent/profiles/envoygateway/engine"
)

// routeKindList are the kinds on which Envoy Gateway's CRDs allow mergeType, as a CEL list.
var routeKindList = "['HTTPRoute', 'GRPCRoute', 'TCPRoute', 'UDPRoute', 'TLSRoute']"

// isRoute is CEL true for a target reference or selector x of a route kind.
func isRoute(x string) string {
	return fmt.Sprintf("(type(%[1]s) == map && has(%[1]s.kind) && %[1]s.kind in %[2]s)", x, routeKindList)
}

// withoutMergeType is the CEL of engine.DefaultMergeType's condition: no mergeType (or an empty
// one), some target, and every target (spec.targetRef when set, else spec.targetRefs) and every
// targetSelector of a route kind.
var withoutMergeType = strings.Join([]string{
	"has(object.spec) && (!has(object.spec.mergeType) || object.spec.mergeType == '')",
	"(has(object.spec.targetRef) || (has(object.spec.targetRefs) && type(object.spec.targetRefs) == list && size(object.spec.targetRefs) > 0) || " +
		"(has(object.spec.targetSelectors) && type(object.spec.targetSelectors) == list && size(object.spec.targetSelectors) > 0))",
	"(has(object.spec.targetRef) ? " + isRoute("object.spec.targetRef") +
		" : (!has(object.spec.targetRefs) || (type(object.spec.targetRefs) == list && object.spec.targetRefs.all(t, " + isRoute("t") + "))))",
	"(!has(object.spec.targetSelectors) || (type(object.spec.targetSelectors) == list && object.spec.targetSelectors.all(s, " + isRoute("s") + ")))",
}, " && ")

// mergeTypeDefault is the mergeType default of value as a MutatingAdmissionPolicy's defaulting.
func mergeTypeDefault(value string) vap.Defaulting {
	return vap.Defaulting{
		ID: "default-merge-type",
		Message: "spec.mergeType defaults to the kind line's defaults.mergeType on policies whose targets are all routes " +
			"(envoy-gateway kinds whose PrecedentConfig line sets it; not ClientTrafficPolicy)",
		Condition: withoutMergeType,
		Patch:     "[" + vap.AddPatch("'/spec/mergeType'", "'"+value+"'") + "]",
		Profiles:  []policy.ProfileName{Name},
	}
}

// MutatingTargets: the mergeType default of each kind whose line sets one (as Webhooks registers
// the mutating webhook for them).
func (Profile) MutatingTargets(kinds []policy.Kind, _ bool) []vap.MutatingTarget {
	var out []vap.MutatingTarget
	for _, k := range kinds {
		if v, ok := defaulted(k); ok {
			out = append(out, vap.MutatingTarget{GK: k.GVK.GroupKind(), Version: k.GVK.Version, Resource: profile.Plural(k.GVK.Kind), Default: mergeTypeDefault(v)})
		}
	}
	return out
}

// Defaultings: the mergeType default, off unless a kind line sets it.
func (Profile) Defaultings() []vap.Defaulting {
	return []vap.Defaulting{mergeTypeDefault(string(engine.StrategicMerge))}
}
