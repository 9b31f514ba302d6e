package manifest

import (
	"bytes"
	"strconv"
	"unicode/utf8"

	yamlv2 "go.yaml.in/yaml/v2"
	"sigs.k8s.io/yaml"
)

// unmarshal decodes one YAML document into the values sigs.k8s.io/yaml.Unmarshal gives for a
// map[string]interface{} (the decoding every Kubernetes tool shares: YAML 1.1 scalars, then JSON's
// types), without its round trip through JSON text: sigs.k8s.io/yaml parses the YAML, converts it,
// writes it as JSON and parses that again, a third of the cost of reading a large input. The
// values of the YAML parser are converted here as that round trip converts them (keys to strings,
// every number to float64); a document whose values the round trip would change in other ways
// (invalid UTF-8, NaN or infinite numbers, keys that collide once written as strings, anything but
// a non-empty mapping at the top) or reject goes through sigs.k8s.io/yaml itself, for the same
// result and the same error.
func unmarshal(data []byte) (map[string]interface{}, error) {
	// The mappings are read as MapSlices (lists of key and value), cheaper to build than
	// map[interface{}]interface{} and collected sooner; a merge key (<<) is left to the
	// reference decoding, as yaml.v2 drops merged keys from a MapSlice.
	if !bytes.Contains(data, []byte("<<")) {
		var top yamlv2.MapSlice
		if err := yamlv2.Unmarshal(data, &top); err == nil && top != nil {
			in := interners.Get().(*interner)
			m, ok := in.jsonMap(top)
			interners.Put(in)
			if ok {
				return m, nil
			}
		}
	}
	var m map[string]interface{}
	err := yaml.Unmarshal(data, &m)
	return m, err
}

// jsonMap converts a YAML mapping; ok is false where the JSON round trip would differ (including
// a key given twice, which a MapSlice keeps twice).
func (t *interner) jsonMap(in yamlv2.MapSlice) (map[string]interface{}, bool) {
	out := make(map[string]interface{}, len(in))
	for _, item := range in {
		var key string
		switch k := item.Key.(type) {
		case string:
			if !utf8.ValidString(k) {
				return nil, false
			}
			key = t.key(k)
		case int:
			key = strconv.Itoa(k)
		case bool:
			key = strconv.FormatBool(k)
		default: // other keys are rare; sigs.k8s.io/yaml says what it makes of them
			return nil, false
		}
		if _, dup := out[key]; dup {
			return nil, false
		}
		jv, ok := t.jsonValue(item.Value)
		if !ok {
			return nil, false
		}
		out[key] = jv
	}
	return out, true
}

// jsonValue converts a YAML value; ok is false where the JSON round trip would differ.
func (t *interner) jsonValue(v interface{}) (interface{}, bool) {
	switch x := v.(type) {
	case nil, bool:
		return x, true
	case string:
		return t.value(x), utf8.ValidString(x)
	case yamlv2.MapSlice:
		if x == nil { // an empty mapping
			return map[string]interface{}{}, true
		}
		return t.jsonMap(x)
	case []interface{}:
		out := make([]interface{}, len(x))
		for i, e := range x {
			jv, ok := t.jsonValue(e)
			if !ok {
				return nil, false
			}
			out[i] = jv
		}
		return out, true
	case int:
		return number(float64(x), strconv.FormatInt(int64(x), 10))
	case int64:
		return number(float64(x), strconv.FormatInt(x, 10))
	case uint64:
		return number(float64(x), strconv.FormatUint(x, 10))
	case float64:
		if x != x || x > maxFloat || x < -maxFloat { // NaN, ±Inf: JSON has no such numbers
			return nil, false
		}
		return x, true
	}
	return nil, false
}

// maxFloat is the largest finite float64.
const maxFloat = 1.7976931348623157e308

// number is an integer as JSON decoding reads it back: the float64 nearest to its decimal text.
// float64(n) rounds the same way for every integer up to 2^53; above, the text is parsed.
func number(f float64, text string) (interface{}, bool) {
	if f >= -(1<<53) && f <= 1<<53 {
		return f, true
	}
	p, err := strconv.ParseFloat(text, 64)
	return p, err == nil
}
