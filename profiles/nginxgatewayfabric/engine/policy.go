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
	ProxySettingsPolicy    = "ProxySettingsPolicy"
	RateLimitPolicy        = "RateLimitPolicy"
	SnippetsPolicy         = "SnippetsPolicy"
	WAFPolicy              = "WAFPolicy"
	PayloadProcessor       = "PayloadProcessor"
	ExternalLoadBalancer   = "ExternalLoadBalancer"
)

// The rules NGINX Gateway Fabric's CRDs give a policy's target kinds (kindSpec.mix).
const (
	// mixGatewayRoutes: "Cannot mix Gateway kind with HTTPRoute or GRPCRoute kinds in targetRefs".
	mixGatewayRoutes = "gateway-routes"
	// mixSameKind: "All TargetRefs must be the same Kind".
	mixSameKind = "same-kind"
)

// ReasonInvalid is the reason NGINX Gateway Fabric writes for an ExternalLoadBalancer whose target
// Gateway is not in its graph (processExternalLoadBalancers).
const ReasonInvalid = "Invalid"

// kindSpec is what one kind targets and which of its fields two policies may not both set on one
// target (the kind's Validator.Conflicts in internal/controller/nginx/config/policies/<kind>).
type kindSpec struct {
	// single: the kind has spec.targetRef (one), else spec.targetRefs.
	single bool
	// targets are the kinds it may target, with their group.
	targets map[string]string
	// fields are the settings, as dotted paths below spec: each one a conflict unit and one value of
	// the effective settings. On a route, a route policy's value replaces the Gateway policy's.
	fields []string
	// lists are settings that never conflict: the values of every policy on one target apply
	// together, and a route's replace the Gateway's where the route's policies set any (NGINX
	// inherits an array directive such as limit_req from the server block only into a location that
	// has none).
	lists []string
	// whole, when set, reads the policy's spec less its targets as one value of that name (a field
	// unless it is one of lists).
	whole string
	// always: any two policies on one target conflict, whatever they set (Conflicts returns true).
	always bool
	// mix is the CRD's rule on mixing target kinds ("" for none).
	mix string
	// maxTargets is the CRD's MaxItems of spec.targetRefs (0: no limit the engine checks).
	maxTargets int
	// missing is the reason NGINX Gateway Fabric writes when no target is in its graph; "": it skips
	// the policy and writes no status.
	missing string
	// httpOnly: the kind applies on HTTPRoutes' paths only (resolveEffectivePayloadProcessors).
	httpOnly bool
}

// Kinds are the kinds this engine knows.
var Kinds = map[string]kindSpec{
	// clientsettings.Validator.Conflicts: bodyConflicts, keepAliveConflicts (keepAlive.timeout whole).
	ClientSettingsPolicy: {single: true, targets: gatewayAndRoutes,
		fields: []string{"body.maxSize", "body.bufferSize", "body.timeout", "keepAlive.requests", "keepAlive.time", "keepAlive.timeout", "keepAlive.minTimeout"}},
	// upstreamsettings.Validator.Conflicts and resolveConflictsInUpstreamSettings.
	UpstreamSettingsPolicy: {targets: map[string]string{"Service": ""},
		fields: []string{"zoneSize", "keepAlive.connections", "keepAlive.requests", "keepAlive.time", "keepAlive.timeout", "loadBalancingMethod", "hashMethodKey", "useClusterIP"}},
	// observability.Validator.Conflicts: both set tracing.
	ObservabilityPolicy: {targets: map[string]string{"HTTPRoute": gatewayGroup, "GRPCRoute": gatewayGroup},
		fields: []string{"tracing"}},
	// proxysettings.Validator.Conflicts: bufferingConflicts, timeoutConflicts (buffering.buffers
	// whole); the generator writes each directive at the server and the location, so a route's value
	// replaces the Gateway's field by field.
	ProxySettingsPolicy: {targets: gatewayAndRoutes, mix: mixGatewayRoutes, maxTargets: 16,
		fields: []string{"buffering.disable", "buffering.bufferSize", "buffering.buffers", "buffering.busyBuffersSize", "timeout.connect", "timeout.read", "timeout.send"}},
	// ratelimit.conflicts: both set dryRun, logLevel or rejectCode; the local rules never conflict
	// (each policy's rules get their own zones, ratelimit.getRateLimitSettings).
	RateLimitPolicy: {targets: gatewayAndRoutes, mix: mixGatewayRoutes, maxTargets: 16,
		fields: []string{"rateLimit.dryRun", "rateLimit.logLevel", "rateLimit.rejectCode"}, lists: []string{"rateLimit.local.rules"}},
	// snippetspolicy.Validator: Gateways only; Conflicts returns false, so every policy's snippets
	// apply.
	SnippetsPolicy: {targets: map[string]string{"Gateway": gatewayGroup}, maxTargets: 16, lists: []string{"snippets"}},
	// waf.Validator.Conflicts returns false; the generator writes app_protect_policy_file at the
	// server and the location, so a route's WAFPolicies replace the Gateway's.
	WAFPolicy: {targets: gatewayAndRoutes, mix: mixSameKind, maxTargets: 16, whole: "waf", lists: []string{"waf"}},
	// payloadprocessor.Validator.Conflicts returns true; resolveEffectivePayloadProcessors: a
	// route's own PayloadProcessor, else its Gateway's, on HTTPRoutes only.
	PayloadProcessor: {single: true, targets: map[string]string{"Gateway": gatewayGroup, "HTTPRoute": gatewayGroup},
		fields: []string{"processors"}, always: true, httpOnly: true},
	// processExternalLoadBalancers (graph/externalloadbalancer.go): the oldest one on a Gateway of
	// the graph fronts it, the others are Conflicted; one on a Gateway not in the graph is Invalid.
	ExternalLoadBalancer: {targets: map[string]string{"Gateway": gatewayGroup}, maxTargets: 1,
		fields: []string{"gatewayLink"}, always: true, missing: ReasonInvalid},
}

// gatewayAndRoutes are the targets of the kinds set on Gateways and routes.
var gatewayAndRoutes = map[string]string{"Gateway": gatewayGroup, "HTTPRoute": gatewayGroup, "GRPCRoute": gatewayGroup}

// isList reports whether the setting f of kind never conflicts and accumulates (kindSpec.lists).
func isList(kind, f string) bool {
	for _, l := range Kinds[kind].lists {
		if l == f {
			return true
		}
	}
	return false
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
		return nil, field.ErrorList{field.NotSupported(field.NewPath("kind"), u.GetKind(), sortedKeys(Kinds))}
	}
	p := &Policy{Kind: u.GetKind(), Ref: Ref{u.GetNamespace(), u.GetName()}, Created: u.GetCreationTimestamp().Time, Fields: map[string]interface{}{}}
	spec, _, _ := unstructured.NestedMap(u.Object, "spec")
	var errs field.ErrorList
	var refs []interface{}
	var paths []*field.Path
	if ks.single {
		ref, found, _ := unstructured.NestedMap(u.Object, "spec", "targetRef")
		if !found {
			return nil, field.ErrorList{field.Required(field.NewPath("spec", "targetRef"), "a "+p.Kind+" targets one "+strings.Join(sortedKeys(ks.targets), ", "))}
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
		errs = append(errs, mixErrs(ks, refs)...)
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
	for _, f := range append(append([]string(nil), ks.fields...), ks.lists...) {
		if v, ok := nested(spec, f); ok {
			p.Fields[f] = v
		}
	}
	if ks.whole != "" {
		rest := map[string]interface{}{}
		for k, v := range spec {
			if k != "targetRef" && k != "targetRefs" {
				rest[k] = v
			}
		}
		p.Fields[ks.whole] = rest
	}
	if p.Kind == ExternalLoadBalancer {
		errs = append(errs, partitionErrs(spec)...)
	}
	return p, errs
}

// mixErrs are the errors of the CRD rules on the number and the mix of a kind's targetRefs.
func mixErrs(ks kindSpec, refs []interface{}) field.ErrorList {
	path := field.NewPath("spec", "targetRefs")
	var errs field.ErrorList
	if ks.maxTargets > 0 && len(refs) > ks.maxTargets {
		errs = append(errs, field.TooMany(path, len(refs), ks.maxTargets))
	}
	kinds := map[string]bool{}
	for _, r := range refs {
		m, _ := r.(map[string]interface{})
		k, _ := m["kind"].(string)
		kinds[k] = true
	}
	switch {
	case ks.mix == mixGatewayRoutes && kinds["Gateway"] && (kinds["HTTPRoute"] || kinds["GRPCRoute"]):
		errs = append(errs, field.Invalid(path, strings.Join(sortedKeys(kinds), ", "), "Cannot mix Gateway kind with HTTPRoute or GRPCRoute kinds in targetRefs"))
	case ks.mix == mixSameKind && len(kinds) > 1:
		errs = append(errs, field.Invalid(path, strings.Join(sortedKeys(kinds), ", "), "All TargetRefs must be the same Kind"))
	}
	return errs
}

// partitionErrs: NGINX Gateway Fabric marks an ExternalLoadBalancer Invalid when its
// additionalIngressLinkSpec sets partition Common (validateAdditionalSpec).
func partitionErrs(spec map[string]interface{}) field.ErrorList {
	extra, ok := nested(spec, "gatewayLink.additionalIngressLinkSpec")
	if m, isMap := extra.(map[string]interface{}); ok && isMap && m["partition"] == "Common" {
		return field.ErrorList{field.Invalid(field.NewPath("spec", "gatewayLink", "additionalIngressLinkSpec", "partition"), "Common", "additionalIngressLinkSpec.partition cannot be Common")}
	}
	return nil
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
