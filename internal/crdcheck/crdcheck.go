package crdcheck

import (
	"context"
	"fmt"
	"math"
	"sort"
	"sync"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/install"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	schemacel "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/listtype"
	schemaobjectmeta "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"

	"github.com/precedent-dev/precedent/internal/parallel"
)

// GroupKind is the kind of a CustomResourceDefinition.
var GroupKind = schema.GroupKind{Group: apiextensionsv1.GroupName, Kind: "CustomResourceDefinition"}

// IsCRD reports whether u is a CustomResourceDefinition.
func IsCRD(u *unstructured.Unstructured) bool { return u.GroupVersionKind().GroupKind() == GroupKind }

// Checker validates objects of the kinds its CRDs define.
type Checker struct {
	kinds map[schema.GroupKind]*definition
}

// definition is one CRD: its validators per version, and its labels.
type definition struct {
	name   string
	labels map[string]string
	scope  apiextensions.ResourceScope
	// crd is the CRD whose validators are built on first use (lazily: built-in CRDs), nil once
	// they are.
	crd      *apiextensions.CustomResourceDefinition
	once     sync.Once
	versions map[string]*version
	err      error
}

// version holds what the API server builds once per served version of a CRD.
type version struct {
	structural *structuralschema.Structural
	schema     reused
	cel        *schemacel.Validator // nil when the schema has no x-kubernetes-validations
	// embedded and listed are the fields under which the embedded objects' metadata and the
	// list types are checked.
	embedded, listed fields
}

var scheme = newScheme()

func newScheme() *kruntime.Scheme {
	s := kruntime.NewScheme()
	install.Install(s)
	return s
}

// New builds the validators of the CRDs (apiextensions.k8s.io/v1). A CRD that cannot be read, or
// whose schema is not structural, is an error naming it.
func New(crds []*unstructured.Unstructured) (*Checker, error) {
	c := &Checker{kinds: map[schema.GroupKind]*definition{}}
	return c, c.add(crds, false)
}

// WithBuiltin is New of Precedent's own CRDs (Builtin), then of crds, a later CRD winning for its
// kind. The validators of a built-in CRD are built when an object of its kind is first checked:
// an input holds few of Precedent's kinds, and building the validators of all of them (their CEL
// rules compiled) was most of what checking a small input cost.
func WithBuiltin(crds []*unstructured.Unstructured) (*Checker, error) {
	builtin, err := Builtin()
	if err != nil {
		return nil, fmt.Errorf("built-in CRDs: %w", err)
	}
	c := &Checker{kinds: map[schema.GroupKind]*definition{}}
	if err := c.add(builtin, true); err != nil {
		return nil, fmt.Errorf("built-in %w", err)
	}
	return c, c.add(crds, false)
}

// add reads the CRDs into c, building their validators now unless lazily.
func (c *Checker) add(crds []*unstructured.Unstructured, lazily bool) error {
	for _, u := range crds {
		d, gk, err := read(u)
		if err == nil && !lazily {
			_, err = d.built()
		}
		if err != nil {
			return fmt.Errorf("CustomResourceDefinition %s: %w", u.GetName(), err)
		}
		c.kinds[gk] = d
	}
	return nil
}

// read reads a CRD as the API server holds it (the internal version, defaulted).
func read(u *unstructured.Unstructured) (*definition, schema.GroupKind, error) {
	if gv := u.GroupVersionKind().GroupVersion(); gv != apiextensionsv1.SchemeGroupVersion {
		return nil, schema.GroupKind{}, fmt.Errorf("apiVersion %s is not supported: want %s", gv, apiextensionsv1.SchemeGroupVersion)
	}
	v1 := &apiextensionsv1.CustomResourceDefinition{}
	if err := kruntime.DefaultUnstructuredConverter.FromUnstructured(u.Object, v1); err != nil {
		return nil, schema.GroupKind{}, fmt.Errorf("reading: %w", err)
	}
	scheme.Default(v1)
	crd := &apiextensions.CustomResourceDefinition{}
	if err := scheme.Convert(v1, crd, nil); err != nil {
		return nil, schema.GroupKind{}, fmt.Errorf("converting to the internal version: %w", err)
	}
	d := &definition{name: crd.Name, labels: crd.Labels, scope: crd.Spec.Scope, crd: crd}
	return d, schema.GroupKind{Group: crd.Spec.Group, Kind: crd.Spec.Names.Kind}, nil
}

// built returns the validators of d's served versions, built on first use.
func (d *definition) built() (map[string]*version, error) {
	d.once.Do(func() {
		d.versions, d.err = build(d.crd)
		d.crd = nil
	})
	return d.versions, d.err
}

// build builds the validators of the served versions of crd.
func build(crd *apiextensions.CustomResourceDefinition) (map[string]*version, error) {
	versions := map[string]*version{}
	for _, v := range crd.Spec.Versions {
		if !v.Served {
			continue
		}
		val, err := apiextensions.GetSchemaForVersion(crd, v.Name)
		if err != nil {
			return nil, fmt.Errorf("version %s: %w", v.Name, err)
		}
		if val == nil || val.OpenAPIV3Schema == nil {
			return nil, fmt.Errorf("version %s has no schema", v.Name)
		}
		ver, err := newVersion(val.OpenAPIV3Schema)
		if err != nil {
			return nil, fmt.Errorf("version %s: %w", v.Name, err)
		}
		versions[v.Name] = ver
	}
	return versions, nil
}

// newVersion builds the validators the way the API server's CRD handler does: a structural schema
// with its defaults pruned, the OpenAPI schema validator (kept whole across objects: reused), and
// the CEL validator with the per-call cost limit.
func newVersion(props *apiextensions.JSONSchemaProps) (*version, error) {
	s, err := structuralschema.NewStructural(props)
	if err != nil {
		return nil, fmt.Errorf("schema is not structural: %w", err)
	}
	s = s.DeepCopy()
	if err := structuraldefaulting.PruneDefaults(s); err != nil {
		return nil, fmt.Errorf("pruning defaults: %w", err)
	}
	_, openapi, err := apiservervalidation.NewSchemaValidator(props) // the schema as the API server converts it
	if err != nil {
		return nil, fmt.Errorf("schema validator: %w", err)
	}
	return &version{structural: s, schema: newReused(openapi), cel: schemacel.NewValidator(s, true, celconfig.PerCallLimit),
		embedded: fieldsWith(s, embedded), listed: fieldsWith(s, listed)}, nil
}

// Knows reports whether a CRD for gk was given.
func (c *Checker) Knows(gk schema.GroupKind) bool {
	_, ok := c.kinds[gk]
	return ok
}

// Labels returns the labels of the CRD of gk (nil when unknown).
func (c *Checker) Labels(gk schema.GroupKind) map[string]string {
	if d, ok := c.kinds[gk]; ok {
		return d.labels
	}
	return nil
}

// Namespaced says whether the objects of gk are namespaced, by its CRD's scope; ok is false when
// no CRD defines gk.
func (c *Checker) Namespaced(gk schema.GroupKind) (namespaced, ok bool) {
	d, ok := c.kinds[gk]
	if !ok {
		return false, false
	}
	return d.scope != apiextensions.ClusterScoped, true
}

// Check does to u what the API server does to a create of it: decode whole numbers as integers
// (YAML decoding gives float64; the API server's JSON decoding gives int64), prune the fields its schema does not
// declare (each reported, as kubectl's default strict field validation rejects them), drop
// non-nullable nulls, apply the schema's defaults, then validate the schema, the list types, the
// embedded objects and, when nothing blocking was found, the x-kubernetes-validations rules within
// the runtime cost budget. u is changed in place (pruned and defaulted). Objects of kinds without a
// CRD are not checked.
func (c *Checker) Check(ctx context.Context, u *unstructured.Unstructured) field.ErrorList {
	gvk := u.GroupVersionKind()
	d, ok := c.kinds[gvk.GroupKind()]
	if !ok {
		return nil
	}
	versions, err := d.built()
	if err != nil { // a built-in CRD: TestBuiltinCRDsBuild keeps this from happening
		return field.ErrorList{field.InternalError(nil, fmt.Errorf("CustomResourceDefinition %s: %w", d.name, err))}
	}
	v, ok := versions[gvk.Version]
	if !ok {
		served := make([]string, 0, len(versions))
		for name := range versions {
			served = append(served, gvk.Group+"/"+name)
		}
		sort.Strings(served)
		return field.ErrorList{field.NotSupported(field.NewPath("apiVersion"), u.GetAPIVersion(), served)}
	}
	var n numbers
	u.Object = n.value(u.Object).(map[string]interface{})
	var errs field.ErrorList
	unknown := pruning.PruneWithOptions(u.Object, v.structural, true, structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true})
	sort.Strings(unknown)
	for _, p := range unknown {
		errs = append(errs, field.Forbidden(field.NewPath(p), fmt.Sprintf("unknown field %q", p)))
	}
	if len(errs) > 0 {
		// kubectl asks for strict field validation: the API server stops at decoding
		// ("strict decoding error: unknown field ...") and validates nothing else.
		return errs
	}
	if n.null {
		structuraldefaulting.PruneNonNullableNullsWithoutDefaults(u.Object, v.structural)
	}
	structuraldefaulting.Default(u.Object, v.structural)

	errs = append(errs, sorted(apiservervalidation.ValidateCustomResource(nil, u.Object, v.schema))...)
	errs = append(errs, v.walks(ctx, u.Object)...)
	if v.cel != nil {
		if blocking(errs) {
			errs = append(errs, field.Invalid(nil, nil, "some validation rules were not checked because the object was invalid; correct the existing errors to complete validation"))
		} else {
			cerrs, _ := v.cel.Validate(ctx, nil, v.structural, u.Object, nil, celconfig.RuntimeCELCostBudget)
			errs = append(errs, sorted(cerrs)...)
		}
	}
	return rooted(errs)
}

// walks validates the embedded objects' metadata and the list types of obj, through the fields
// that may hold them.
func (v *version) walks(ctx context.Context, obj map[string]interface{}) field.ErrorList {
	var errs field.ErrorList
	if o, ok := v.embedded.of(obj); ok {
		errs = append(errs, schemaobjectmeta.Validate(ctx, nil, o, v.structural, false)...)
	}
	if o, ok := v.listed.of(obj); ok {
		errs = append(errs, listtype.ValidateListSetsAndMaps(nil, v.structural, o)...)
	}
	return errs
}

// CheckAll is Check of each object of objs, its errors at the object's index; objects are checked
// on every CPU at once (each independently of the others, as the API server checks concurrent
// writes with the same validators).
func (c *Checker) CheckAll(ctx context.Context, objs []*unstructured.Unstructured) []field.ErrorList {
	out := make([]field.ErrorList, len(objs))
	parallel.Each(len(objs), func(i int) { out[i] = c.Check(ctx, objs[i]) })
	return out
}

// root names the whole object where the API server's validators give no field path (which
// field.Error renders "<nil>"), as JSON-schema tools such as kubeconform do.
const root = "(root)"

// rooted gives the errors without a field path the path root.
func rooted(errs field.ErrorList) field.ErrorList {
	for _, e := range errs {
		if e.Field == "" || e.Field == "<nil>" {
			e.Field = root
		}
	}
	return errs
}

// sorted orders errors by field path, then message: the schema and CEL validators walk an
// object's maps in Go's random order, and the same object must give the same lines every time.
func sorted(errs field.ErrorList) field.ErrorList {
	sort.SliceStable(errs, func(i, j int) bool {
		if errs[i].Field != errs[j].Field {
			return errs[i].Field < errs[j].Field
		}
		return errs[i].Error() < errs[j].Error()
	})
	return errs
}

// blocking reports errors after which the API server does not run the CEL rules (their inputs
// could be of the wrong type or size).
func blocking(errs field.ErrorList) bool {
	for _, e := range errs {
		switch e.Type {
		case field.ErrorTypeNotSupported, field.ErrorTypeRequired, field.ErrorTypeTooLong, field.ErrorTypeTooMany, field.ErrorTypeTypeInvalid:
			return true
		}
	}
	return false
}

// integers turns float64 values that are whole numbers into int64, as the API server's JSON
// decoding of an object does, so that integer schemas and CEL rules see integers. Maps and lists
// are changed in place, and only where a number changes (most values of an object are not).
func integers(v interface{}) interface{} {
	var n numbers
	return n.value(v)
}

// numbers is integers, noting whether the value holds a null anywhere (null): the API server's
// pruning of non-nullable nulls has nothing to do in an object that holds none, and it walks every
// field of the object to find out.
type numbers struct {
	null bool
}

// value is integers of v.
func (n *numbers) value(v interface{}) interface{} {
	switch x := v.(type) {
	case nil:
		n.null = true
	case map[string]interface{}:
		for k, e := range x {
			if i, ok := n.integer(e); ok {
				x[k] = i
			}
		}
	case []interface{}:
		for j, e := range x {
			if i, ok := n.integer(e); ok {
				x[j] = i
			}
		}
	case float64:
		if i, ok := n.integer(x); ok {
			return i
		}
	}
	return v
}

// integer is e as an int64 when e is a whole float64 (ok); maps and lists in e are changed in
// place (value), and ok is false for them.
func (n *numbers) integer(e interface{}) (int64, bool) {
	switch x := e.(type) {
	case float64:
		if x == math.Trunc(x) && x >= math.MinInt64 && x < math.MaxInt64 {
			return int64(x), true
		}
	case nil:
		n.null = true
	case map[string]interface{}, []interface{}:
		n.value(x)
	}
	return 0, false
}
