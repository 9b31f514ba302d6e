package engine

import (
	"fmt"
	"sort"
	"strings"
)

// patchKeys are the lists that Envoy Gateway's API structs mark `patchStrategy:"merge"`, with their
// merge keys: StrategicMerge merges them element by element; every other list is replaced whole
// (api/v1alpha1/backendtrafficpolicy_types.go Compression, Compressor, HTTPUpgrade;
// api/v1alpha1/ext_auth_types.go ContextExtensions).
var patchKeys = map[string]map[string]string{
	BackendTrafficPolicy: {"compression": "type", "compressor": "type", "httpUpgrade": "type"},
	SecurityPolicy:       {"extAuth.contextExtensions": "name"},
}

// unionLists are lists whose elements Envoy Gateway merges again in its IR by generated names
// (<policy-ns>/<policy-name>/rule/<index>, unique per policy), so under StrategicMerge both levels'
// rules apply (internal/gatewayapi/backendtrafficpolicy.go translateBackendTrafficPolicyForRouteWithMerge,
// buildGlobalRateLimit, buildLocalRateLimit; internal/ir/xds.go GlobalRateLimit.Rules patchMergeKey name).
var unionLists = map[string]map[string]bool{
	BackendTrafficPolicy: {"rateLimit.global.rules": true, "rateLimit.local.rules": true},
}

// Merged is a merge of a child policy into its parent, with the source of every field.
type Merged struct {
	Spec    map[string]interface{}
	Sources map[string]string
}

// Merge merges child into parent as internal/utils/merge.go Merge does (the child is the patch):
// StrategicMerge with the API structs' patch keys, JSONMerge as RFC 7386. Sources are recorded at
// the depth where the origin of a field is single: a field only one side sets keeps that side's
// top-level id (`jwt`), a field both set is split into its sub-fields.
func Merge(kind string, mt MergeType, parent, child *Policy) Merged {
	m := merger{kind: kind, mt: mt, parent: parent.Ref.String(), child: child.Ref.String(), srcs: map[string]string{}}
	spec, _ := m.mergeMaps("", parent.Fields, child.Fields).(map[string]interface{})
	if spec == nil {
		spec = map[string]interface{}{}
	}
	return Merged{Spec: spec, Sources: m.srcs}
}

type merger struct {
	kind, parent, child string
	mt                  MergeType
	srcs                map[string]string
}

func join(path, k string) string {
	if path == "" {
		return k
	}
	return path + "." + k
}

func (m *merger) mergeMaps(path string, p, c map[string]interface{}) interface{} {
	out := make(map[string]interface{}, len(p)+len(c))
	for k, pv := range p {
		if _, ok := c[k]; ok {
			continue
		}
		out[k] = pv
		m.srcs[join(path, k)] = m.parent
	}
	for k, cv := range c {
		id := join(path, k)
		if cv == nil {
			continue // null deletes the key in both RFC 7386 and strategic merge patches
		}
		pv, ok := p[k]
		if !ok || pv == nil {
			out[k] = withoutNulls(cv)
			m.srcs[id] = m.child
			continue
		}
		out[k] = m.merge(id, pv, cv)
	}
	return out
}

func (m *merger) merge(id string, pv, cv interface{}) interface{} {
	if cm, ok := cv.(map[string]interface{}); ok {
		if pm, ok := pv.(map[string]interface{}); ok {
			return m.mergeMaps(id, pm, cm)
		}
		m.srcs[id] = m.child
		return withoutNulls(cv)
	}
	cl, cok := cv.([]interface{})
	pl, pok := pv.([]interface{})
	if m.mt == StrategicMerge && cok && pok {
		if key, ok := patchKeys[m.kind][id]; ok {
			return m.mergeByKey(id, key, pl, cl)
		}
		if unionLists[m.kind][id] {
			out := make([]interface{}, 0, len(pl)+len(cl))
			for _, e := range pl {
				m.srcs[fmt.Sprintf("%s[%d]", id, len(out))] = m.parent
				out = append(out, e)
			}
			for _, e := range cl {
				m.srcs[fmt.Sprintf("%s[%d]", id, len(out))] = m.child
				out = append(out, e)
			}
			return out
		}
	}
	m.srcs[id] = m.child
	return cv
}

// withoutNulls is v with the null members of its objects removed, as merging a patch into nothing
// does (RFC 7386 section 2: MergePatch of a non-object target starts from {}); v itself when it
// has none.
func withoutNulls(v interface{}) interface{} {
	m, ok := v.(map[string]interface{})
	if !ok || !hasNull(m) {
		return v
	}
	out := make(map[string]interface{}, len(m))
	for k, e := range m {
		if e != nil {
			out[k] = withoutNulls(e)
		}
	}
	return out
}

func hasNull(m map[string]interface{}) bool {
	for _, e := range m {
		if e == nil {
			return true
		}
		if em, ok := e.(map[string]interface{}); ok && hasNull(em) {
			return true
		}
	}
	return false
}

// mergeByKey merges two lists of objects by a key field, as a strategic merge patch does for a
// `patchStrategy:"merge"` list: parent elements first, a child element with the same key merged
// into its parent element, new child elements appended.
func (m *merger) mergeByKey(id, key string, pl, cl []interface{}) interface{} {
	keyOf := func(e interface{}) (string, bool) {
		em, ok := e.(map[string]interface{})
		if !ok {
			return "", false
		}
		v, ok := em[key]
		return fmt.Sprint(v), ok
	}
	out := make([]interface{}, 0, len(pl)+len(cl))
	index := map[string]int{}
	for _, e := range pl {
		k, ok := keyOf(e)
		if ok {
			index[k] = len(out)
		}
		m.srcs[fmt.Sprintf("%s[%s=%s]", id, key, k)] = m.parent
		out = append(out, e)
	}
	for _, e := range cl {
		k, ok := keyOf(e)
		eid := fmt.Sprintf("%s[%s=%s]", id, key, k)
		if i, dup := index[k]; ok && dup {
			pm, _ := out[i].(map[string]interface{})
			cm, _ := e.(map[string]interface{})
			delete(m.srcs, eid)
			out[i] = m.mergeMaps(eid, pm, cm)
			continue
		}
		m.srcs[eid] = m.child
		out = append(out, e)
	}
	return out
}

// sourceMap is the sources of a whole policy: each top-level field from that policy. Read computes
// it once; results share it, read-only.
func (p *Policy) sourceMap() map[string]string {
	if p.sources != nil {
		return p.sources
	}
	return topLevel(p)
}

func topLevel(p *Policy) map[string]string {
	out := make(map[string]string, len(p.Fields))
	for k := range p.Fields {
		out[k] = p.Ref.String()
	}
	return out
}

// FieldIDs lists the ids of sources, sorted.
func FieldIDs(sources map[string]string) []string {
	out := make([]string, 0, len(sources))
	for id := range sources {
		out = append(out, id)
	}
	sort.Strings(out)
	return out
}

// root is the top-level field of a field id (`rateLimit` of `rateLimit.global.rules[0]`).
func root(id string) string {
	if i := strings.IndexAny(id, ".["); i >= 0 {
		return id[:i]
	}
	return id
}
