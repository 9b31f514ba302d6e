package engine

import (
	"sort"
)

// Mode is a value of the inherited-policy-priority annotation.
type Mode string

// The four modes (api/annotations InheritedPolicyPriorityValue); ShallowMergePreferChild is the
// default of a missing or unknown value (GetMergeStrategy's default case).
const (
	ShallowPreferChild  Mode = "ShallowMergePreferChild"
	ShallowPreferParent Mode = "ShallowMergePreferParent"
	DeepPreferChild     Mode = "DeepMergePreferChild"
	DeepPreferParent    Mode = "DeepMergePreferParent"
)

// ParseMode reads an annotation value; unknown values are the default, as kgateway takes them.
func ParseMode(v string) Mode {
	switch m := Mode(v); m {
	case ShallowPreferParent, DeepPreferChild, DeepPreferParent:
		return m
	}
	return ShallowPreferChild
}

// PrefersParent reports whether the parent's fields replace the child's (the Overridable
// strategies of GetMergeStrategy).
func (m Mode) PrefersParent() bool { return m == ShallowPreferParent || m == DeepPreferParent }

func (m Mode) deep() bool { return m == DeepPreferChild || m == DeepPreferParent }

// deepFields are the TrafficPolicy fields kgateway v2.2 deep-merges under the DeepMerge modes
// (pkg/kgateway/extensions2/plugins/trafficpolicy/merge.go): the transformation filter key by key
// (mergeTransformation), and extAuth and extProc provider by provider (mergeExtAuth, mergeExtProc:
// a parent's provider that the child's value does not name runs beside it, the preferred level's
// first). Every other field, under either DeepMerge mode, keeps the child's value where the child
// sets it (defaultMerge returns when p1 is set), so DeepMergePreferParent prefers the parent only in
// these. (Within one level extAuth, extProc and acl deep-merge only when the controller's
// Settings.PolicyMerge asks, which a cluster's objects do not show; the engine keeps them shallow.)
var deepFields = map[string]bool{"transformation": true, "extAuth": true, "extProc": true}

// Value is one effective field: its value and the policies it comes from (several when deep-merged),
// most preferred first.
type Value struct {
	Value   interface{}
	Sources []Key
}

// Displacement is a field of a policy that the fold dropped: By's value is kept instead, because
// Owner (a parent route or a Gateway) sets Mode, or because By is the more specific or older
// policy at the same level (Owner empty).
type Displacement struct {
	Field  string
	Policy Key
	By     Key
	Owner  string
	Mode   Mode
}

// Level is one hierarchy level of a path: its policies in priority order (most specific, then
// oldest, then by name: the order pkg/krtcollections/policy.go establishes before merging) and
// the annotation of its owner, which says how the levels below inherit it.
type Level struct {
	Owner    string // "route ns/name" or "gateway ns/name"
	Mode     Mode
	Policies []*Policy
}

// Result is the fold of a path.
type Result struct {
	Fields    map[string]Value
	Displaced []Displacement
}

// Fold merges the levels of a path, most specific level first, as MergePolicies does: each level
// alone with AugmentedShallowMerge (the first policy setting a field keeps it, merge's
// sameHierarchy pass), then the levels in order with the strategy of each parent level's owner
// (GetMergeStrategy with sameHierarchy false; IsMergeable decides whether a field is replaced).
func Fold(levels []Level) Result {
	res := Result{Fields: map[string]Value{}}
	for li, l := range levels {
		merged := map[string]Value{}
		for _, p := range l.Policies {
			for _, f := range p.FieldNames() {
				if kept, ok := merged[f]; ok {
					res.Displaced = append(res.Displaced, Displacement{Field: f, Policy: p.Ref, By: kept.Sources[0]})
					continue
				}
				merged[f] = Value{Value: p.Fields[f], Sources: []Key{p.Ref}}
			}
		}
		if li == 0 {
			res.Fields = merged
			continue
		}
		for _, f := range sortedFields(merged) {
			res.merge(f, merged[f], l)
		}
	}
	return res
}

// merge folds the parent level l's value v of field f into the result.
func (res *Result) merge(f string, v Value, l Level) {
	cur, set := res.Fields[f]
	switch {
	case !set:
		res.Fields[f] = v
	case besideGateway(f, cur, v, l):
		// two filters run, the routes' provider's and the Gateway's: both values are in effect
		res.Fields[f] = Value{Value: []interface{}{cur.Value, v.Value}, Sources: append(append([]Key(nil), cur.Sources...), v.Sources...)}
	case l.Mode.deep() && deepFields[f] && providerPaths[f] != nil:
		// mergeExtAuth/mergeExtProc: the parent's provider joins unless the child's names it already
		a, b := provider(f, cur.Value, cur.Sources[0].Namespace), provider(f, v.Value, v.Sources[0].Namespace)
		if a == "" || b == "" || a == b {
			res.displace(f, v, cur, l)
			return
		}
		first, second := cur, v
		if l.Mode.PrefersParent() {
			first, second = v, cur
		}
		res.Fields[f] = Value{Value: []interface{}{first.Value, second.Value}, Sources: append(append([]Key(nil), first.Sources...), second.Sources...)}
	case l.Mode.deep() && deepFields[f]:
		child, parent := cur, v
		if l.Mode.PrefersParent() {
			res.Fields[f] = Value{Value: deepMerge(parent.Value, child.Value), Sources: append(append([]Key(nil), parent.Sources...), child.Sources...)}
		} else {
			res.Fields[f] = Value{Value: deepMerge(child.Value, parent.Value), Sources: append(append([]Key(nil), child.Sources...), parent.Sources...)}
		}
	case l.Mode.deep():
		res.displace(f, v, cur, l) // defaultMerge under a DeepMerge mode: the child's value holds
	case l.Mode.PrefersParent():
		for _, s := range cur.Sources {
			res.Displaced = append(res.Displaced, Displacement{Field: f, Policy: s, By: v.Sources[0], Owner: l.Owner, Mode: l.Mode})
		}
		res.Fields[f] = v
	default:
		res.displace(f, v, cur, l)
	}
}

// displace records that the parent level l's value v of field f gives way to the child's cur.
func (res *Result) displace(f string, v, cur Value, l Level) {
	for _, s := range v.Sources {
		res.Displaced = append(res.Displaced, Displacement{Field: f, Policy: s, By: cur.Sources[0], Owner: l.Owner, Mode: l.Mode})
	}
}

// deepMerge merges maps key by key, recursively, keeping win's value where both set a leaf.
func deepMerge(win, lose interface{}) interface{} {
	wm, ok1 := win.(map[string]interface{})
	lm, ok2 := lose.(map[string]interface{})
	if !ok1 || !ok2 {
		return win
	}
	out := make(map[string]interface{}, len(wm)+len(lm))
	for k, v := range lm {
		out[k] = v
	}
	for k, v := range wm {
		if lv, ok := lm[k]; ok {
			out[k] = deepMerge(v, lv)
		} else {
			out[k] = v
		}
	}
	return out
}

func sortedFields(m map[string]Value) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// order sorts policies of one level: by specificity (lower first), then by weight (higher first),
// then older, then by name (pkg/krtcollections/policy.go getPolicyAttachments sorts a target's
// attachments by PrecedenceWeight, then creation time; the name only makes ties deterministic).
func order(ps []ranked) []*Policy {
	sort.SliceStable(ps, func(i, j int) bool {
		a, b := ps[i], ps[j]
		if a.rank != b.rank {
			return a.rank < b.rank
		}
		if a.p.Weight != b.p.Weight {
			return a.p.Weight > b.p.Weight
		}
		if !a.p.Created.Equal(b.p.Created) {
			return a.p.Created.Before(b.p.Created)
		}
		if a.p.Ref.Namespace != b.p.Ref.Namespace {
			return a.p.Ref.Namespace < b.p.Ref.Namespace
		}
		return a.p.Ref.Name < b.p.Ref.Name
	})
	out := make([]*Policy, 0, len(ps))
	seen := map[Key]bool{}
	for _, r := range ps {
		if !seen[r.p.Ref] { // a policy attached twice on one level counts once, at its most specific
			seen[r.p.Ref] = true
			out = append(out, r.p)
		}
	}
	return out
}

type ranked struct {
	p    *Policy
	rank int
}
