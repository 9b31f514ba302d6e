package engine

import (
	"fmt"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// ZoneLabel is the label of a Kuma object's zone.
const ZoneLabel = "kuma.io/zone"

// KindDataplane is the kind of Kuma's data plane proxy objects (apiVersion kuma.io/v1alpha1).
const KindDataplane = "Dataplane"

// Dataplane is one proxy of the mesh: the tags of its inbounds (each with kuma.io/service) and of
// its outbounds.
type Dataplane struct {
	Namespace string
	Name      string
	Labels    map[string]string // metadata.labels, which Kuma's Dataplane targetRef selects by
	Gateway   bool              // spec.networking.gateway is set: a gateway, not a sidecar
	// Delegated is a gateway of type DELEGATED (the default type), whose spec.networking.gateway.tags
	// GatewayTags holds: a service-level targetRef matching them selects it.
	Delegated   bool
	GatewayTags map[string]string
	Zone        string // the kuma.io/zone label: the zone of the proxy (Kuma's KRI)
	Mesh        string // the top-level mesh field, "" for none (the default mesh: MeshName)
	Inbound     []map[string]string
	Outbound    []map[string]string
}

// Selector names one outbound (a service) or one source of inbound traffic (a service and the
// tags of the sending proxy's inbound). Tags may omit kuma.io/service; Service fills it in.
type Selector struct {
	Service string
	Tags    map[string]string
	// Section is the outbound's MeshService port as a sectionName names it (ServicePort.SectionName):
	// its name, else its number; "" when unknown (a to item with a sectionName then selects nothing).
	Section string
}

// String renders the selector as the CLI takes it: SERVICE[,TAG=VALUE…].
func (t Selector) String() string {
	parts := []string{t.Service}
	keys := make([]string, 0, len(t.Tags))
	for k := range t.Tags {
		if k != ServiceTag {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		parts = append(parts, k+"="+t.Tags[k])
	}
	return strings.Join(parts, ",")
}

// service is the selector's service: Service, or else its kuma.io/service tag.
func (t *Selector) service() string {
	if t.Service != "" {
		return t.Service
	}
	return t.Tags[ServiceTag]
}

// hasAll says whether the selector carries all the tags (kuma.io/service being its service).
func (t *Selector) hasAll(want map[string]string) bool {
	for k, v := range want {
		if k == ServiceTag {
			if t.service() != v {
				return false
			}
			continue
		}
		if got, ok := t.Tags[k]; !ok || got != v {
			return false
		}
	}
	return true
}

// MeshName is the mesh the Dataplane belongs to: its mesh field, else "default".
func (dp *Dataplane) MeshName() string { return meshOrDefault(dp.Mesh) }

// selectableTags are the tag sets a service-level targetRef selects the proxy by: its inbounds', and
// a delegated gateway's gateway tags.
func (dp *Dataplane) selectableTags() []map[string]string {
	if !dp.Delegated || len(dp.GatewayTags) == 0 {
		return dp.Inbound
	}
	return append(append(make([]map[string]string, 0, len(dp.Inbound)+1), dp.Inbound...), dp.GatewayTags)
}

// OutboundTo returns the tags of the proxy's outbound to service, and whether it has one.
func (dp *Dataplane) OutboundTo(service string) (map[string]string, bool) {
	for _, o := range dp.Outbound {
		if o[ServiceTag] == service {
			return o, true
		}
	}
	return nil, false
}

// ParseDataplane reads a Dataplane's name and the tags of spec.networking.inbound[] and
// spec.networking.outbound[]. Malformed fields are errors naming the field. An inbound without
// kuma.io/service is read (Kuma 3.0's shape); CheckShape says where a version refuses it.
func ParseDataplane(obj *unstructured.Unstructured) (Dataplane, error) {
	dp := Dataplane{Namespace: obj.GetNamespace(), Name: obj.GetName(), Labels: obj.GetLabels()}
	if gw, found, _ := unstructured.NestedFieldNoCopy(obj.Object, "spec", "networking", "gateway"); found && gw != nil {
		dp.Gateway = true
		typ, _, _ := unstructured.NestedString(obj.Object, "spec", "networking", "gateway", "type")
		dp.Delegated = typ != "BUILTIN"
		dp.GatewayTags, _, _ = unstructured.NestedStringMap(obj.Object, "spec", "networking", "gateway", "tags")
	}
	dp.Zone = dp.Labels[ZoneLabel]
	dp.Mesh, _ = obj.Object["mesh"].(string)
	if obj.GetKind() != KindDataplane {
		return dp, fmt.Errorf("kind %q is not a Dataplane", obj.GetKind())
	}
	if dp.Name == "" {
		return dp, fmt.Errorf("metadata.name: Required value")
	}
	var err error
	if dp.Inbound, err = tagList(obj.Object, "inbound"); err != nil {
		return dp, err
	}
	if dp.Outbound, err = tagList(obj.Object, "outbound"); err != nil {
		return dp, err
	}
	return dp, nil
}

// CheckShape reports what Kuma version v's validator refuses in a Dataplane that ParseDataplane
// read: on v2.14 an inbound without kuma.io/service (master's inbounds may carry only a port and a
// name; such an inbound has no service, so no service-level targetRef selects it).
func (dp *Dataplane) CheckShape(v Version) error {
	if !v.serviceTagRequired() {
		return nil
	}
	for i, in := range dp.Inbound {
		if in[ServiceTag] == "" {
			return fmt.Errorf("spec.networking.inbound[%d].tags[%s]: Required value (Kuma %s; Kuma %s reads inbounds without it)", i, ServiceTag, v, Kuma30)
		}
	}
	return nil
}

func tagList(obj map[string]interface{}, key string) ([]map[string]string, error) {
	path := "spec.networking." + key
	raw, found, err := unstructured.NestedFieldNoCopy(obj, "spec", "networking", key)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if !found || raw == nil {
		return nil, nil
	}
	list, ok := raw.([]interface{})
	if !ok {
		return nil, fmt.Errorf("%s: must be a list", path)
	}
	out := make([]map[string]string, 0, len(list))
	for i, item := range list {
		m, ok := item.(map[string]interface{})
		if !ok {
			return nil, fmt.Errorf("%s[%d]: must be an object", path, i)
		}
		tags := map[string]string{}
		switch t := m["tags"].(type) {
		case nil:
		case map[string]interface{}:
			for k, v := range t {
				s, ok := v.(string)
				if !ok {
					return nil, fmt.Errorf("%s[%d].tags[%s]: must be a string", path, i, k)
				}
				tags[k] = s
			}
		default:
			return nil, fmt.Errorf("%s[%d].tags: must be a map", path, i)
		}
		if key == "outbound" {
			backendService(m, tags)
		}
		out = append(out, tags)
	}
	return out, nil
}

// backendService names the service of an outbound of Kuma's MeshService shape, {port, backendRef:
// {kind: MeshService, name, port}} (Dataplane_Networking_Outbound.BackendRef in
// api/mesh/v1alpha1/dataplane.proto), by the MeshService's name, when its tags name none.
func backendService(outbound map[string]interface{}, tags map[string]string) {
	ref, _ := outbound["backendRef"].(map[string]interface{})
	kind, _ := ref["kind"].(string)
	name, _ := ref["name"].(string)
	if tags[ServiceTag] == "" && kind == MeshService && name != "" {
		tags[ServiceTag] = name
	}
}

// Sources returns the distinct sources of inbound traffic in the mesh: one per distinct inbound
// tag set of the Dataplanes, in a stable order.
func Sources(dataplanes []Dataplane) []Selector {
	seen := map[string]bool{}
	var out []Selector
	for i := range dataplanes {
		for _, in := range dataplanes[i].Inbound {
			if in[ServiceTag] == "" {
				continue // an inbound of only a port and a name: no tagged source
			}
			s := Selector{Service: in[ServiceTag], Tags: in}
			key := s.String()
			if !seen[key] {
				seen[key] = true
				out = append(out, s)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out
}
