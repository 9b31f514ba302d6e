package main

import (
	"strings"
	"testing"
)

func TestRuleValue(t *testing.T) {
	spec := map[string]interface{}{
		"rules": map[string]interface{}{"authorization": map[string]interface{}{"b": map[string]interface{}{"opa": "x"}}},
	}
	eg := map[string]interface{}{
		"rateLimit": map[string]interface{}{"global": map[string]interface{}{"rules": []interface{}{
			map[string]interface{}{"limit": 1}, map[string]interface{}{"limit": 2},
		}}},
	}
	long := map[string]interface{}{"limits": map[string]interface{}{"x": strings.Repeat("a", 100)}}
	tests := []struct {
		name string
		spec map[string]interface{}
		id   string
		want string
	}{
		{name: "a rule below the bare field", spec: spec, id: "authorization.b", want: `{"opa":"x"}`},
		{name: "an indexed rule", spec: eg, id: "rateLimit.global.rules[1]", want: `{"limit":2}`},
		{name: "an index past the end", spec: eg, id: "rateLimit.global.rules[2]", want: "-"},
		{name: "an id naming nothing", spec: spec, id: "authorization.z", want: "-"},
		{name: "a long value is cut", spec: long, id: "x", want: `"` + strings.Repeat("a", wideValueWidth-2) + "…"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ruleValue(tt.spec, tt.id); got != tt.want {
				t.Errorf("ruleValue(%s) = %q, want %q", tt.id, got, tt.want)
			}
		})
	}
}
