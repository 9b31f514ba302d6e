package crdcheck

import (
	"sync"
	"sync/atomic"

	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/kube-openapi/pkg/validation/errors"
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
	schema *spec.Schema
	root   validate.ValueValidator
}

// Validate validates v against the schema, as apiservervalidation's validator does for a create.
func (r reused) Validate(v interface{}, _ ...apiservervalidation.ValidationOption) *validate.Result {
	return r.root.Validate(v)
}

// newReused builds the validator of the OpenAPI form of a CRD version's schema, with the root,
// path and formats the API server's validator uses.
func newReused(s *spec.Schema) reused {
	return reused{schema: s, root: newNode(s, new(atomic.Int64)).validator(nil, "", strfmt.Default)}
}

// node is one schema of the tree and the validators of its children, by how each is reached.
type node struct {
	schema *spec.Schema
	fields sync.Map // property → validate.ValueValidator
	items  sync.Map // item → validate.ValueValidator
	count  *atomic.Int64
	// props are stable copies of the schema's properties, for the validators of lean nodes.
	props map[string]*spec.Schema
}

func newNode(s *spec.Schema, count *atomic.Int64) *node {
	n := &node{schema: s, count: count}
	if lean(s) {
		n.props = make(map[string]*spec.Schema, len(s.Properties))
		for name, p := range s.Properties {
			n.props[name] = &p
		}
	}
	return n
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

// validator builds the validator of n's schema, whose children come from n: an object's fields
// through n's propsValidator when its schema allows one, else kube-openapi's.
func (n *node) validator(root interface{}, path string, formats strfmt.Registry) validate.ValueValidator {
	s := n.schema
	if n.props != nil {
		bare := *s
		bare.Properties, bare.Required = nil, nil
		s = &bare
	}
	v := validate.NewSchemaValidator(s, root, path, formats, func(o *validate.SchemaValidatorOptions) {
		o.NewValidatorForField = n.forField
		o.NewValidatorForIndex = n.forIndex
	})
	if n.props == nil {
		return v
	}
	return &propsValidator{SchemaValidator: v, node: n, root: root, path: path, formats: formats}
}

// lean reports whether an object schema's properties can be validated by propsValidator rather
// than by kube-openapi's object validator, which copies the schema of every property it declares
// at every object it validates (most of what checking a large input allocated): an object with
// properties and nothing else that could give one of its fields a schema or an error
// (additionalProperties, patternProperties, dependencies) or whose errors rank by the match count
// (allOf, anyOf, oneOf, not: kept whole, as kube-openapi builds them).
func lean(s *spec.Schema) bool {
	return len(s.Properties) > 0 && s.AdditionalProperties == nil && len(s.PatternProperties) == 0 &&
		len(s.AllOf) == 0 && len(s.AnyOf) == 0 && len(s.OneOf) == 0 && s.Not == nil && len(s.Dependencies) == 0
}

// propsValidator validates an object the way kube-openapi's SchemaValidator does, its properties and
// required fields checked here (the SchemaValidator holds the schema without them) by going
// through the fields the value holds rather than through every field the schema declares. The
// errors are the same (their order may differ: Check sorts them), and so is the match count that
// anyOf and oneOf rank their failures by.
type propsValidator struct {
	*validate.SchemaValidator
	node    *node
	root    interface{}
	path    string
	formats strfmt.Registry
}

// Validate is SchemaValidator.Validate of the whole schema.
func (o *propsValidator) Validate(data interface{}) *validate.Result {
	res := o.SchemaValidator.Validate(data)
	val, ok := data.(map[string]interface{})
	if !ok {
		// nil, or a value of another type: kube-openapi's object validator does not apply.
		return res
	}
	for name, v := range val {
		p, ok := o.node.props[name]
		if !ok {
			continue
		}
		path := name
		if o.path != "" {
			path = o.path + "." + name
		}
		res.Merge(o.node.forField(name, p, o.root, path, o.formats).Validate(v))
	}
	for _, k := range o.node.schema.Required {
		if _, ok := val[k]; !ok {
			res.AddErrors(errors.Required(o.path+"."+k, "body"))
		}
	}
	return res
}

// forField returns the validator of a property of n's object. kube-openapi passes a property's
// schema as a pointer to a copy, so the child is recognized by its name and by where it comes
// from: the additionalProperties schema (by pointer), else, when the object has no
// patternProperties, its properties (the only other source: the branches of allOf, anyOf, oneOf
// and not are validated without n's options); with patternProperties, a property could match
// both, and its validator is built per call.
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
		return v.(validate.ValueValidator)
	}
	if n.count.Load() >= maxReused {
		return validate.NewSchemaValidator(s, root, path, formats)
	}
	v, loaded := m.LoadOrStore(k, newNode(s, n.count).validator(root, path, formats))
	if !loaded {
		n.count.Add(1)
	}
	return v.(validate.ValueValidator)
}
