package inventory

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/precedent-dev/precedent/internal/parallel"
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

// Check is Build for a caller that reads the objects its own way (the offline review): it sets the
// namespace of the objects that have none and returns the Problems, and the Gateway API objects
// converted to their typed form (so that the caller need not convert them again); no policy
// views, no topology input. The objects are converted on every CPU at once (each independently of
// the others), the Problems kept in input order.
func Check(reg *policy.Registry, objs []*unstructured.Unstructured) (map[*unstructured.Unstructured]runtime.Object, []error) {
	var topo []*unstructured.Unstructured // the Gateway API objects, in input order
	for _, u := range objs {
		gvk := u.GroupVersionKind()
		defaultNamespace(u, gvk)
		if _, ok := reg.Lookup(gvk.GroupKind()); !ok && gvk.Group == topology.Group {
			topo = append(topo, u)
		}
	}
	type result struct {
		obj   runtime.Object
		known bool
		err   error
	}
	results := make([]result, len(topo))
	parallel.Each(len(topo), func(i int) {
		var inv Inventory // one object at a time, so that addTopology's object stays where it is
		results[i].obj, results[i].known, results[i].err = inv.addTopology(topo[i], topo[i].GetKind())
	})
	converted := make(map[*unstructured.Unstructured]runtime.Object, len(topo))
	var problems []error
	for i, r := range results {
		switch u := topo[i]; {
		case r.err != nil:
			problems = append(problems, fmt.Errorf("%s %s: %w", u.GetKind(), key(u), r.err))
		case r.known:
			converted[u] = r.obj
		}
	}
	return converted, problems
}

// Build sorts objects. sources gives, for each object, a description of where it came from ("" ok).
func Build(reg *policy.Registry, objs []*unstructured.Unstructured, sources []string) *Inventory {
	inv := &Inventory{Policies: map[schema.GroupKind][]*Item{}, Topology: topology.Input{NamespaceLabels: map[string]map[string]string{}}}
	for i, u := range objs {
		src := ""
		if i < len(sources) {
			src = sources[i]
		}
		gvk := u.GroupVersionKind()
		defaultNamespace(u, gvk)
		if k, ok := reg.Lookup(gvk.GroupKind()); ok {
			p, errs := policy.View(k, u)
			gk := k.GVK.GroupKind()
			inv.Policies[gk] = append(inv.Policies[gk], &Item{Object: u, Policy: p, Errs: errs, Source: src})
			continue
		}
		if gvk.Group == "" && gvk.Kind == "Namespace" {
			inv.Topology.NamespaceLabels[u.GetName()] = u.GetLabels()
			continue
		}
		if gvk.Group != topology.Group {
			inv.Others = append(inv.Others, u)
			continue
		}
		_, known, err := inv.addTopology(u, gvk.Kind)
		if !known {
			inv.Others = append(inv.Others, u)
		}
		if err != nil {
			inv.Problems = append(inv.Problems, fmt.Errorf("%s %s: %w", gvk.Kind, key(u), err))
		}
	}
	return inv
}

// defaultNamespace sets the namespace of a namespaced object that has none to "default", as kubectl
// does.
func defaultNamespace(u *unstructured.Unstructured, gvk schema.GroupVersionKind) {
	if u.GetNamespace() == "" && gvk.Kind != "GatewayClass" && gvk.Kind != "Namespace" {
		u.SetNamespace("default")
	}
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
