package crdcheck

import (
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
)

// fields are the top-level fields of an object that one of the API server's whole-object walks
// (the embedded objects' metadata, the list types) can find something wrong under: those whose
// schema, or a schema below it, has what the walk checks. The walks go through every field of
// every object and allocate a field path at each; past the fields that hold nothing to check, they
// find nothing. nil means every field (the root's own schema has it, or names fields otherwise
// than by properties).
type fields map[string]bool

// fieldsWith is the fields of the root schema s under which some schema has has.
func fieldsWith(s *structuralschema.Structural, has func(*structuralschema.Structural) bool) fields {
	if has(s) || s.AdditionalProperties != nil || s.XPreserveUnknownFields {
		return nil
	}
	out := fields{}
	for name := range s.Properties {
		p := s.Properties[name]
		if below(&p, has) {
			out[name] = true
		}
	}
	return out
}

// below reports whether s or a schema below it has has.
func below(s *structuralschema.Structural, has func(*structuralschema.Structural) bool) bool {
	if s == nil {
		return false
	}
	if has(s) || below(s.Items, has) {
		return true
	}
	if s.AdditionalProperties != nil && below(s.AdditionalProperties.Structural, has) {
		return true
	}
	for name := range s.Properties {
		p := s.Properties[name]
		if below(&p, has) {
			return true
		}
	}
	return false
}

// of is obj with only the fields f (obj itself when f is every field); ok is false when obj holds
// none of them, and the walk has nothing to find.
func (f fields) of(obj map[string]interface{}) (map[string]interface{}, bool) {
	if f == nil {
		return obj, true
	}
	var out map[string]interface{}
	for name := range f {
		if v, ok := obj[name]; ok {
			if out == nil {
				out = make(map[string]interface{}, len(f))
			}
			out[name] = v
		}
	}
	return out, out != nil
}

// embedded says a schema holds an object whose metadata the API server validates.
func embedded(s *structuralschema.Structural) bool { return s.XEmbeddedResource }

// listed says a schema is a list whose items the API server checks for duplicates.
func listed(s *structuralschema.Structural) bool {
	return s.XListType != nil && (*s.XListType == "set" || *s.XListType == "map")
}
