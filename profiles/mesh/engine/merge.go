package engine

import (
	"strings"
)

// Result is the merged configuration for one outbound or one source, and per dotted field path
// (`http.requestTimeout`) the name of the policy that set it. It marshals to exactly
// {"conf": {…}, "origins": {…}}.
type Result struct {
	Conf    map[string]interface{} `json:"conf"`
	Origins map[string]string      `json:"origins"`
}

// Merge returns the configuration that the policies of kind give proxy for one outbound (d = To,
// target = the outbound's service) or one source (d = From, target = the source's service and
// tags), with the MADR's three steps: order the policies that select the proxy, concatenate their
// arrays, merge the elements that select target field by field (first set wins, objects deeply,
// lists atomic).
func Merge(kind string, policies []Policy, proxy Dataplane, d Direction, target Selector) Result {
	return MergeAt(Versions[len(Versions)-1], kind, policies, proxy, d, target)
}

// MergeAt is Merge as Kuma version v merges (EntriesAt).
func MergeAt(v Version, kind string, policies []Policy, proxy Dataplane, d Direction, target Selector) Result {
	return MergeEntries(EntriesAt(v, Order(kind, policies, &proxy), d), target)
}

// MergeEntries is step 3 of Merge on an already concatenated array, so that a caller merging many
// outbounds of one proxy orders the policies once.
func MergeEntries(entries []Entry, target Selector) Result {
	m := newMerger()
	m.run(entries, target, nil)
	return m.result(entries)
}

// merger folds elements into one configuration and remembers which entry set each leaf.
type merger struct {
	claims map[string]claim // dotted path → the entry that set it (a leaf) or first set a leaf below it (an object)
	set    []setLeaf        // the leaves set, in order
}

type claim struct {
	by     int
	object bool
}

type setLeaf struct {
	leaf *leaf
	by   int
}

func newMerger() *merger {
	return &merger{claims: make(map[string]claim, 8)}
}

// outcome is what one entry did in one merge: whether it selected the target, whether it set a
// field, and the entries that had set the fields it could not.
type outcome struct {
	selected bool
	set      bool
	blocked  []int
}

// run merges the entries that select target. When out is non-nil it records, per entry, the outcome.
func (m *merger) run(entries []Entry, target Selector, out []outcome) {
	for i := range entries {
		e := &entries[i]
		if !e.selects(&target) {
			continue
		}
		var o *outcome
		if out != nil {
			o = &out[i]
			o.selected = true
		}
		leaves := e.Element.leaves
		if leaves == nil {
			leaves = flatten(e.Element.Conf)
		}
		m.add(i, leaves, o)
	}
}

// add merges the leaves of entry i: a leaf is set unless an earlier entry set the same path, an
// object at that path (a leaf below it), or a leaf at a prefix of it.
func (m *merger) add(i int, leaves []leaf, o *outcome) {
	for li := range leaves {
		l := &leaves[li]
		if by := m.claimer(l); by >= 0 {
			if o != nil {
				o.blocked = append(o.blocked, by)
			}
			continue
		}
		m.claim(i, l)
		if o != nil {
			o.set = true
		}
	}
}

// claimer returns the entry that keeps a leaf from being set: the one that set the same path, an
// object at that path (a leaf below it), or a leaf at a prefix of it; -1 when none did.
func (m *merger) claimer(l *leaf) int {
	if c, ok := m.claims[l.path]; ok {
		return c.by
	}
	for _, p := range l.prefixes {
		if c, ok := m.claims[p]; ok && !c.object {
			return c.by
		}
	}
	return -1
}

// claim sets a leaf for entry i.
func (m *merger) claim(i int, l *leaf) {
	m.claims[l.path] = claim{by: i}
	for _, p := range l.prefixes {
		if _, ok := m.claims[p]; !ok {
			m.claims[p] = claim{by: i, object: true}
		}
	}
	m.set = append(m.set, setLeaf{leaf: l, by: i})
}

// result builds the merged configuration and its origins.
func (m *merger) result(entries []Entry) Result {
	res := Result{Conf: map[string]interface{}{}, Origins: make(map[string]string, len(m.set))}
	for _, s := range m.set {
		dst := res.Conf
		segs := s.leaf.segs
		for _, seg := range segs[:len(segs)-1] {
			next, ok := dst[seg].(map[string]interface{})
			if !ok {
				next = map[string]interface{}{}
				dst[seg] = next
			}
			dst = next
		}
		dst[segs[len(segs)-1]] = copyValue(s.leaf.value)
		res.Origins[s.leaf.path] = entries[s.by].Policy.Name
	}
	return res
}

// leaf is one field an element sets: a scalar or a list (lists are atomic), at a dotted path.
// Empty objects set nothing.
type leaf struct {
	path     string
	segs     []string
	prefixes []string // dotted paths of the objects above the leaf, outermost first
	value    interface{}
}

// flatten lists the leaves of a configuration, in path order.
func flatten(conf map[string]interface{}) []leaf {
	var out []leaf
	var walk func(m map[string]interface{}, segs []string)
	walk = func(m map[string]interface{}, segs []string) {
		for _, k := range sortedKeys(m) {
			s := append(segs[:len(segs):len(segs)], k)
			if sub, ok := m[k].(map[string]interface{}); ok {
				walk(sub, s)
				continue
			}
			l := leaf{path: strings.Join(s, "."), segs: s, value: m[k]}
			for n := 1; n < len(s); n++ {
				l.prefixes = append(l.prefixes, strings.Join(s[:n], "."))
			}
			out = append(out, l)
		}
	}
	walk(conf, nil)
	if out == nil {
		out = []leaf{}
	}
	return out
}

// NewElement returns an element with its configuration prepared for merging (Parse does this for
// the elements it reads). conf must not change afterwards.
func NewElement(ref TargetRef, conf map[string]interface{}) Element {
	return Element{TargetRef: ref, Conf: conf, leaves: flatten(conf)}
}

// copyValue copies lists and objects so that a result never aliases its input.
func copyValue(v interface{}) interface{} {
	switch x := v.(type) {
	case map[string]interface{}:
		out := make(map[string]interface{}, len(x))
		for k, e := range x {
			out[k] = copyValue(e)
		}
		return out
	case []interface{}:
		out := make([]interface{}, len(x))
		for i, e := range x {
			out[i] = copyValue(e)
		}
		return out
	}
	return v
}
