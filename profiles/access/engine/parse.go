package engine

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Limits of the shape (kube-agentic-networking's XAccessPolicy).
const (
	MaxTargetRefs = 10
	MaxRules      = 10
)

// Validate runs the stateless checks of an AccessPolicy (or XAccessPolicy) object. It never panics:
// a value of the wrong type anywhere is a field error.
func Validate(obj *unstructured.Unstructured, s Settings) field.ErrorList {
	_, errs := Parse(obj, s)
	return errs
}

// Parse decodes obj into the typed view and runs the stateless checks. The view is usable only when
// the error list is empty.
func Parse(obj *unstructured.Unstructured, s Settings) (Policy, field.ErrorList) {
	s = s.withDefaults()
	p := Policy{
		Namespace:         obj.GetNamespace(),
		Name:              obj.GetName(),
		CreationTimestamp: obj.GetCreationTimestamp().Time,
	}
	p.key = p.Namespace + "/" + p.Name
	specPath := field.NewPath("spec")
	raw, ok := obj.Object["spec"]
	if !ok || raw == nil {
		return p, field.ErrorList{field.Required(specPath, "set spec.targetRefs and spec.rules")}
	}
	spec, ok := raw.(map[string]interface{})
	if !ok {
		return p, field.ErrorList{field.Invalid(specPath, kindOf(raw), "must be an object with targetRefs and rules")}
	}
	var errs field.ErrorList
	p.Targets, errs = parseTargets(spec, specPath.Child("targetRefs"), s)
	var ruleErrs field.ErrorList
	p.Rules, ruleErrs = parseRules(spec, specPath.Child("rules"), p.Namespace, s)
	return p, append(errs, ruleErrs...)
}

func parseTargets(spec map[string]interface{}, path *field.Path, s Settings) ([]TargetRef, field.ErrorList) {
	items, errs := list(spec, "targetRefs", path, MaxTargetRefs, "add 1 to 10 target references, each a Gateway or a "+s.BackendKind)
	if len(errs) > 0 {
		return nil, errs
	}
	targets := make([]TargetRef, 0, len(items))
	seen := make(map[TargetRef]bool, len(items))
	firstKind := ""
	for i, item := range items {
		ip := path.Index(i)
		m, ok := item.(map[string]interface{})
		if !ok {
			errs = append(errs, field.Invalid(ip, kindOf(item), "must be an object with group, kind and name"))
			continue
		}
		var t TargetRef
		var es field.ErrorList
		t.Group, es = str(m, "group", ip, false, "")
		errs = append(errs, es...)
		t.Kind, es = str(m, "kind", ip, true, "set kind to Gateway or "+s.BackendKind)
		errs = append(errs, es...)
		t.Name, es = str(m, "name", ip, true, "set name to the target's name")
		errs = append(errs, es...)
		t.SectionName, es = str(m, "sectionName", ip, false, "")
		errs = append(errs, es...)
		if len(es) == 0 && t.SectionName != "" {
			for _, msg := range validation.IsDNS1123Subdomain(t.SectionName) {
				errs = append(errs, field.Invalid(ip.Child("sectionName"), t.SectionName, msg))
			}
		}
		if _, ok := m["namespace"]; ok {
			errs = append(errs, field.Forbidden(ip.Child("namespace"), "a local target reference is in the policy's namespace: remove namespace"))
		}
		switch t.Kind {
		case "":
		case GatewayKind:
			if t.Group != GatewayGroup {
				errs = append(errs, field.NotSupported(ip.Child("group"), t.Group, []string{GatewayGroup}))
			}
		case s.BackendKind:
			if t.Group != s.BackendGroup {
				errs = append(errs, field.NotSupported(ip.Child("group"), t.Group, []string{s.BackendGroup}))
			}
		default:
			errs = append(errs, field.NotSupported(ip.Child("kind"), t.Kind, []string{GatewayKind, s.BackendKind}))
		}
		if supported(t.Kind, s) {
			if firstKind == "" {
				firstKind = t.Kind
			} else if t.Kind != firstKind {
				errs = append(errs, field.Invalid(ip.Child("kind"), t.Kind, "all targetRefs must have the same kind"))
			}
		}
		if seen[t] {
			errs = append(errs, field.Duplicate(ip, targetString(t)))
		}
		seen[t] = true
		targets = append(targets, t)
	}
	return targets, errs
}

func supported(kind string, s Settings) bool { return kind == GatewayKind || kind == s.BackendKind }

func targetString(t TargetRef) string {
	s := t.Kind + "/" + t.Name
	if t.SectionName != "" {
		s += "/" + t.SectionName
	}
	return s
}

// list reads m[key] as a list of 1 to max items.
func list(m map[string]interface{}, key string, path *field.Path, max int, howto string) ([]interface{}, field.ErrorList) {
	raw, ok := m[key]
	if !ok || raw == nil {
		return nil, field.ErrorList{field.Required(path, howto)}
	}
	items, ok := raw.([]interface{})
	if !ok {
		return nil, field.ErrorList{field.Invalid(path, kindOf(raw), "must be a list: "+howto)}
	}
	if len(items) == 0 {
		return nil, field.ErrorList{field.Required(path, howto)}
	}
	if len(items) > max {
		return nil, field.ErrorList{field.TooMany(path, len(items), max)}
	}
	return items, nil
}

// str reads m[key] as a string; required says whether it must be present and non-empty.
func str(m map[string]interface{}, key string, path *field.Path, required bool, howto string) (string, field.ErrorList) {
	p := path.Child(key)
	raw, ok := m[key]
	if !ok || raw == nil {
		if required {
			return "", field.ErrorList{field.Required(p, howto)}
		}
		return "", nil
	}
	v, ok := raw.(string)
	if !ok {
		return "", field.ErrorList{field.Invalid(p, kindOf(raw), "must be a string")}
	}
	if required && v == "" {
		return "", field.ErrorList{field.Required(p, howto)}
	}
	return v, nil
}

// object reads m[key] as an object; present says whether the key is set at all.
func object(m map[string]interface{}, key string, path *field.Path) (obj map[string]interface{}, present bool, errs field.ErrorList) {
	raw, ok := m[key]
	if !ok || raw == nil {
		return nil, false, nil
	}
	obj, ok = raw.(map[string]interface{})
	if !ok {
		return nil, true, field.ErrorList{field.Invalid(path.Child(key), kindOf(raw), "must be an object")}
	}
	return obj, true, nil
}

// kindOf names the JSON type of v for a message, without copying values out.
func kindOf(v interface{}) string {
	switch v.(type) {
	case map[string]interface{}:
		return "object"
	case []interface{}:
		return "list"
	case string:
		return "string"
	case bool:
		return "boolean"
	case int64, int32, int, float64, float32:
		return "number"
	case nil:
		return "null"
	}
	return fmt.Sprintf("%T", v)
}

func joinMsgs(msgs []string) string { return strings.Join(msgs, "; ") }
