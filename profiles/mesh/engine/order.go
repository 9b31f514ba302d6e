package engine

import (
	"sort"
	"strings"
)

// Entry is one element of the concatenated to (or from) array of a proxy, with the policy it
// came from and its path in that policy.
type Entry struct {
	Policy  *Policy
	Index   int // index of the element in the policy's array
	Element *Element
	Rule    bool // a catch-all item of spec.rules merged with the from items (Kuma's MeshTimeout)
	// Resource: a to item merged as Kuma's resource rules (outbound.buildRules) merge it, the only way
	// on 3.0: a MeshService item's labels (resolved) and sectionName count (selects).
	Resource bool
}

// selects says whether the entry's targetRef selects target. A to item merged as a resource rule
// selects by MeshService labels and port too (isRelevant in
// pkg/plugins/policies/core/rules/outbound/resourcerules.go): a label-only MeshService ref the
// outbound's service among those its labels resolve to (ResolveServices), and one with a sectionName
// only the outbound to that port (Selector.Section); one without a sectionName every port. Else,
// as Kuma 2.14's tag rules read a MeshService (asSubset in core/rules/rules.go), by its name's
// kuma.io/service alone: labels select nothing, sectionName is not looked at.
func (e *Entry) selects(t *Selector) bool {
	r := &e.Element.TargetRef
	if !e.Resource || r.Kind != MeshService {
		return r.Selects(t)
	}
	if r.Name == "" && !contains(r.Services, t.service()) || r.Name != "" && r.Name != t.service() {
		return false
	}
	return r.SectionName == "" || r.SectionName == t.Section
}

// Path is the entry's field path in its policy, e.g. "spec.to[1]" or "spec.rules[0]".
func (e *Entry) Path(d Direction) string { return ElementPath(e.dir(d), e.Index) }

func (e *Entry) dir(d Direction) Direction {
	if e.Rule {
		return Rules
	}
	return d
}

func (e *Entry) key(d Direction) elemKey { return elemKey{e.Policy, e.dir(d), e.Index} }

// nameOrder decides, within one level, which of two policy names has priority.
type nameOrder func(a, b string) bool

// laterNameFirst is the MADR's order: the name that sorts later has priority.
func laterNameFirst(a, b string) bool { return a > b }

// smallerNameFirst is current Kuma's order: the name that sorts first has priority.
func smallerNameFirst(a, b string) bool { return a < b }

// Order returns the policies of kind whose top-level targetRef selects proxy, highest priority
// first. kind is "Kind" (any group) or "Kind.group" ("MeshTimeout.kuma.io").
//
// Precedent's own kinds keep the MADR's order: the most specific level first (Proxy,
// ServiceSubset, Service, MeshSubset, Mesh), and within one level the policy whose name sorts later
// first (then namespace, likewise).
//
// Kuma's own kinds (group kuma.io) follow what Kuma's control plane enforces: SortByTargetRef in
// pkg/plugins/policies/core/matchers/dataplane.go sorts the matched policies from lowest to highest
// priority by the targetRef kind's level (api/common/v1alpha1/targetref.go: Mesh < Dataplane <
// MeshSubset < MeshGateway < MeshService < … < MeshServiceSubset < MeshHTTPRoute), then a Dataplane
// ref by name over one by labels and one with sectionName over one without
// (TargetRef.CompareDataplaneKind), then origin (global < unknown < zone), then role (system <
// producer < consumer < workload-owner), then display name descending, so that the policy whose name
// sorts first comes last and, merged last, wins. Consumer and workload-owner policies select only
// the proxies of their own namespace (dppSelectedByNamespace).
func Order(kind string, policies []Policy, proxy *Dataplane) []*Policy {
	var out []*Policy
	for i := range policies {
		p := &policies[i]
		if p.matchesKind(kind) && p.SelectsProxy(proxy) {
			out = append(out, p)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return higher(out[i], out[j]) })
	return out
}

// order is Order with the MADR's name order replaced (tests compare the two name orders).
func order(kind string, policies []Policy, proxy *Dataplane, before nameOrder) []*Policy {
	var out []*Policy
	for i := range policies {
		p := &policies[i]
		if p.matchesKind(kind) && p.SelectsProxy(proxy) {
			out = append(out, p)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return madrHigher(out[i], out[j], before) })
	return out
}

// SelectsProxy says whether the policy's top-level targetRef selects the Dataplane, with Kuma's
// namespace rule for its consumer and workload-owner policies.
func (p *Policy) SelectsProxy(dp *Dataplane) bool {
	if p.Kuma() && (p.Role == RoleConsumer || p.Role == RoleWorkloadOwner) && dp.Namespace != p.Namespace {
		return false
	}
	return p.TargetRef.selectsProxy(dp, p.Namespace, p.Zone)
}

// higher says whether policy a has priority over policy b (both of one group and kind).
func higher(a, b *Policy) bool {
	if a.Kuma() {
		return kumaCompare(a, b) > 0
	}
	return madrHigher(a, b, laterNameFirst)
}

func madrHigher(a, b *Policy, before nameOrder) bool {
	la, lb := level(a.TargetRef.Kind), level(b.TargetRef.Kind)
	if la != lb {
		return la > lb
	}
	if a.Name != b.Name {
		return before(a.Name, b.Name)
	}
	if a.Namespace != b.Namespace {
		return before(a.Namespace, b.Namespace)
	}
	return false
}

// kumaCompare is Kuma's SortByTargetRef comparison (pkg/plugins/policies/core/matchers/dataplane.go,
// the same as CompareByPolicyAttributes then CompareByDisplayName in core/rules/sort/sort.go):
// negative when a sorts before b, that is when a has lower priority. Kuma leaves two policies of
// one display name in list order; here the one whose namespace sorts first wins, so that the result
// does not depend on input order.
func kumaCompare(a, b *Policy) int {
	if d := kumaAttributes(a, b); d != 0 {
		return d
	}
	return kumaNames(a, b)
}

// kumaAttributes is Kuma's CompareByPolicyAttributes (core/rules/sort/sort.go): the top-level
// targetRef kind, then Dataplane refs, origin and role.
func kumaAttributes(a, b *Policy) int {
	if d := kumaLevel[a.TargetRef.Kind] - kumaLevel[b.TargetRef.Kind]; d != 0 {
		return d
	}
	if d := compareDataplaneRefs(&a.TargetRef, &b.TargetRef); d != 0 {
		return d
	}
	if d := kumaOriginOrder[a.Origin] - kumaOriginOrder[b.Origin]; d != 0 {
		return d
	}
	return kumaRoleOrder[a.Role] - kumaRoleOrder[b.Role]
}

// kumaNames is Kuma's CompareByDisplayName, descending (the name that sorts first comes last and
// wins), then the namespace likewise.
func kumaNames(a, b *Policy) int {
	if c := strings.Compare(b.DisplayName, a.DisplayName); c != 0 {
		return c
	}
	return strings.Compare(b.Namespace, a.Namespace)
}

// compareToItems is Kuma's outbound Sort (pkg/plugins/policies/core/rules/outbound/sort.go, the
// same at v2.14.3 and on master): CompareByPolicyAttributes, then CompareByToEntry (the item's own
// targetRef kind, so a MeshService item beats a Mesh item of any policy of the same attributes, and
// between MeshService items one with a sectionName beats one without), then the display name.
// Negative when a sorts before b (has lower priority).
func compareToItems(a, b *Entry) int {
	if d := kumaAttributes(a.Policy, b.Policy); d != 0 {
		return d
	}
	ra, rb := &a.Element.TargetRef, &b.Element.TargetRef
	if d := kumaLevel[ra.Kind] - kumaLevel[rb.Kind]; d != 0 {
		return d
	}
	if ra.Kind == MeshService {
		if d := boolInt(ra.SectionName != "") - boolInt(rb.SectionName != ""); d != 0 {
			return d
		}
	}
	return kumaNames(a.Policy, b.Policy)
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// compareDataplaneRefs is TargetRef.CompareDataplaneKind (api/common/v1alpha1/targetref.go): between
// two Dataplane refs, one by name beats one by labels, and one with a sectionName one without.
func compareDataplaneRefs(a, b *TargetRef) int {
	if a.Kind != DataplaneRef || b.Kind != DataplaneRef {
		return 0
	}
	switch {
	case a.Name != "" && b.Labels != nil:
		return 1
	case a.Labels != nil && b.Name != "":
		return -1
	case a.SectionName != "" && b.SectionName == "":
		return 1
	case a.SectionName == "" && b.SectionName != "":
		return -1
	}
	return 0
}

// Entries concatenates the direction's arrays of the ordered policies, highest priority first, so
// that in the merge the first element that sets a field wins.
//
// The MADR keeps each array in its own order. Kuma merges the items of the policies sorted from
// lowest to highest priority as JSON merge patches, each later item over the earlier ones
// (createRule and merge.Confs in pkg/plugins/policies/core/rules), so within one policy its last
// matching item wins: for Kuma's kinds each array is listed last item first.
//
// For Kuma's MeshTimeout the from list also holds the catch-all items of spec.rules (those without
// matches), in the same place: MeshTimeout is `is_from_as_rules`, so Kuma reads its from items as
// rules without matches and merges them with the rules of the other policies, lowest priority
// first (getEntries, buildRules and MatchesAllIncomingTraffic in
// pkg/plugins/policies/core/rules/inbound/inboundrules.go, v2.14); a policy has one or the other.
func Entries(ordered []*Policy, d Direction) []Entry {
	n := 0
	for _, p := range ordered {
		n += len(p.Elements(d)) + len(p.Rules)
	}
	out := make([]Entry, 0, n)
	for _, p := range ordered {
		elems := p.Elements(d)
		if p.Kuma() && d == To && p.routeItems() {
			continue
		}
		if p.Kuma() && d == From && p.Kind == KindMeshTimeout {
			for i := len(p.Rules) - 1; i >= 0; i-- {
				if r := &p.Rules[i]; r.CatchAll() {
					out = append(out, Entry{Policy: p, Index: i, Element: &r.elem, Rule: true})
				}
			}
		}
		if p.Kuma() {
			for i := len(elems) - 1; i >= 0; i-- {
				out = append(out, Entry{Policy: p, Index: i, Element: &elems[i]})
			}
			continue
		}
		for i := range elems {
			out = append(out, Entry{Policy: p, Index: i, Element: &elems[i]})
		}
	}
	return out
}

// EntriesAt is Entries as Kuma version v orders them. On 3.0 the to items of Kuma's kinds are
// ordered item by item, as Kuma's outbound Sort does (compareToItems): master dropped the tag-subset
// outbound engine (#18017), so every outbound is merged by outbound.buildRules, which sorts the
// items of all the policies together. Kuma 2.14 merges an outbound named by kuma.io/service tags,
// the shape Precedent reads there, with legacyBuildToRules (pkg/plugins/policies/core/rules/rules.go
// at v2.14.3): the policies in SortByTargetRef order, each policy's items in its own order, as
// Entries lists them.
func EntriesAt(v Version, ordered []*Policy, d Direction) []Entry {
	out := Entries(ordered, d)
	if d != To || !v.sortsItems() {
		return out
	}
	for i := range out {
		out[i].Resource = out[i].Policy.Kuma()
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := &out[i], &out[j]
		return a.Policy.Kuma() && b.Policy.Kuma() && compareToItems(a, b) > 0
	})
	return out
}

// joinPath appends a field name to a dotted path.
func joinPath(prefix, name string) string {
	if prefix == "" {
		return name
	}
	var b strings.Builder
	b.Grow(len(prefix) + 1 + len(name))
	b.WriteString(prefix)
	b.WriteByte('.')
	b.WriteString(name)
	return b.String()
}

// routeItems reports whether a Kuma policy has a to item targeting a MeshHTTPRoute: Kuma leaves such a
// policy out of the service-level rules altogether (legacyBuildToRules in
// pkg/plugins/policies/core/rules/rules.go) and applies it through the route instead, which the
// Dataplane topology does not hold.
func (p *Policy) routeItems() bool {
	for i := range p.To {
		if p.To[i].TargetRef.Kind == MeshHTTPRoute {
			return true
		}
	}
	return false
}
