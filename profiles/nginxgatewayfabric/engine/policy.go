package engine

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Group is NGINX Gateway Fabric's API group.
const Group = "gateway.nginx.org"

// The kinds this engine knows.
const (
	ClientSettingsPolicy   = "ClientSettingsPolicy"
	UpstreamSettingsPolicy = "UpstreamSettingsPolicy"
	ObservabilityPolicy    = "ObservabilityPolicy"
)

// kindSpec is what one kind targets and which of its fields two policies may not both set on one
// target (the kind's Validator.Conflicts in internal/controller/nginx/config/policies/<kind>).
type kindSpec struct {
	// single: the kind has spec.targetRef (one), else spec.targetRefs.
	single bool
	// targets are the kinds it may target, with their group.
	targets map[string]string
	// fields are the settings, as dotted paths below spec: each one a conflict unit and one value of
	// the effective settings.
	fields []string
}

// Kinds are the kinds this engine knows.
var Kinds = map[string]kindSpec{
	// clientsettings.Validator.Conflicts: bodyConflicts, keepAliveConflicts (keepAlive.timeout whole).
	ClientSettingsPolicy: {single: true, targets: map[string]string{"Gateway": gatewayGroup, "HTTPRoute": gatewayGroup, "GRPCRoute": gatewayGroup},
		fields: []string{"body.maxSize", "body.bufferSize", "body.timeout", "keepAlive.requests", "keepAlive.time", "keepAlive.timeout", "keepAlive.minTimeout"}},
	// upstreamsettings.Validator.Conflicts and resolveConflictsInUpstreamSettings.
	UpstreamSettingsPolicy: {targets: map[string]string{"Service": ""},
		fields: []string{"zoneSize", "keepAlive.connections", "keepAlive.requests", "keepAlive.time", "keepAlive.timeout", "loadBalancingMethod", "hashMethodKey", "useClusterIP"}},
	// observability.Validator.Conflicts: both set tracing.
	ObservabilityPolicy: {targets: map[string]string{"HTTPRoute": gatewayGroup, "GRPCRoute": gatewayGroup},
		fields: []string{"tracing"}},
}

const gatewayGroup = "gateway.networking.k8s.io"

// Ref names a policy: namespace/name.
type Ref struct{ Namespace, Name string }

func (r Ref) String() string { return r.Namespace + "/" + r.Name }

// Target is one reference of a policy, in the policy's namespace.
type Target struct {
	Kind, Name string
	Path       *field.Path
}

// Policy is one policy as the engine reads it.
type Policy struct {
	Kind    string
	Ref     Ref
	Created time.Time
	Targets []Target
	// Fields are the settings the policy sets, by dotted path (Kinds' fields), with their values.
	Fields map[string]interface{}
}

// Less orders policies as ngfsort.LessClientObject does: older creationTimestamp first, then
// namespace/name.
func Less(a, b *Policy) bool {
	if !a.Created.Equal(b.Created) {
		return a.Created.Before(b.Created)
	}
	return a.Ref.String() < b.Ref.String()
}

// SetFields lists the fields the policy sets, sorted.
func (p *Policy) SetFields() []string {
	out := make([]string, 0, len(p.Fields))
	for f := range p.Fields {
		out = append(out, f)
	}
	sort.Strings(out)
	return out
}

// Read reads a policy of one of Kinds, with the errors NGINX Gateway Fabric's CRD rules give for its
// targets (kinds, groups, duplicates; the API server checks them too, `validate -f` may not have the
// CRD).
func Read(u *unstructured.Unstructured) (*Policy, field.ErrorList) {
	ks, ok := Kinds[u.GetKind()]
	if !ok {
		return nil, field.ErrorList{field.NotSupported(field.NewPath("kind"), u.GetKind(), []string{ClientSettingsPolicy, ObservabilityPolicy, UpstreamSettingsPolicy})}
	}
	p := &Policy{Kind: u.GetKind(), Ref: Ref{u.GetNamespace(), u.GetName()}, Created: u.GetCreationTimestamp().Time, Fields: map[string]interface{}{}}
	spec, _, _ := unstructured.NestedMap(u.Object, "spec")
	var errs field.ErrorList
	var refs []interface{}
	var paths []*field.Path
	if ks.single {
		ref, found, _ := unstructured.NestedMap(u.Object, "spec", "targetRef")
		if !found {
			return nil, field.ErrorList{field.Required(field.NewPath("spec", "targetRef"), "a "+p.Kind+" targets one Gateway, HTTPRoute or GRPCRoute")}
		}
		refs, paths = []interface{}{ref}, []*field.Path{field.NewPath("spec", "targetRef")}
	} else {
		refs, _, _ = unstructured.NestedSlice(u.Object, "spec", "targetRefs")
		if len(refs) == 0 {
			return nil, field.ErrorList{field.Required(field.NewPath("spec", "targetRefs"), "at least one target is needed")}
		}
		for i := range refs {
			paths = append(paths, field.NewPath("spec", "targetRefs").Index(i))
		}
	}
	seen := map[string]bool{}
	for i, r := range refs {
		m, _ := r.(map[string]interface{})
		kind, _ := m["kind"].(string)
		group, _ := m["group"].(string)
		name, _ := m["name"].(string)
		want, allowed := ks.targets[kind]
		switch {
		case !allowed:
			errs = append(errs, field.NotSupported(paths[i].Child("kind"), kind, sortedKeys(ks.targets)))
		case group != want && !(want == "" && group == "core"):
			errs = append(errs, field.Invalid(paths[i].Child("group"), group, fmt.Sprintf("a %s target is in group %q", kind, want)))
		case name == "":
			errs = append(errs, field.Required(paths[i].Child("name"), ""))
		case seen[kind+"/"+name]:
			errs = append(errs, field.Duplicate(paths[i], kind+"/"+name))
		default:
			seen[kind+"/"+name] = true
			p.Targets = append(p.Targets, Target{Kind: kind, Name: name, Path: paths[i]})
		}
	}
	for _, f := range ks.fields {
		if v, ok := nested(spec, f); ok {
			p.Fields[f] = v
		}
	}
	return p, errs
}

func nested(m map[string]interface{}, path string) (interface{}, bool) {
	var v interface{} = m
	for _, seg := range strings.Split(path, ".") {
		mm, ok := v.(map[string]interface{})
		if !ok {
			return nil, false
		}
		if v, ok = mm[seg]; !ok || v == nil {
			return nil, false
		}
	}
	return v, true
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
