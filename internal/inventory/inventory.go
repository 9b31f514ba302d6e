package inventory

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/topology"
)

// Item is a policy object with its view and the errors found reading it.
type Item struct {
	Object *unstructured.Unstructured
	Policy *policy.Policy
	Errs   field.ErrorList
	// Source says where the object came from ("file.yaml#2"), for messages.
	Source string
}

// Inventory is the sorted input.
type Inventory struct {
	Topology topology.Input
	// Policies by group/kind, in input order.
	Policies map[schema.GroupKind][]*Item
	// Others are objects that are neither topology nor managed policies (kept for other profiles).
	Others []*unstructured.Unstructured
	// Problems are objects of a known topology kind that could not be converted.
	Problems []error
}

// Build sorts objects. sources gives, for each object, a description of where it came from ("" ok).
func Build(reg *policy.Registry, objs []*unstructured.Unstructured, sources []string) *Inventory {
	return build(reg, objs, sources, nil)
}

// Check is Build for a caller that reads the objects its own way (the offline review): it sets the
// namespace of the objects that have none and returns the Problems, and the Gateway API objects
// converted to their typed form (so that the caller need not convert them again); no policy
// views, no topology input.
func Check(reg *policy.Registry, objs []*unstructured.Unstructured) (map[*unstructured.Unstructured]runtime.Object, []error) {
	converted := map[*unstructured.Unstructured]runtime.Object{}
	inv := build(reg, objs, nil, converted)
	return converted, inv.Problems
}

// build is Build when converted is nil; else the inventory holds the Problems only, and converted
// gets each Gateway API object converted.
func build(reg *policy.Registry, objs []*unstructured.Unstructured, sources []string, converted map[*unstructured.Unstructured]runtime.Object) *Inventory {
	keep := converted == nil
	inv := &Inventory{Policies: map[schema.GroupKind][]*Item{}, Topology: topology.Input{NamespaceLabels: map[string]map[string]string{}}}
	for i, u := range objs {
		if !keep {
			inv.Topology = topology.Input{} // one object at a time, so that addTopology's object stays where it is
		}
		src := ""
		if i < len(sources) {
			src = sources[i]
		}
		gvk := u.GroupVersionKind()
		if u.GetNamespace() == "" && gvk.Kind != "GatewayClass" && gvk.Kind != "Namespace" {
			u.SetNamespace("default") // like kubectl: namespaced objects without one land in default
		}
		if k, ok := reg.Lookup(gvk.GroupKind()); ok {
			if !keep {
				continue
			}
			p, errs := policy.View(k, u)
			gk := k.GVK.GroupKind()
			inv.Policies[gk] = append(inv.Policies[gk], &Item{Object: u, Policy: p, Errs: errs, Source: src})
			continue
		}
		if gvk.Group == "" && gvk.Kind == "Namespace" {
			if keep {
				inv.Topology.NamespaceLabels[u.GetName()] = u.GetLabels()
			}
			continue
		}
		if gvk.Group != topology.Group {
			if keep {
				inv.Others = append(inv.Others, u)
			}
			continue
		}
		obj, known, err := inv.addTopology(u, gvk.Kind)
		if !known && keep {
			inv.Others = append(inv.Others, u)
		}
		if err != nil {
			inv.Problems = append(inv.Problems, fmt.Errorf("%s %s: %w", gvk.Kind, key(u), err))
		} else if known && !keep {
			converted[u] = obj
		}
	}
	return inv
}

// addTopology converts u, a Gateway API object of kind, into the topology input, and returns the
// converted object (the element appended, until the next append to its list); known is false for a
// kind the topology does not take.
func (inv *Inventory) addTopology(u *unstructured.Unstructured, kind string) (obj runtime.Object, known bool, err error) {
	t := &inv.Topology
	switch kind {
	case "GatewayClass":
		return appendConverted(u, &t.GatewayClasses)
	case "Gateway":
		return appendConverted(u, &t.Gateways)
	case "HTTPRoute":
		return appendConverted(u, &t.HTTPRoutes)
	case "GRPCRoute":
		return appendConverted(u, &t.GRPCRoutes)
	case "ListenerSet":
		return appendConverted(u, &t.ListenerSets)
	case "TLSRoute":
		return appendConverted(u, &t.TLSRoutes)
	case "TCPRoute":
		return appendConverted(u, &t.TCPRoutes)
	case "UDPRoute":
		return appendConverted(u, &t.UDPRoutes)
	}
	return nil, false, nil
}

// appendConverted converts u and appends it to list, unless it does not convert, and returns the
// element appended.
func appendConverted[T any, P interface {
	*T
	runtime.Object
}](u *unstructured.Unstructured, list *[]T) (runtime.Object, bool, error) {
	var o T
	if err := convert(u, &o); err != nil {
		return nil, true, err
	}
	*list = append(*list, o)
	return P(&(*list)[len(*list)-1]), true, nil
}

func convert(u *unstructured.Unstructured, into interface{}) error {
	return runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, into)
}

func key(u *unstructured.Unstructured) string {
	if u.GetNamespace() == "" {
		return u.GetName()
	}
	return u.GetNamespace() + "/" + u.GetName()
}

// Items returns the policy objects of a kind.
func (inv *Inventory) Items(k policy.Kind) []*Item { return inv.Policies[k.GVK.GroupKind()] }

// Views returns the policy views of a kind.
func (inv *Inventory) Views(k policy.Kind) []*policy.Policy {
	var out []*policy.Policy
	for _, it := range inv.Items(k) {
		out = append(out, it.Policy)
	}
	return out
}
