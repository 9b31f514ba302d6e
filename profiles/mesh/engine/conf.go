package engine

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// DurationPattern is the form of a duration (Go and Kubernetes duration strings such as "5s",
// "1h30m", "0.5s"); the CRDs carry the same pattern.
const DurationPattern = `^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$`

var durationRE = regexp.MustCompile(DurationPattern)

type confType int

const (
	durationConf confType = iota
	objectConf
	enumConf
)

// confField describes one configuration field of an element: a duration, an enum, or an object
// of further fields.
type confField struct {
	typ      confType
	positive bool // a duration that must not be zero (Kuma's connectionTimeout)
	enum     []string
	fields   map[string]confField
}

// confSchemas holds, per kind, the configuration fields that sit inline in a to/from element.
var confSchemas = map[string]map[string]confField{
	KindMeshTimeout: {
		"connectTimeout": {typ: durationConf},
		"http": {typ: objectConf, fields: map[string]confField{
			"requestTimeout":    {typ: durationConf},
			"idleTimeout":       {typ: durationConf},
			"streamIdleTimeout": {typ: durationConf},
		}},
	},
	KindMeshTrafficPermission: {
		"action": {typ: enumConf, enum: []string{"ALLOW", "DENY"}},
	},
}

// confRequired lists, per kind, the fields every element must set.
var confRequired = map[string][]string{
	KindMeshTrafficPermission: {"action"},
}

func checkConf(conf map[string]interface{}, path *field.Path, kind string, errs field.ErrorList) field.ErrorList {
	for _, r := range confRequired[kind] {
		if _, ok := conf[r]; !ok {
			errs = append(errs, field.Required(path.Child(r), ""))
		}
	}
	return checkFields(conf, path, confSchemas[kind], []string{"targetRef"}, errs)
}

// checkFields checks the fields of conf against schema; also lists the fields allowed next to
// them (targetRef) in the message for an unknown field.
func checkFields(conf map[string]interface{}, path *field.Path, schema map[string]confField, also []string, errs field.ErrorList) field.ErrorList {
	for _, k := range sortedKeys(conf) {
		f, ok := schema[k]
		if !ok {
			known := append(append([]string(nil), also...), sortedConfKeys(schema)...)
			errs = append(errs, field.Forbidden(path.Child(k), "unknown field: supported fields are "+strings.Join(known, ", ")))
			continue
		}
		errs = checkField(conf[k], path.Child(k), f, errs)
	}
	return errs
}

func checkField(v interface{}, path *field.Path, f confField, errs field.ErrorList) field.ErrorList {
	switch f.typ {
	case durationConf:
		s, ok := v.(string)
		if !ok {
			return append(errs, field.TypeInvalid(path, typeName(v), `must be a duration string such as "5s" or "1h30m"`))
		}
		if !durationRE.MatchString(s) {
			return append(errs, field.Invalid(path, s, `must be a duration such as "5s", "1h30m" or "0.5s"`))
		}
		d, err := time.ParseDuration(s)
		if err != nil {
			return append(errs, field.Invalid(path, s, "must be a duration below 2562047h"))
		}
		if f.positive && d == 0 {
			return append(errs, field.Invalid(path, s, "must be greater than zero"))
		}
	case enumConf:
		s, ok := v.(string)
		if !ok {
			return append(errs, field.TypeInvalid(path, typeName(v), "must be a string"))
		}
		if !contains(f.enum, s) {
			return append(errs, field.NotSupported(path, s, f.enum))
		}
	case objectConf:
		m, ok := v.(map[string]interface{})
		if !ok {
			return append(errs, field.TypeInvalid(path, typeName(v), "must be an object"))
		}
		return checkFields(m, path, f.fields, nil, errs)
	}
	return errs
}

func sortedConfKeys(m map[string]confField) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// typeName names the JSON type of v, as the API server does in type errors ("integer", "array"),
// so that a message never copies a whole value.
func typeName(v interface{}) string {
	switch v.(type) {
	case nil:
		return "null"
	case map[string]interface{}:
		return "object"
	case []interface{}:
		return "array"
	case string:
		return "string"
	case bool:
		return "boolean"
	case int, int32, int64:
		return "integer"
	case float64:
		if x := v.(float64); x == float64(int64(x)) {
			return "integer"
		}
		return "number"
	case float32:
		return "number"
	}
	return fmt.Sprintf("%T", v)
}
