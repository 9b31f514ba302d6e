package main

import (
	"encoding/json"
	"strconv"
	"strings"
)

// wideValueWidth is the most characters of a value `-o wide` shows in a table cell.
const wideValueWidth = 60

// ruleValue is the value of rule id in an effective spec, as compact JSON cut to wideValueWidth
// ("…" marks a cut), or "-" when the id does not name a value of spec. An id is a dotted path with
// [i] indexes (authorization.b, rateLimit.global.rules[0]), below the spec or below its one bare
// field (rules, limits).
func ruleValue(spec map[string]interface{}, id string) string {
	v, ok := lookup(spec, id)
	if !ok && len(spec) == 1 {
		for _, inner := range spec {
			if m, isMap := inner.(map[string]interface{}); isMap {
				v, ok = lookup(m, id)
			}
		}
	}
	if !ok {
		return "-"
	}
	b, err := json.Marshal(v)
	if err != nil {
		return "-"
	}
	s := []rune(string(b))
	if len(s) > wideValueWidth {
		return string(s[:wideValueWidth-1]) + "…"
	}
	return string(s)
}

// lookup follows a dotted path with [i] indexes through maps and lists.
func lookup(v interface{}, id string) (interface{}, bool) {
	for _, seg := range strings.Split(id, ".") {
		name, rest, indexed := strings.Cut(seg, "[")
		m, ok := v.(map[string]interface{})
		if !ok {
			return nil, false
		}
		if v, ok = m[name]; !ok {
			return nil, false
		}
		for indexed {
			var idx string
			idx, rest, _ = strings.Cut(rest, "]")
			i, err := strconv.Atoi(idx)
			l, isList := v.([]interface{})
			if err != nil || !isList || i < 0 || i >= len(l) {
				return nil, false
			}
			v = l[i]
			_, rest, indexed = strings.Cut(rest, "[")
		}
	}
	return v, true
}
