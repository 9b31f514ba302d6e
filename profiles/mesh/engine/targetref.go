package engine

import (
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

var (
	// topKinds are the kinds a policy's own spec.targetRef may have.
	topKinds = []string{Mesh, MeshSubset, Service, ServiceSubset, Proxy, MeshGatewayRoute, HTTPRoute}
	// toKinds are the kinds an element of spec.to may target.
	toKinds = []string{Mesh, Service, HTTPRoute}
	// fromKinds are the kinds an element of spec.from may target.
	fromKinds = []string{Mesh, MeshSubset, Service, ServiceSubset}
)

// level ranks the kinds that select a proxy, least to most specific. Route kinds select none (0).
func level(kind string) int {
	switch kind {
	case Mesh:
		return 1
	case MeshSubset:
		return 2
	case Service:
		return 3
	case ServiceSubset:
		return 4
	case Proxy:
		return 5
	}
	return 0
}

func namesRequired(kind string) bool {
	switch kind {
	case Service, ServiceSubset, Proxy, MeshGatewayRoute, HTTPRoute:
		return true
	}
	return false
}

func isSubset(kind string) bool { return kind == MeshSubset || kind == ServiceSubset }

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func parseTargetRef(raw interface{}, path *field.Path, allowed []string, errs field.ErrorList) (TargetRef, field.ErrorList) {
	var r TargetRef
	if raw == nil {
		return r, append(errs, field.Required(path, "set targetRef.kind"))
	}
	m, ok := raw.(map[string]interface{})
	if !ok {
		return r, append(errs, field.TypeInvalid(path, typeName(raw), "must be an object"))
	}
	errs = unknownFields(m, path, errs, "kind", "name", "tags")
	kindPath, namePath, tagsPath := path.Child("kind"), path.Child("name"), path.Child("tags")
	switch k := m["kind"].(type) {
	case nil:
		errs = append(errs, field.Required(kindPath, ""))
	case string:
		r.Kind = k
	default:
		errs = append(errs, field.TypeInvalid(kindPath, typeName(k), "must be a string"))
	}
	_, hasName := m["name"]
	switch n := m["name"].(type) {
	case nil:
	case string:
		r.Name = n
	default:
		errs = append(errs, field.TypeInvalid(namePath, typeName(n), "must be a string"))
	}
	_, hasTags := m["tags"]
	switch t := m["tags"].(type) {
	case nil:
	case map[string]interface{}:
		r.Tags = make(map[string]string, len(t))
		for _, k := range sortedKeys(t) {
			v, ok := t[k].(string)
			switch {
			case k == "":
				errs = append(errs, field.Invalid(tagsPath, k, "tag names must not be empty"))
			case !ok:
				errs = append(errs, field.TypeInvalid(tagsPath.Key(k), typeName(t[k]), "must be a string"))
			default:
				r.Tags[k] = v
			}
		}
	default:
		errs = append(errs, field.TypeInvalid(tagsPath, typeName(t), "must be a map of tag names to values"))
	}
	if r.Kind == "" {
		return r, errs
	}
	if !contains(allowed, r.Kind) {
		return r, append(errs, field.NotSupported(kindPath, r.Kind, allowed))
	}
	switch {
	case namesRequired(r.Kind) && r.Name == "" && !hasName:
		errs = append(errs, field.Required(namePath, "required when kind is "+r.Kind))
	case namesRequired(r.Kind) && r.Name == "":
		errs = append(errs, field.Invalid(namePath, r.Name, "must not be empty when kind is "+r.Kind))
	case !namesRequired(r.Kind) && hasName:
		errs = append(errs, field.Forbidden(namePath, "must not be set when kind is "+r.Kind))
	}
	if hasTags && !isSubset(r.Kind) {
		errs = append(errs, field.Forbidden(tagsPath, "allowed only when kind is MeshSubset or ServiceSubset"))
	}
	return r, errs
}

func unknownFields(m map[string]interface{}, path *field.Path, errs field.ErrorList, known ...string) field.ErrorList {
	for _, k := range sortedKeys(m) {
		if !contains(known, k) {
			errs = append(errs, field.Forbidden(path.Child(k), "unknown field: supported fields are "+strings.Join(known, ", ")))
		}
	}
	return errs
}

func sortedKeys(m map[string]interface{}) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// SelectsProxy says whether the top-level targetRef r selects the Dataplane dp: Mesh every proxy,
// MeshSubset a proxy with an inbound carrying all the tags, Service a proxy with an inbound of that
// kuma.io/service, ServiceSubset both, Proxy the Dataplane of that name. Route kinds select none.
//
// Kuma's kinds as its DppSelectedByPolicy does (pkg/plugins/policies/core/matchers/dataplane.go):
// Mesh and MeshSubset only proxies of the listed proxyTypes; MeshService and MeshServiceSubset by
// the inbounds' kuma.io/service (the legacy, tag-based reading of a named MeshService); Dataplane
// every proxy, the one named (in namespace, default the policy's, passed as ns), or those carrying
// the labels. MeshGateway and MeshHTTPRoute select no sidecar of the topology.
//
// A Dataplane by name is compared as Kuma compares resource identifiers (isSelectedByResourceIdentifier,
// TargetRefToKRI in rules/resolve/backendref.go, v2.14.3): the name, the namespace and the zone, the
// policy's (its kuma.io/zone label, passed as zone) against the proxy's, so a policy synced from
// another zone does not select a local proxy of the same name. A delegated gateway (a Dataplane with
// spec.networking.gateway of type DELEGATED) is selected by a MeshSubset, MeshService or
// MeshServiceSubset whose tags its gateway tags carry (inboundsSelectedByTags).
func (r *TargetRef) SelectsProxy(dp *Dataplane) bool { return r.selectsProxy(dp, "", "") }

func (r *TargetRef) selectsProxy(dp *Dataplane, ns, zone string) bool {
	switch r.Kind {
	case Mesh:
		return r.proxyType(dp)
	case Proxy:
		return dp.Name == r.Name
	case DataplaneRef:
		switch {
		case len(r.Labels) > 0:
			for k, v := range r.Labels {
				if got, ok := dp.Labels[k]; !ok || got != v {
					return false
				}
			}
			return true
		case r.Name != "":
			want := r.Namespace
			if want == "" {
				want = ns
			}
			return dp.Name == r.Name && (want == "" || dp.Namespace == want) && dp.Zone == zone
		}
		return r.Namespace == "" // allDataplanesSelected: no name, namespace or labels
	case MeshSubset, Service, ServiceSubset, MeshService, MeshServiceSubset:
		if r.Kind == MeshSubset && !r.proxyType(dp) {
			return false
		}
		if r.Kind == MeshService && r.Name == "" {
			return false // selected by labels: a real MeshService object, not in this topology
		}
		for _, in := range dp.Inbound {
			in := Selector{Tags: in}
			if r.Selects(&in) {
				return true
			}
		}
		if dp.Delegated && r.Kind != Service && r.Kind != ServiceSubset {
			gw := Selector{Tags: dp.GatewayTags}
			return r.Selects(&gw)
		}
	}
	return false
}

// Selects says whether the element targetRef r selects the target (an outbound or a source).
// HTTPRoute and MeshGatewayRoute select no whole service.
// Kuma's MeshService and MeshServiceSubset read as Service and ServiceSubset (asSubset in
// pkg/plugins/policies/core/rules/rules.go); MeshExternalService, MeshMultiZoneService and
// MeshHTTPRoute select no service of the Dataplane topology.
func (r *TargetRef) Selects(t *Selector) bool {
	switch r.Kind {
	case Mesh:
		return true
	case Service, MeshService:
		return r.Name != "" && t.service() == r.Name
	case ServiceSubset, MeshServiceSubset:
		return t.service() == r.Name && t.hasAll(r.Tags)
	case MeshSubset:
		return t.hasAll(r.Tags)
	}
	return false
}

// proxyType says whether the proxy is of a type r.ProxyTypes lists (all when empty): a Dataplane
// with spec.networking.gateway is a Gateway, any other a Sidecar.
func (r *TargetRef) proxyType(dp *Dataplane) bool {
	if len(r.ProxyTypes) == 0 {
		return true
	}
	t := "Sidecar"
	if dp.Gateway {
		t = "Gateway"
	}
	return contains(r.ProxyTypes, t)
}
