package policy

import (
	"encoding/binary"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Strategy of a defaults or overrides block.
const (
	StrategyAtomic = "atomic"
	StrategyMerge  = "merge"
)

// Ref names a policy.
type Ref struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
}

func (r Ref) String() string { return r.Namespace + "/" + r.Name }

// ParseRef reads a Ref written as String writes it, namespace/name.
func ParseRef(s string) Ref {
	ns, name, _ := strings.Cut(s, "/")
	return Ref{Namespace: ns, Name: name}
}

// Compare orders refs as their Strings sort (for slices.SortFunc).
func (r Ref) Compare(o Ref) int { return strings.Compare(r.String(), o.String()) }

// TargetRef is a local policy target reference, with an optional section (listener or route rule).
type TargetRef struct {
	Group       string
	Kind        string
	Name        string
	SectionName string
	// HasNamespace is set when the reference carried a namespace field (forbidden for local refs).
	HasNamespace bool
	Path         *field.Path
}

// Block is a set of rules applied as defaults or overrides.
type Block struct {
	// Rules maps rule id to the rule body, as written.
	Rules    map[string]interface{}
	Strategy string
	When     string
	Path     *field.Path

	ids []string // the keys of Rules, sorted, when View made the block
}

// IDs returns the block's rule ids, sorted. The list is shared: callers must not modify it.
func (b *Block) IDs() []string {
	if b.ids != nil && len(b.ids) == len(b.Rules) {
		return b.ids
	}
	return sortedKeys(b.Rules)
}

// Policy is the typed view of one policy object.
type Policy struct {
	Kind       Kind
	Ref        Ref
	Created    time.Time
	Generation int64
	// UID and ResourceVersion are the object's, empty in offline input; with Ref and Generation they
	// name this version of the policy (AppendID).
	UID             string
	ResourceVersion string
	// id is the hash of that identity, computed once by View (0: not yet, for views built by hand).
	id      uint64
	Targets []TargetRef
	// Bare holds bare rules (atomic defaults); nil when absent.
	Bare      *Block
	Defaults  *Block
	Overrides *Block
	Unset     []string
	// UnsetPath is the path of the unset list.
	UnsetPath *field.Path
}

// SameAs reports whether two views of a policy say the same to the engine: kind, name, creation
// time, targets, blocks (strategy, condition, rules) and unset list. Generation and field paths are
// not compared. A re-applied, unchanged policy is the same as its stored version.
func (p *Policy) SameAs(o *Policy) bool {
	if p == o {
		return true
	}
	if p == nil || o == nil || !p.Kind.Equal(o.Kind) || p.Ref != o.Ref || !p.Created.Equal(o.Created) ||
		!slices.Equal(p.Unset, o.Unset) || len(p.Targets) != len(o.Targets) {
		return false
	}
	for i, t := range p.Targets {
		u := o.Targets[i]
		if t.Group != u.Group || t.Kind != u.Kind || t.Name != u.Name || t.SectionName != u.SectionName || t.HasNamespace != u.HasNamespace {
			return false
		}
	}
	return p.Bare.sameAs(o.Bare) && p.Defaults.sameAs(o.Defaults) && p.Overrides.sameAs(o.Overrides)
}

// AppendID appends to b the identity of this version of the policy: an 8-byte hash (FNV-1a) of its
// uid, namespace, name, generation and resourceVersion. Offline input may have no uid nor
// resourceVersion: two versions of a policy there may share an identity, which memos keyed by it
// check against what they hold (as they would a hash collision, which 64 bits make negligible).
// The hash keeps keys as short as the addresses they replaced, so memo lookups cost what they did.
func (p *Policy) AppendID(b []byte) []byte {
	id := p.id
	if id == 0 {
		id = p.hashID()
	}
	return binary.LittleEndian.AppendUint64(b, id)
}

// hashID is FNV-1a over the identity's fields, each delimited (names hold no NUL).
func (p *Policy) hashID() uint64 {
	const offset, prime = 14695981039346656037, 1099511628211
	h := uint64(offset)
	add := func(s string) {
		for i := 0; i < len(s); i++ {
			h = (h ^ uint64(s[i])) * prime
		}
		h = (h ^ 0) * prime
	}
	add(p.UID)
	add(p.Ref.Namespace)
	add(p.Ref.Name)
	for g := uint64(p.Generation); ; g >>= 8 {
		h = (h ^ (g & 0xff)) * prime
		if g>>8 == 0 {
			break
		}
	}
	add(p.ResourceVersion)
	return h
}

func (b *Block) sameAs(o *Block) bool {
	if b == nil || o == nil {
		return b == o
	}
	return b.Strategy == o.Strategy && b.When == o.When && reflect.DeepEqual(b.Rules, o.Rules)
}

// DefaultsBlock returns the defaults-side block: the bare rules (atomic defaults) or spec.defaults.
func (p *Policy) DefaultsBlock() *Block {
	if p.Bare != nil {
		return p.Bare
	}
	return p.Defaults
}

// RuleIDs lists every rule id the policy declares, sorted.
func (p *Policy) RuleIDs() []string {
	seen := map[string]bool{}
	for _, b := range []*Block{p.Bare, p.Defaults, p.Overrides} {
		if b == nil {
			continue
		}
		for id := range b.Rules {
			seen[id] = true
		}
	}
	ids := make([]string, 0, len(seen))
	for id := range seen {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// Less orders policies by precedence: older creationTimestamp first, then namespace/name.
//
// A model may order ties its own way (Model.Less): Kuadrant's compares "namespace/name" as one
// string, as its operator does.
func Less(a, b *Policy) bool {
	if m := a.Kind.model(); m.Less != nil {
		return m.Less(a, b)
	}
	return createdLess(a, b)
}

// createdLess is the order of GEP-713 and the RFC: older creationTimestamp first, then namespace,
// then name.
func createdLess(a, b *Policy) bool {
	if !a.Created.Equal(b.Created) {
		return a.Created.Before(b.Created)
	}
	if a.Ref.Namespace != b.Ref.Namespace {
		return a.Ref.Namespace < b.Ref.Namespace
	}
	return a.Ref.Name < b.Ref.Name
}

var specPath = field.NewPath("spec")

// View decodes obj as a policy of kind k. Structural problems (wrong types, unknown strategies are
// left to validate) are returned as field errors; the view is still returned with what could be read.
func View(k Kind, obj *unstructured.Unstructured) (*Policy, field.ErrorList) {
	p := &Policy{
		Kind:       k,
		Ref:        Ref{Namespace: obj.GetNamespace(), Name: obj.GetName()},
		Created:    obj.GetCreationTimestamp().Time,
		Generation: obj.GetGeneration(),
		UID:        string(obj.GetUID()),

		ResourceVersion: obj.GetResourceVersion(),
	}
	p.id = p.hashID()
	var errs field.ErrorList
	specRaw, ok := obj.Object["spec"]
	if !ok || specRaw == nil {
		return p, field.ErrorList{field.Required(specPath, "a policy needs a spec")}
	}
	spec, ok := specRaw.(map[string]interface{})
	if !ok {
		return p, field.ErrorList{field.Invalid(specPath, typeName(specRaw), "must be an object")}
	}
	errs = append(errs, p.readTargets(spec)...)
	if read := k.model().Read; read != nil {
		errs = append(errs, read(p, spec)...)
	}
	for _, b := range []*Block{p.Bare, p.Defaults, p.Overrides} {
		if b != nil {
			b.ids = sortedKeys(b.Rules) // the fold walks rules in this order, once per path
		}
	}
	return p, errs
}

func (p *Policy) readTargets(spec map[string]interface{}) field.ErrorList {
	var errs field.ErrorList
	if raw, ok := spec["targetRef"]; ok && raw != nil {
		t, err := readTarget(raw, specPath.Child("targetRef"))
		if err != nil {
			return append(errs, err)
		}
		p.Targets = append(p.Targets, t)
	}
	if raw, ok := spec["targetRefs"]; ok && raw != nil {
		list, ok := raw.([]interface{})
		if !ok {
			return append(errs, field.Invalid(specPath.Child("targetRefs"), typeName(raw), "must be a list"))
		}
		for i, item := range list {
			t, err := readTarget(item, specPath.Child("targetRefs").Index(i))
			if err != nil {
				errs = append(errs, err)
				continue
			}
			p.Targets = append(p.Targets, t)
		}
	}
	return errs
}

func readTarget(raw interface{}, path *field.Path) (TargetRef, *field.Error) {
	m, ok := raw.(map[string]interface{})
	if !ok {
		return TargetRef{}, field.Invalid(path, typeName(raw), "must be an object with group, kind and name")
	}
	t := TargetRef{Path: path}
	// In the schema's order, so that the error named is the same on every read.
	for _, f := range []struct {
		key string
		dst *string
	}{{"group", &t.Group}, {"kind", &t.Kind}, {"name", &t.Name}, {"sectionName", &t.SectionName}} {
		key, dst := f.key, f.dst
		v, ok := m[key]
		if !ok || v == nil {
			continue
		}
		s, ok := v.(string)
		if !ok {
			return TargetRef{}, field.Invalid(path.Child(key), typeName(v), "must be a string")
		}
		*dst = s
	}
	_, t.HasNamespace = m["namespace"]
	return t, nil
}

func (p *Policy) readDefaultsOverrides(spec map[string]interface{}) field.ErrorList {
	var errs field.ErrorList
	k := p.Kind
	if raw, ok := spec[k.RulesField]; ok && raw != nil {
		rules, rerrs := readRules(k, raw, specPath.Child(k.RulesField))
		errs = append(errs, rerrs...)
		p.Bare = &Block{Rules: rules, Strategy: StrategyAtomic, Path: specPath}
	}
	for _, name := range []string{"defaults", "overrides"} {
		raw, ok := spec[name]
		if !ok || raw == nil {
			continue
		}
		b, berrs := readBlock(k, raw, specPath.Child(name))
		errs = append(errs, berrs...)
		if b == nil {
			continue
		}
		if name == "defaults" {
			p.Defaults = b
		} else {
			p.Overrides = b
		}
	}
	if raw, ok := spec["unset"]; ok && raw != nil {
		p.UnsetPath = specPath.Child("unset")
		list, ok := raw.([]interface{})
		if !ok {
			errs = append(errs, field.Invalid(p.UnsetPath, typeName(raw), "must be a list of rule ids"))
		} else {
			for i, item := range list {
				s, ok := item.(string)
				if !ok {
					errs = append(errs, field.Invalid(p.UnsetPath.Index(i), typeName(item), "must be a string rule id"))
					s = ""
				}
				p.Unset = append(p.Unset, s)
			}
		}
	}
	return errs
}

func readBlock(k Kind, raw interface{}, path *field.Path) (*Block, field.ErrorList) {
	m, ok := raw.(map[string]interface{})
	if !ok {
		return nil, field.ErrorList{field.Invalid(path, typeName(raw), "must be an object")}
	}
	var errs field.ErrorList
	b := &Block{Path: path, Rules: map[string]interface{}{}}
	if rr, ok := m[k.RulesField]; ok && rr != nil {
		b.Rules, errs = readRules(k, rr, path.Child(k.RulesField))
	}
	errs = append(errs, readStrategy(m, b, path)...)
	if k.ConditionField != "" {
		if w, ok := m[k.ConditionField]; ok && w != nil {
			str, ok := w.(string)
			if !ok {
				errs = append(errs, field.Invalid(path.Child(k.ConditionField), typeName(w), "must be a CEL expression string"))
			}
			b.When = str
		}
	}
	return b, errs
}

// ReadStrategy reads the strategy of a block object for a model that reads its own spec.
func ReadStrategy(m map[string]interface{}, b *Block, path *field.Path) field.ErrorList {
	return readStrategy(m, b, path)
}

// TypeName is how field errors name the JSON type of v ("object", "list", …).
func TypeName(v interface{}) string { return typeName(v) }

// readStrategy reads the strategy of the block object m (at path) into b, left as it is when absent.
func readStrategy(m map[string]interface{}, b *Block, path *field.Path) field.ErrorList {
	s, ok := m["strategy"]
	if !ok || s == nil {
		return nil
	}
	str, ok := s.(string)
	b.Strategy = str
	if !ok {
		return field.ErrorList{field.Invalid(path.Child("strategy"), typeName(s), "must be a string")}
	}
	return nil
}

// readRules flattens a rules field into rule id → body.
func readRules(k Kind, raw interface{}, path *field.Path) (map[string]interface{}, field.ErrorList) {
	rules := map[string]interface{}{}
	m, ok := raw.(map[string]interface{})
	if !ok {
		return rules, field.ErrorList{field.Invalid(path, typeName(raw), "must be a map of named rules")}
	}
	if len(k.Sections) == 0 {
		for name, body := range m {
			rules[name] = body
		}
		return rules, nil
	}
	var errs field.ErrorList
	for _, section := range sortedKeys(m) {
		if !contains(k.Sections, section) {
			errs = append(errs, field.NotSupported(path.Child(section), section, k.Sections))
			continue
		}
		sm, ok := m[section].(map[string]interface{})
		if !ok {
			if m[section] != nil {
				errs = append(errs, field.Invalid(path.Child(section), typeName(m[section]), "must be a map of named rules"))
			}
			continue
		}
		for name, body := range sm {
			rules[section+"."+name] = body
		}
	}
	return rules, errs
}

// BareForm renders rules (rule id → body) in the bare form of the kind: {"rules": {section: {name: body}}}
// or {"limits": {name: body}}; a GEP-713 kind rebuilds the nested configuration object (its model says).
func BareForm(k Kind, rules map[string]interface{}) map[string]interface{} {
	if f := k.model().BareForm; f != nil {
		return f(k, rules)
	}
	return rulesBareForm(k, rules)
}

// rulesBareForm is the bare form of a kind of named rules, flat or in sections.
func rulesBareForm(k Kind, rules map[string]interface{}) map[string]interface{} {
	out := map[string]interface{}{}
	if len(k.Sections) == 0 {
		for id, body := range rules {
			out[id] = body
		}
		return map[string]interface{}{k.RulesField: out}
	}
	for id, body := range rules {
		section, name, _ := strings.Cut(id, ".")
		sm, ok := out[section].(map[string]interface{})
		if !ok {
			sm = map[string]interface{}{}
			out[section] = sm
		}
		sm[name] = body
	}
	return map[string]interface{}{k.RulesField: out}
}

// ValidRuleID reports whether id is well formed for the kind ("<section>.<name>" or "<name>").
func ValidRuleID(k Kind, id string) bool {
	if id == "" {
		return false
	}
	if len(k.Sections) == 0 {
		return true
	}
	section, name, ok := strings.Cut(id, ".")
	return ok && name != "" && contains(k.Sections, section)
}

func typeName(v interface{}) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case bool:
		return "boolean"
	case int64, int, int32, float64:
		return "number"
	case []interface{}:
		return "list"
	case map[string]interface{}:
		return "object"
	default:
		return fmt.Sprintf("%T", v)
	}
}

func sortedKeys(m map[string]interface{}) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
