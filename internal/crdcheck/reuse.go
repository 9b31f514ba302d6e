package crdcheck

import (
	"sync"
	"sync/atomic"

	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/kube-openapi/pkg/validation/spec"
	"k8s.io/kube-openapi/pkg/validation/strfmt"
	"k8s.io/kube-openapi/pkg/validation/validate"
)

// maxReused bounds the validators one schema keeps for reuse: the fields of free-form maps
// (additionalProperties) are named by the objects, and a large input must not grow the cache
// without end; past the bound, validators are built per call as the API server builds them.
const maxReused = 1 << 14

// reused is the OpenAPI schema validator of one CRD version, built once and kept, with the
// validators of its fields and items built on first use and kept too. The API server's validator
// (apiservervalidation.NewSchemaValidator) builds the whole tree again for every object, which is
// most of the cost of checking a large input. kube-openapi's validators hold nothing of the value
// they validate (each call returns a new Result), so one tree serves every object, concurrently.
type reused struct {
	root *validate.SchemaValidator
}

// Validate validates v against the schema, as apiservervalidation's validator does for a create.
func (r reused) Validate(v interface{}, _ ...apiservervalidation.ValidationOption) *validate.Result {
	return r.root.Validate(v)
}

// newReused builds the validator of the OpenAPI form of a CRD version's schema, with the root,
// path and formats the API server's validator uses.
func newReused(s *spec.Schema) reused {
	return reused{root: (&node{schema: s, count: new(atomic.Int64)}).validator(s, nil, "", strfmt.Default)}
}

// node is one schema of the tree and the validators of its children, by how each is reached.
type node struct {
	schema *spec.Schema
	fields sync.Map // property → *validate.SchemaValidator
	items  sync.Map // item → *validate.SchemaValidator
	count  *atomic.Int64
}

// property is a child reached through an object's property, or through its additionalProperties.
type property struct {
	name       string
	additional bool
}

// item is a child reached through an array's index, with the schema it validates against (its
// items, one of its tuple items or its additionalItems: kube-openapi passes those by stable pointer).
type item struct {
	index  int
	schema *spec.Schema
}

// validator builds the validator of s (the schema of n) whose children come from n.
func (n *node) validator(s *spec.Schema, root interface{}, path string, formats strfmt.Registry) *validate.SchemaValidator {
	return validate.NewSchemaValidator(s, root, path, formats, func(o *validate.SchemaValidatorOptions) {
		o.NewValidatorForField = n.forField
		o.NewValidatorForIndex = n.forIndex
	})
}

// forField returns the validator of a property of n's object. kube-openapi passes a property's
// schema as a pointer to a copy, so the child is recognized by its name and by where it comes
// from: the additionalProperties schema (by pointer), else, when the object has no
// patternProperties, its properties (the only other source); with patternProperties, a property
// could match both, and its validator is built per call.
func (n *node) forField(name string, s *spec.Schema, root interface{}, path string, formats strfmt.Registry, _ ...validate.Option) validate.ValueValidator {
	var k property
	switch {
	case n.schema.AdditionalProperties != nil && s == n.schema.AdditionalProperties.Schema:
		k = property{name: name, additional: true}
	case len(n.schema.PatternProperties) == 0:
		k = property{name: name}
	default:
		return validate.NewSchemaValidator(s, root, path, formats)
	}
	return n.child(&n.fields, k, s, root, path, formats)
}

// forIndex returns the validator of an item of n's array.
func (n *node) forIndex(index int, s *spec.Schema, root interface{}, path string, formats strfmt.Registry, _ ...validate.Option) validate.ValueValidator {
	return n.child(&n.items, item{index: index, schema: s}, s, root, path, formats)
}

// child returns the validator of the child k of n, built on first use; past maxReused validators
// in the tree, it is built for this call only.
func (n *node) child(m *sync.Map, k interface{}, s *spec.Schema, root interface{}, path string, formats strfmt.Registry) validate.ValueValidator {
	if v, ok := m.Load(k); ok {
		return v.(*validate.SchemaValidator)
	}
	if n.count.Load() >= maxReused {
		return validate.NewSchemaValidator(s, root, path, formats)
	}
	c := &node{schema: s, count: n.count}
	v, loaded := m.LoadOrStore(k, c.validator(s, root, path, formats))
	if !loaded {
		n.count.Add(1)
	}
	return v.(*validate.SchemaValidator)
}
