package engine

import (
	"sort"
	"strconv"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Group is kgateway's API group; TrafficPolicy its policy kind.
const (
	Group         = "gateway.kgateway.dev"
	TrafficPolicy = "TrafficPolicy"
	// GatewayGroup is Gateway API's group, XGroup its experimental one (ListenerSet).
	GatewayGroup = "gateway.networking.k8s.io"
	XGroup       = "gateway.networking.x-k8s.io"
	// Annotation is the parent's choice of how children inherit (api/annotations).
	Annotation = "kgateway.dev/inherited-policy-priority"
	// WeightAnnotation orders a policy among those attached to one target: higher first, then
	// older (api/annotations PolicyPrecedenceWeight; 0 when unset).
	WeightAnnotation = "kgateway.dev/policy-weight"
	// DelegationLabel selects child routes for a `delegation.kgateway.dev` `label` backendRef
	// (api/labels/delegation.go DelegationLabelSelector).
	DelegationLabel = "delegation.kgateway.dev/label"
	// DelegationGroup and DelegationKind name a label backendRef; WildcardNamespace selects the
	// labelled routes of every namespace (DelegationLabelSelectorWildcardNamespace's default).
	DelegationGroup   = "delegation.kgateway.dev"
	DelegationKind    = "label"
	WildcardNamespace = "all"
)

// Key names a namespaced object.
type Key struct{ Namespace, Name string }

func (k Key) String() string { return k.Namespace + "/" + k.Name }

// Target is one targetRef of a policy (in the policy's namespace).
type Target struct {
	Kind, Name, Section string
}

// Policy is a TrafficPolicy as the engine reads it: its targets and its top-level policy fields
// (spec without targetRefs and targetSelectors), the units kgateway's shallow merge replaces.
type Policy struct {
	Ref     Key
	Created time.Time
	Weight  int32
	Targets []Target
	// Selectors are targetSelectors: the routes (or Gateways) of the namespace with these labels.
	Selectors []Selector
	Fields    map[string]interface{}
}

// Selector is one targetSelectors entry: the objects of its kind in the policy's namespace with
// its labels, at its section (a listener of a Gateway or ListenerSet, a rule of a route) when set.
type Selector struct {
	Kind    string
	Section string
	Labels  map[string]string
}

// attachable are the kinds a TrafficPolicy targets (the CRD's enum).
var attachable = map[string]bool{"Gateway": true, "ListenerSet": true, "XListenerSet": true, "HTTPRoute": true}

// Read reads a TrafficPolicy; errors carry field paths, and an object that does not parse yields no
// policy.
func Read(u *unstructured.Unstructured) (*Policy, field.ErrorList) {
	spec, ok := u.Object["spec"].(map[string]interface{})
	specPath := field.NewPath("spec")
	if !ok {
		return nil, field.ErrorList{field.Required(specPath, "a TrafficPolicy needs a spec")}
	}
	p := &Policy{Ref: Key{u.GetNamespace(), u.GetName()}, Created: u.GetCreationTimestamp().Time, Fields: map[string]interface{}{}}
	var errs field.ErrorList
	if v, ok := u.GetAnnotations()[WeightAnnotation]; ok {
		// pkg/pluginsdk/utils/policy.go ParsePrecedenceWeightAnnotation: a 32-bit integer
		w, err := strconv.ParseInt(v, 10, 32)
		if err != nil {
			errs = append(errs, field.Invalid(field.NewPath("metadata", "annotations").Key(WeightAnnotation), v, "must be a 32-bit integer"))
		}
		p.Weight = int32(w)
	}
	refs, _ := spec["targetRefs"].([]interface{})
	for i, r := range refs {
		path := specPath.Child("targetRefs").Index(i)
		m, _ := r.(map[string]interface{})
		t := Target{Kind: str(m, "kind"), Name: str(m, "name"), Section: str(m, "sectionName")}
		switch {
		case !attachable[t.Kind]:
			errs = append(errs, field.NotSupported(path.Child("kind"), t.Kind, kindsList()))
		case t.Name == "":
			errs = append(errs, field.Required(path.Child("name"), "name the target"))
		default:
			p.Targets = append(p.Targets, t)
		}
	}
	sels, _ := spec["targetSelectors"].([]interface{})
	for i, s := range sels {
		path := specPath.Child("targetSelectors").Index(i)
		m, _ := s.(map[string]interface{})
		sel := Selector{Kind: str(m, "kind"), Section: str(m, "sectionName"), Labels: map[string]string{}}
		ml, _ := m["matchLabels"].(map[string]interface{})
		for k, v := range ml {
			if s, ok := v.(string); ok {
				sel.Labels[k] = s
			}
		}
		switch {
		case !attachable[sel.Kind]:
			errs = append(errs, field.NotSupported(path.Child("kind"), sel.Kind, kindsList()))
		case len(sel.Labels) == 0:
			errs = append(errs, field.Required(path.Child("matchLabels"), "select targets by at least one label"))
		default:
			p.Selectors = append(p.Selectors, sel)
		}
	}
	for k, v := range spec {
		if k == "targetRefs" || k == "targetSelectors" || v == nil {
			continue
		}
		p.Fields[k] = v
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return p, nil
}

func kindsList() []string {
	out := make([]string, 0, len(attachable))
	for k := range attachable {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func str(m map[string]interface{}, k string) string {
	s, _ := m[k].(string)
	return s
}

// FieldNames are p's top-level policy fields, sorted.
func (p *Policy) FieldNames() []string {
	out := make([]string, 0, len(p.Fields))
	for k := range p.Fields {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
