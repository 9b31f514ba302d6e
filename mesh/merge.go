package mesh

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
	return MergeEntries(Entries(Order(kind, policies, &proxy), d), target)
}

// MergeEntries is step 3 of Merge on an already concatenated array, so that a caller merging many
// outbounds of one proxy orders the policies once.
func MergeEntries(entries []Entry, target Selector) Result {
	m := newMerger()
	m.run(entries, target.normalized(), nil)
	res := Result{Conf: m.conf, Origins: make(map[string]string, len(m.origins))}
	for path, i := range m.origins {
		res.Origins[path] = entries[i].Policy.Name
	}
	return res
}

// merger folds elements into one configuration and remembers which entry set each leaf.
type merger struct {
	conf    map[string]interface{}
	origins map[string]int // dotted leaf path → index of the entry that set it
}

func newMerger() *merger {
	return &merger{conf: map[string]interface{}{}, origins: map[string]int{}}
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
		if !e.Element.TargetRef.Selects(&target) {
			continue
		}
		var o *outcome
		if out != nil {
			o = &out[i]
			o.selected = true
		}
		m.object(i, e.Element.Conf, m.conf, "", o)
	}
}

func (m *merger) object(i int, src, dst map[string]interface{}, prefix string, o *outcome) {
	for k, v := range src {
		path := joinPath(prefix, k)
		sub, isObj := v.(map[string]interface{})
		cur, exists := dst[k]
		switch {
		case isObj && !exists:
			child := map[string]interface{}{}
			m.object(i, sub, child, path, o)
			if len(child) > 0 {
				dst[k] = child
			}
		case isObj:
			if curObj, ok := cur.(map[string]interface{}); ok {
				m.object(i, sub, curObj, path, o)
			} else if o != nil && hasLeaf(sub) {
				o.blocked = append(o.blocked, m.origins[path])
			}
		case !exists:
			dst[k] = copyValue(v)
			m.origins[path] = i
			if o != nil {
				o.set = true
			}
		case o != nil:
			if by, ok := m.origins[path]; ok {
				o.blocked = append(o.blocked, by)
			} else {
				o.blocked = append(o.blocked, m.firstOriginUnder(path))
			}
		}
	}
}

// firstOriginUnder returns the entry that set some leaf below path (an object that a leaf of a
// lower entry collides with).
func (m *merger) firstOriginUnder(path string) int {
	best := -1
	for p, i := range m.origins {
		if strings.HasPrefix(p, path+".") && (best < 0 || i < best) {
			best = i
		}
	}
	return best
}

// hasLeaf says whether an object sets any field (an empty object sets nothing).
func hasLeaf(m map[string]interface{}) bool {
	for _, v := range m {
		sub, ok := v.(map[string]interface{})
		if !ok || hasLeaf(sub) {
			return true
		}
	}
	return false
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
