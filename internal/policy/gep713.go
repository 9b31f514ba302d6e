package policy

import (
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// readGEP713 reads spec.default and spec.override. Their configuration objects are flattened to
// leaf field paths ("cdn.cachePolicy.includeHost"), each one a rule merged with strategy merge:
// this is exactly GEP-713's field-by-field merge, run by the same fold as the RFC profile.
func (p *Policy) readGEP713(spec map[string]interface{}) field.ErrorList {
	var errs field.ErrorList
	for _, name := range []string{"default", "override"} {
		raw, ok := spec[name]
		if !ok || raw == nil {
			continue
		}
		path := specPath.Child(name)
		m, ok := raw.(map[string]interface{})
		if !ok {
			errs = append(errs, field.Invalid(path, typeName(raw), "must be an object"))
			continue
		}
		b := &Block{Rules: Flatten(m), Strategy: StrategyMerge, Path: path}
		if name == "default" {
			p.Defaults = b
		} else {
			p.Overrides = b
		}
	}
	return errs
}

// Flatten turns a nested object into leaf dotted paths. Lists and scalars are leaves; an empty
// object is a leaf too, so that it is not lost.
func Flatten(m map[string]interface{}) map[string]interface{} {
	out := map[string]interface{}{}
	flattenInto(out, "", m)
	return out
}

func flattenInto(out map[string]interface{}, prefix string, m map[string]interface{}) {
	for k, v := range m {
		key := k
		if prefix != "" {
			key = prefix + "." + k
		}
		if sub, ok := v.(map[string]interface{}); ok && len(sub) > 0 {
			flattenInto(out, key, sub)
			continue
		}
		out[key] = v
	}
}

// Unflatten rebuilds the nested object from dotted leaf paths. Paths are applied shortest first, so
// a deeper path wins over a leaf of the same prefix (a schema never allows both).
func Unflatten(flat map[string]interface{}) map[string]interface{} {
	keys := make([]string, 0, len(flat))
	for k := range flat {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		ci, cj := strings.Count(keys[i], "."), strings.Count(keys[j], ".")
		if ci != cj {
			return ci < cj
		}
		return keys[i] < keys[j]
	})
	out := map[string]interface{}{}
	for _, k := range keys {
		parts := strings.Split(k, ".")
		cur := out
		for _, part := range parts[:len(parts)-1] {
			next, ok := cur[part].(map[string]interface{})
			if !ok {
				next = map[string]interface{}{}
				cur[part] = next
			}
			cur = next
		}
		cur[parts[len(parts)-1]] = flat[k]
	}
	return out
}
