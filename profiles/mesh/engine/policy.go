package engine

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The managed kinds of the mesh profile.
const (
	KindMeshTimeout           = "MeshTimeout"
	KindMeshTrafficPermission = "MeshTrafficPermission"
)

// The targetRef kinds of the MADR.
const (
	Mesh             = "Mesh"
	MeshSubset       = "MeshSubset"
	Service          = "Service"
	ServiceSubset    = "ServiceSubset"
	Proxy            = "Proxy"
	MeshGatewayRoute = "MeshGatewayRoute"
	HTTPRoute        = "HTTPRoute"
)

// ServiceTag is the tag that names a Dataplane inbound's (or outbound's) service.
const ServiceTag = "kuma.io/service"

// Direction says which array of a policy is merged: To (outbounds) or From (inbound sources); Rules
// (rules.go) is Kuma's inbound shape.
type Direction int

const (
	To Direction = iota
	From
)

// String returns the field name of the direction's array: "to" or "from".
func (d Direction) String() string {
	switch d {
	case From:
		return "from"
	case Rules:
		return "rules"
	}
	return "to"
}

// TargetRef is the MADR's selector: a kind, and a name and tags when the kind takes them. Kuma's
// own kinds add namespace, labels, sectionName and proxyTypes (api/common/v1alpha1/targetref.go).
type TargetRef struct {
	Kind        string
	Name        string
	Tags        map[string]string
	Namespace   string
	Labels      map[string]string
	SectionName string
	ProxyTypes  []string

	// Services are the names of the MeshServices that a to item naming a MeshService only by labels
	// selects (ResolveServices); nil when not resolved (then it selects nothing).
	Services []string
}

// Element is one entry of a `to` or `from` array: its targetRef and the configuration fields that
// sit inline next to it (everything but `targetRef`).
type Element struct {
	TargetRef TargetRef
	Conf      map[string]interface{} // read-only once parsed

	leaves []leaf // Conf flattened for the merge; nil when the element was built by hand
}

// Policy is the typed view of a MeshTimeout or MeshTrafficPermission, of group
// policy.precedent.dev (the MADR's shape and order) or kuma.io (Kuma's shape and order).
type Policy struct {
	Group     string // "" is read as policy.precedent.dev
	Kind      string
	Namespace string
	Name      string
	TargetRef TargetRef
	To        []Element
	From      []Element
	Rules     []Rule // Kuma's own kinds only: spec.rules

	// Kuma's own kinds only: what its control plane sorts by besides the targetRef kind.
	Role        string // kuma.io/policy-role: system, producer, consumer or workload-owner
	Origin      string // kuma.io/origin: global, zone or ""
	DisplayName string // kuma.io/display-name, else the name
	Zone        string // kuma.io/zone: the zone the policy comes from, "" for none

	Mesh string // the kuma.io/mesh label, "" for none (the default mesh: MeshName)
}

// MeshName is the mesh the policy belongs to, as Kuma reads it: its kuma.io/mesh label, else
// "default".
func (p *Policy) MeshName() string { return meshOrDefault(p.Mesh) }

func meshOrDefault(m string) string {
	if m == "" {
		return DefaultMesh
	}
	return m
}

// Kuma reports whether the policy is one of Kuma's own kinds (group kuma.io), whose order and
// shape are Kuma's rather than the MADR's.
func (p *Policy) Kuma() bool { return p.Group == KumaGroup }

// GroupKind returns "Kind.group", as --kind takes it (e.g. "MeshTimeout.kuma.io").
func (p *Policy) GroupKind() string {
	g := p.Group
	if g == "" {
		g = PrecedentGroup
	}
	return p.Kind + "." + g
}

// matchesKind reports whether the policy is of kind, given as "Kind" (any group) or "Kind.group".
func (p *Policy) matchesKind(kind string) bool {
	return p.Kind == kind || p.GroupKind() == kind
}

// Elements returns the policy's array for the direction.
func (p *Policy) Elements(d Direction) []Element {
	if d == From {
		return p.From
	}
	return p.To
}

// ID is the policy's namespace/name (its name alone when it has no namespace).
func (p *Policy) ID() string {
	if p.Namespace == "" {
		return p.Name
	}
	return p.Namespace + "/" + p.Name
}

// ElementPath is the field path of element i of the direction's array, e.g. "spec.to[1]".
func ElementPath(d Direction, i int) string {
	return fmt.Sprintf("spec.%s[%d]", d, i)
}

// Validate runs the stateless checks of the mesh profile on obj and returns the errors with the
// exact path of each (`spec.to[1].targetRef.kind: Unsupported value: …`). Malformed input (wrong
// types, missing fields) yields field errors, never a panic.
func Validate(obj *unstructured.Unstructured) field.ErrorList {
	_, errs := Parse(obj)
	return errs
}

// Parse returns the typed view of obj and the errors of Validate. The view holds whatever could be
// read; use it only when the error list is empty.
func Parse(obj *unstructured.Unstructured) (Policy, field.ErrorList) {
	return ParseWith(obj, Options{})
}

// Options are the settings of a parse that the object does not carry.
type Options struct {
	// SystemNamespace is Kuma's system namespace (default kuma-system): a kuma.io policy there has
	// the role "system"; elsewhere its role follows from its to/from items, as Kuma computes it.
	SystemNamespace string
}

// ParseWith is Parse with options; only Kuma's own kinds use them.
func ParseWith(obj *unstructured.Unstructured, o Options) (Policy, field.ErrorList) {
	var p Policy
	var errs field.ErrorList
	if groupOf(obj.GetAPIVersion()) == KumaGroup {
		p, errs = parseKuma(obj, o)
	} else {
		p, errs = parseOwn(obj)
	}
	p.Mesh = obj.GetLabels()[MeshLabel]
	return p, errs
}

// parseOwn reads Precedent's own kinds, in the MADR's shape.
func parseOwn(obj *unstructured.Unstructured) (Policy, field.ErrorList) {
	p := Policy{Group: PrecedentGroup, Kind: obj.GetKind(), Namespace: obj.GetNamespace(), Name: obj.GetName()}
	var errs field.ErrorList
	if _, ok := confSchemas[p.Kind]; !ok {
		return p, append(errs, field.NotSupported(field.NewPath("kind"), p.Kind, []string{KindMeshTimeout, KindMeshTrafficPermission}))
	}
	specPath := field.NewPath("spec")
	raw, found := obj.Object["spec"]
	if !found || raw == nil {
		return p, append(errs, field.Required(specPath, "set spec.targetRef and spec.to or spec.from"))
	}
	spec, ok := raw.(map[string]interface{})
	if !ok {
		return p, append(errs, field.TypeInvalid(specPath, typeName(raw), "must be an object"))
	}
	var tr TargetRef
	tr, errs = parseTargetRef(spec["targetRef"], specPath.Child("targetRef"), topKinds, errs)
	p.TargetRef = tr
	listTyped := true
	for _, d := range []Direction{To, From} {
		raw, found := spec[d.String()]
		if !found || raw == nil {
			continue
		}
		path := specPath.Child(d.String())
		list, ok := raw.([]interface{})
		if !ok {
			listTyped = false
			errs = append(errs, field.TypeInvalid(path, typeName(raw), "must be a list"))
			continue
		}
		if d == To && p.Kind == KindMeshTrafficPermission {
			listTyped = false
			errs = append(errs, field.Forbidden(path, "MeshTrafficPermission configures inbound traffic only: use spec.from"))
			continue
		}
		elems := make([]Element, 0, len(list))
		for i, item := range list {
			var e Element
			e, errs = parseElement(item, path.Index(i), d, p.Kind, errs)
			elems = append(elems, e)
		}
		if d == To {
			p.To = elems
		} else {
			p.From = elems
		}
	}
	if listTyped && len(p.To)+len(p.From) == 0 {
		detail := "at least one of spec.to or spec.from must have an element"
		if p.Kind == KindMeshTrafficPermission {
			detail = "spec.from must have an element"
		}
		errs = append(errs, field.Required(specPath, detail))
	}
	errs = unknownFields(spec, specPath, errs, "targetRef", "to", "from")
	return p, errs
}

func parseElement(raw interface{}, path *field.Path, d Direction, kind string, errs field.ErrorList) (Element, field.ErrorList) {
	var e Element
	m, ok := raw.(map[string]interface{})
	if !ok {
		return e, append(errs, field.TypeInvalid(path, typeName(raw), "must be an object with a targetRef"))
	}
	allowed := toKinds
	if d == From {
		allowed = fromKinds
	}
	e.TargetRef, errs = parseTargetRef(m["targetRef"], path.Child("targetRef"), allowed, errs)
	e.Conf = make(map[string]interface{}, len(m))
	for k, v := range m {
		if k != "targetRef" {
			e.Conf[k] = v
		}
	}
	errs = checkConf(e.Conf, path, kind, errs)
	e.leaves = flatten(e.Conf)
	return e, errs
}
