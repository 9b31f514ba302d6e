package engine

import (
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The groups of the mesh kinds: Precedent's look-alikes of the MADR, and Kuma's own.
const (
	PrecedentGroup = "policy.precedent.dev"
	KumaGroup      = "kuma.io"
)

// Kuma's targetRef kinds (kumahq/kuma v2.14 api/common/v1alpha1/targetref.go). Mesh and MeshSubset
// are shared with the MADR.
const (
	DataplaneRef         = "Dataplane"
	MeshService          = "MeshService"
	MeshServiceSubset    = "MeshServiceSubset"
	MeshGateway          = "MeshGateway"
	MeshHTTPRoute        = "MeshHTTPRoute"
	MeshExternalService  = "MeshExternalService"
	MeshMultiZoneService = "MeshMultiZoneService"
)

// Kuma's labels on policies (api/mesh/v1alpha1/dataplane_helpers.go, pkg/core/resources/model).
const (
	MeshLabel        = "kuma.io/mesh"
	PolicyRoleLabel  = "kuma.io/policy-role"
	OriginLabel      = "kuma.io/origin"
	DisplayNameLabel = "kuma.io/display-name"
	// DefaultSystemNamespace is where Kuma's control plane runs and mesh-wide ("system") policies live.
	DefaultSystemNamespace = "kuma-system"
	// DefaultMesh is the mesh of a policy or Dataplane that names none.
	DefaultMesh = "default"
)

// Kuma's policy roles (api/mesh/v1alpha1/dataplane_helpers.go), least to most specific.
const (
	RoleSystem        = "system"
	RoleProducer      = "producer"
	RoleConsumer      = "consumer"
	RoleWorkloadOwner = "workload-owner"
)

var kumaRoleOrder = map[string]int{RoleSystem: 1, RoleProducer: 2, RoleConsumer: 3, RoleWorkloadOwner: 4}

// kumaOriginOrder: a zone policy beats one of unknown origin, which beats a global one
// (ResourceOrigin.Compare in api/mesh/v1alpha1/dataplane_helpers.go).
var kumaOriginOrder = map[string]int{"global": 1, "": 2, "zone": 3}

// kumaLevel is Kuma's targetRef kind order (the `order` map in api/common/v1alpha1/targetref.go):
// note Dataplane sorts just above Mesh, below MeshSubset.
var kumaLevel = map[string]int{
	Mesh: 1, DataplaneRef: 2, MeshSubset: 3, MeshGateway: 4, MeshService: 5,
	MeshExternalService: 6, MeshMultiZoneService: 7, MeshServiceSubset: 8, MeshHTTPRoute: 9,
}

// kumaTargetRefFields are the fields of Kuma's TargetRef.
var kumaTargetRefFields = []string{"kind", "name", "namespace", "labels", "tags", "sectionName", "proxyTypes", "mesh"}

// kumaKinds holds, per kind, what Kuma's validators (pkg/plugins/policies/<kind>/api/v1alpha1/validator.go,
// v2.14) accept.
type kumaKind struct {
	top, topApp []string // top-level kinds in the system namespace, and elsewhere
	to, toRoute []string // to[] kinds; and when the top level is MeshHTTPRoute or MeshGateway
	from        []string // from[] kinds (none: the kind has no from)
	conf        map[string]confField
	required    []string // fields every default must set
}

var kumaKinds = map[string]kumaKind{
	KindMeshTimeout: {
		top:     []string{Mesh, MeshSubset, DataplaneRef, MeshGateway, MeshService, MeshServiceSubset, MeshHTTPRoute},
		topApp:  []string{Mesh, DataplaneRef, MeshSubset, MeshService, MeshServiceSubset},
		to:      []string{Mesh, MeshService, MeshExternalService, MeshMultiZoneService, MeshHTTPRoute},
		toRoute: []string{Mesh, MeshExternalService},
		from:    []string{Mesh},
		conf: map[string]confField{
			"connectionTimeout": {typ: durationConf, positive: true},
			"idleTimeout":       {typ: durationConf},
			"http": {typ: objectConf, fields: map[string]confField{
				"requestTimeout":        {typ: durationConf},
				"streamIdleTimeout":     {typ: durationConf},
				"maxStreamDuration":     {typ: durationConf},
				"maxConnectionDuration": {typ: durationConf},
				"requestHeadersTimeout": {typ: durationConf},
			}},
		},
	},
	KindMeshTrafficPermission: {
		top:      []string{Mesh, MeshSubset, MeshService, MeshServiceSubset, DataplaneRef},
		topApp:   []string{Mesh, MeshSubset, MeshService, MeshServiceSubset, DataplaneRef},
		from:     []string{Mesh, MeshSubset, MeshService, MeshServiceSubset},
		conf:     map[string]confField{"action": {typ: enumConf, enum: []string{"Allow", "Deny", "AllowWithShadowDeny"}}},
		required: []string{"action"},
	},
}

// groupOf returns the group of an apiVersion ("kuma.io/v1alpha1" → "kuma.io"; "v1" → "").
func groupOf(apiVersion string) string {
	if i := strings.IndexByte(apiVersion, '/'); i >= 0 {
		return apiVersion[:i]
	}
	return ""
}

// parseKuma reads Kuma's shape: an optional spec.targetRef (Mesh when absent), spec.to[] and
// spec.from[] items `{targetRef, default: {…}}`, or spec.rules[] items `{matches?, default}` (rules.go).
func parseKuma(obj *unstructured.Unstructured, o Options) (Policy, field.ErrorList) {
	labels := obj.GetLabels()
	p := Policy{Group: KumaGroup, Kind: obj.GetKind(), Namespace: obj.GetNamespace(), Name: obj.GetName(),
		Origin: labels[OriginLabel], DisplayName: labels[DisplayNameLabel], Zone: labels[ZoneLabel]}
	if p.DisplayName == "" {
		p.DisplayName = p.Name
	}
	var errs field.ErrorList
	kk, ok := kumaKinds[p.Kind]
	if !ok {
		return p, append(errs, field.NotSupported(field.NewPath("kind"), p.Kind, []string{KindMeshTimeout, KindMeshTrafficPermission}))
	}
	specPath := field.NewPath("spec")
	spec, ok := obj.Object["spec"].(map[string]interface{})
	if !ok {
		if obj.Object["spec"] == nil {
			return p, append(errs, field.Required(specPath, "set spec.to, spec.from or spec.rules"))
		}
		return p, append(errs, field.TypeInvalid(specPath, typeName(obj.Object["spec"]), "must be an object"))
	}
	errs = unknownFields(spec, specPath, errs, kumaSpecFields(kk)...)
	var lists map[string][]interface{}
	lists, errs = kumaLists(spec, specPath, kk, errs)
	p.Role, errs = kumaPolicyRole(&p, labels, spec, lists, o, errs)
	inbound := len(lists["from"]) > 0 || len(lists["rules"]) > 0
	top := kk.top
	if p.Role != RoleSystem {
		top = kk.topApp
	}
	p.TargetRef = TargetRef{Kind: Mesh}
	if raw, found := spec["targetRef"]; found && raw != nil {
		p.TargetRef, errs = parseKumaTargetRef(raw, specPath.Child("targetRef"), top, inbound, errs)
	}
	errs = parseKumaDirections(&p, lists, specPath, kk, errs)
	p.Rules, errs = parseKumaRules(lists["rules"], specPath.Child("rules"), p.Kind, kk, p.TargetRef.Kind, errs)
	return p, errs
}

func kumaSpecFields(kk kumaKind) []string {
	if kk.to == nil {
		return []string{"targetRef", "from", "rules"}
	}
	return []string{"targetRef", "to", "from", "rules"}
}

// kumaRole computes the role Kuma's webhook stamps as kuma.io/policy-role (ComputePolicyRole in
// pkg/core/resources/labels/compute.go): system in the system namespace (or without one); elsewhere
// workload-owner with from or rules, producer when every to item is a named MeshService or
// MeshHTTPRoute of the policy's own namespace, consumer when none is; mixing is an error.
func kumaRole(p *Policy, spec map[string]interface{}, lists map[string][]interface{}, o Options) (string, *field.Error) {
	sys := o.SystemNamespace
	if sys == "" {
		sys = DefaultSystemNamespace
	}
	if p.Namespace == "" || p.Namespace == sys {
		return RoleSystem, nil
	}
	to, from := lists["to"], lists["from"]
	if len(to) > 0 && len(from) > 0 {
		return RoleConsumer, field.Forbidden(field.NewPath("spec", "from"), "a policy outside "+sys+" must not mix spec.to and spec.from: split it in two")
	}
	if len(to) == 0 {
		return RoleWorkloadOwner, nil
	}
	producer := 0
	for _, item := range to {
		m, _ := item.(map[string]interface{})
		ref, _ := m["targetRef"].(map[string]interface{})
		kind, _ := ref["kind"].(string)
		name, _ := ref["name"].(string)
		ns, _ := ref["namespace"].(string)
		if (kind == MeshService || kind == MeshHTTPRoute) && name != "" && (ns == "" || ns == p.Namespace) {
			producer++
		}
	}
	switch producer {
	case len(to):
		return RoleProducer, nil
	case 0:
		return RoleConsumer, nil
	}
	return RoleConsumer, field.Forbidden(field.NewPath("spec", "to"), "must not mix producer items (a MeshService or MeshHTTPRoute of this namespace) and consumer items")
}

func parseKumaElement(raw interface{}, path *field.Path, allowed []string, kk kumaKind, top string, errs field.ErrorList) (Element, field.ErrorList) {
	var e Element
	m, ok := raw.(map[string]interface{})
	if !ok {
		return e, append(errs, field.TypeInvalid(path, typeName(raw), "must be an object with a targetRef and a default"))
	}
	errs = unknownFields(m, path, errs, "targetRef", "default")
	if m["targetRef"] == nil {
		errs = append(errs, field.Required(path.Child("targetRef"), "set targetRef.kind"))
	} else {
		e.TargetRef, errs = parseKumaTargetRef(m["targetRef"], path.Child("targetRef"), allowed, false, errs)
	}
	defPath := path.Child("default")
	conf, ok := m["default"].(map[string]interface{})
	switch {
	case m["default"] == nil:
		conf = map[string]interface{}{}
	case !ok:
		return e, append(errs, field.TypeInvalid(defPath, typeName(m["default"]), "must be an object"))
	}
	e.Conf = conf
	for _, r := range kk.required {
		if _, ok := conf[r]; !ok {
			errs = append(errs, field.Required(defPath.Child(r), ""))
		}
	}
	errs = checkFields(conf, defPath, kk.conf, nil, errs)
	if _, isTimeout := kk.conf["connectionTimeout"]; isTimeout {
		errs = checkKumaTimeouts(conf, defPath, top, errs)
	}
	e.leaves = flatten(conf)
	return e, errs
}

// checkKumaTimeouts adds what MeshTimeout's validateDefault and validateHttp require: at least one
// timeout, at least one of the http section's main timeouts, and no connection-level timeouts under
// a MeshHTTPRoute top-level targetRef.
func checkKumaTimeouts(conf map[string]interface{}, path *field.Path, top string, errs field.ErrorList) field.ErrorList {
	if conf["connectionTimeout"] == nil && conf["idleTimeout"] == nil && conf["http"] == nil {
		return append(errs, field.Required(path, "at least one timeout must be set"))
	}
	http, _ := conf["http"].(map[string]interface{})
	if conf["http"] != nil && http != nil && http["requestTimeout"] == nil && http["streamIdleTimeout"] == nil &&
		http["maxStreamDuration"] == nil && http["maxConnectionDuration"] == nil {
		errs = append(errs, field.Required(path.Child("http"), "set at least one of requestTimeout, streamIdleTimeout, maxStreamDuration, maxConnectionDuration"))
	}
	if top == MeshHTTPRoute {
		for _, f := range []string{"connectionTimeout", "idleTimeout"} {
			if conf[f] != nil {
				errs = append(errs, field.Forbidden(path.Child(f), "must not be set when spec.targetRef.kind is MeshHTTPRoute"))
			}
		}
		for _, f := range []string{"maxStreamDuration", "maxConnectionDuration"} {
			if http != nil && http[f] != nil {
				errs = append(errs, field.Forbidden(path.Child("http", f), "must not be set when spec.targetRef.kind is MeshHTTPRoute"))
			}
		}
	}
	return errs
}

// kumaLists reads spec.to, spec.from and spec.rules (spec.to only for a kind that has it), and
// checks that rules, or to and from, are set.
func kumaLists(spec map[string]interface{}, specPath *field.Path, kk kumaKind, errs field.ErrorList) (map[string][]interface{}, field.ErrorList) {
	lists := map[string][]interface{}{}
	for _, name := range []string{"to", "from", "rules"} {
		if name == "to" && kk.to == nil {
			continue // reported as an unknown field
		}
		switch v := spec[name].(type) {
		case nil:
		case []interface{}:
			lists[name] = v
		default:
			errs = append(errs, field.TypeInvalid(specPath.Child(name), typeName(v), "must be a list"))
		}
	}
	hasTo, hasFrom, hasRules := len(lists["to"]) > 0, len(lists["from"]) > 0, len(lists["rules"]) > 0
	switch {
	case hasRules && (hasTo || hasFrom):
		errs = append(errs, field.Forbidden(specPath.Child("rules"), "spec.to and spec.from must be empty when spec.rules is set"))
	case !hasRules && !hasTo && !hasFrom:
		errs = append(errs, field.Required(specPath, "at least one of spec.to, spec.from or spec.rules must have an element"))
	}
	return lists, errs
}

// kumaPolicyRole is the policy's role: its role label, checked, or the role Kuma derives.
func kumaPolicyRole(p *Policy, labels map[string]string, spec map[string]interface{}, lists map[string][]interface{}, o Options, errs field.ErrorList) (string, field.ErrorList) {
	role := labels[PolicyRoleLabel]
	if role == "" {
		var roleErr *field.Error
		if role, roleErr = kumaRole(p, spec, lists, o); roleErr != nil {
			errs = append(errs, roleErr)
		}
		return role, errs
	}
	if _, ok := kumaRoleOrder[role]; !ok {
		errs = append(errs, field.NotSupported(field.NewPath("metadata", "labels").Key(PolicyRoleLabel), role, []string{RoleSystem, RoleProducer, RoleConsumer, RoleWorkloadOwner}))
	}
	return role, errs
}

// parseKumaDirections reads spec.to and spec.from into p (its targetRef read).
func parseKumaDirections(p *Policy, lists map[string][]interface{}, specPath *field.Path, kk kumaKind, errs field.ErrorList) field.ErrorList {
	routeTop := p.TargetRef.Kind == MeshHTTPRoute || p.TargetRef.Kind == MeshGateway
	for _, d := range []Direction{To, From} {
		list := lists[d.String()]
		path := specPath.Child(d.String())
		allowed := kk.to
		if d == To && routeTop {
			allowed = kk.toRoute
		}
		if d == From {
			allowed = kk.from
			if routeTop && len(list) > 0 {
				errs = append(errs, field.Forbidden(path, "must not be set when spec.targetRef.kind is "+p.TargetRef.Kind))
				continue
			}
		}
		elems := make([]Element, 0, len(list))
		for i, item := range list {
			var e Element
			e, errs = parseKumaElement(item, path.Index(i), allowed, kk, p.TargetRef.Kind, errs)
			elems = append(elems, e)
		}
		if d == To {
			p.To = elems
		} else {
			p.From = elems
		}
	}
	return errs
}

// parseKumaTargetRef checks a targetRef the way Kuma's ValidateTargetRef does
// (pkg/core/resources/apis/mesh/validators.go, v2.14): which fields each kind takes.
func parseKumaTargetRef(raw interface{}, path *field.Path, allowed []string, inbound bool, errs field.ErrorList) (TargetRef, field.ErrorList) {
	var r TargetRef
	m, ok := raw.(map[string]interface{})
	if !ok {
		return r, append(errs, field.TypeInvalid(path, typeName(raw), "must be an object"))
	}
	errs = unknownFields(m, path, errs, kumaTargetRefFields...)
	str := func(k string) string {
		switch v := m[k].(type) {
		case nil:
		case string:
			return v
		default:
			errs = append(errs, field.TypeInvalid(path.Child(k), typeName(v), "must be a string"))
		}
		return ""
	}
	r.Kind, r.Name, r.Namespace, r.SectionName = str("kind"), str("name"), str("namespace"), str("sectionName")
	r.Tags, errs = stringMap(m["tags"], path.Child("tags"), errs)
	r.Labels, errs = stringMap(m["labels"], path.Child("labels"), errs)
	r.ProxyTypes, errs = proxyTypes(m["proxyTypes"], path.Child("proxyTypes"), errs)
	if r.Kind == "" {
		return r, append(errs, field.Required(path.Child("kind"), ""))
	}
	if !contains(allowed, r.Kind) {
		return r, append(errs, field.NotSupported(path.Child("kind"), r.Kind, allowed))
	}
	return r, checkKumaTargetKind(r, m, path, inbound, errs)
}

// proxyTypes reads a targetRef's proxyTypes.
func proxyTypes(raw interface{}, path *field.Path, errs field.ErrorList) ([]string, field.ErrorList) {
	var out []string
	switch v := raw.(type) {
	case nil:
	case []interface{}:
		if len(v) == 0 {
			errs = append(errs, field.Invalid(path, "[]", "must be left out or have at least one element"))
		}
		for i, x := range v {
			s, _ := x.(string)
			if s != "Sidecar" && s != "Gateway" {
				errs = append(errs, field.NotSupported(path.Index(i), x, []string{"Sidecar", "Gateway"}))
				continue
			}
			out = append(out, s)
		}
	default:
		errs = append(errs, field.TypeInvalid(path, typeName(v), "must be a list"))
	}
	return out, errs
}

// checkKumaTargetKind checks the fields of targetRef r (read from m) against its kind.
func checkKumaTargetKind(r TargetRef, m map[string]interface{}, path *field.Path, inbound bool, errs field.ErrorList) field.ErrorList {
	forbid := func(fields ...string) {
		for _, f := range fields {
			if v, ok := m[f]; ok && v != nil {
				errs = append(errs, field.Forbidden(path.Child(f), "must not be set when kind is "+r.Kind))
			}
		}
	}
	nameOrLabels := func() {
		if r.Name == "" && len(r.Labels) == 0 {
			errs = append(errs, field.Required(path.Child("name"), "name or labels must be set when kind is "+r.Kind))
		}
		if len(r.Labels) > 0 && (r.Name != "" || r.Namespace != "") {
			errs = append(errs, field.Forbidden(path.Child("labels"), "set either labels, or name and namespace"))
		}
	}
	forbid("mesh")
	switch r.Kind {
	case Mesh:
		forbid("name", "tags", "labels", "namespace", "sectionName")
	case DataplaneRef:
		forbid("tags", "proxyTypes")
		if len(r.Labels) > 0 && (r.Name != "" || r.Namespace != "") {
			errs = append(errs, field.Forbidden(path.Child("labels"), "set either labels, or name and namespace"))
		}
		if !inbound && r.SectionName != "" {
			errs = append(errs, field.Forbidden(path.Child("sectionName"), "only policies with from or rules may select an inbound by sectionName"))
		}
	case MeshSubset:
		forbid("name", "labels", "namespace", "sectionName")
	case MeshService, MeshExternalService, MeshMultiZoneService:
		forbid("tags", "proxyTypes")
		nameOrLabels()
	case MeshHTTPRoute:
		forbid("tags", "proxyTypes", "sectionName")
		nameOrLabels()
	case MeshServiceSubset, MeshGateway:
		forbid("proxyTypes", "labels", "namespace", "sectionName")
		if r.Name == "" {
			errs = append(errs, field.Required(path.Child("name"), "required when kind is "+r.Kind))
		}
	}
	return errs
}

func stringMap(raw interface{}, path *field.Path, errs field.ErrorList) (map[string]string, field.ErrorList) {
	switch t := raw.(type) {
	case nil:
		return nil, errs
	case map[string]interface{}:
		out := make(map[string]string, len(t))
		for _, k := range sortedKeys(t) {
			v, ok := t[k].(string)
			switch {
			case k == "":
				errs = append(errs, field.Invalid(path, k, "names must not be empty"))
			case !ok:
				errs = append(errs, field.TypeInvalid(path.Key(k), typeName(t[k]), "must be a string"))
			default:
				out[k] = v
			}
		}
		return out, errs
	}
	return nil, append(errs, field.TypeInvalid(path, typeName(raw), "must be a map of names to values"))
}
