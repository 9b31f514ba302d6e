package engine

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// JSONMerge follows RFC 7386 (internal/utils/merge.go mergeInternal uses jsonpatch.MergePatch).
// The rows are the RFC's Appendix A examples whose target and patch are objects (a policy spec
// always is).
func TestJSONMergeRFC7386AppendixA(t *testing.T) {
	for _, c := range []struct{ target, patch, want string }{
		{`{"a":"b"}`, `{"a":"c"}`, `{"a":"c"}`},
		{`{"a":"b"}`, `{"b":"c"}`, `{"a":"b","b":"c"}`},
		{`{"a":"b"}`, `{"a":null}`, `{}`},
		{`{"a":"b","b":"c"}`, `{"a":null}`, `{"b":"c"}`},
		{`{"a":["b"]}`, `{"a":"c"}`, `{"a":"c"}`},
		{`{"a":"c"}`, `{"a":["b"]}`, `{"a":["b"]}`},
		{`{"a":{"b":"c"}}`, `{"a":{"b":"d","c":null}}`, `{"a":{"b":"d"}}`},
		{`{"a":[{"b":"c"}]}`, `{"a":[1]}`, `{"a":[1]}`},
		{`{"e":null}`, `{"a":1}`, `{"e":null,"a":1}`},
		{`{}`, `{"a":{"bb":{"ccc":null}}}`, `{"a":{"bb":{}}}`},
		{`{"a":"foo"}`, `{"a":{"bb":{"ccc":null}}}`, `{"a":{"bb":{}}}`},
	} {
		t.Run(c.target+" + "+c.patch, func(t *testing.T) {
			var target, patch, want map[string]interface{}
			for _, x := range []struct {
				s string
				v *map[string]interface{}
			}{{c.target, &target}, {c.patch, &patch}, {c.want, &want}} {
				if err := json.Unmarshal([]byte(x.s), x.v); err != nil {
					t.Fatal(err)
				}
			}
			got := Merge(BackendTrafficPolicy, JSONMerge, &Policy{Fields: target}, &Policy{Fields: patch})
			if d := cmp.Diff(want, got.Spec); d != "" {
				t.Errorf("merged (-want +got):\n%s", d)
			}
		})
	}
}
