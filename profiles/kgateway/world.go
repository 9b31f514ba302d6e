package kgateway

import (
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/profile"
	"github.com/precedent-dev/precedent/internal/source"
	"github.com/precedent-dev/precedent/profiles/kgateway/engine"
)

// world is the engine's world over the state: the Gateways and HTTPRoutes of the topology, the
// ListenerSets and the configured TrafficPolicies, derived once per change of any of them. The
// topology's part (topologyWorld) is derived apart, and a TrafficPolicy's event steps the world
// (nextWorld): a change of the policies alone (a policy's write, or validate -f's trial of two
// policies created the other way round) reads the policies it changes again, not the others nor
// the topology.
func (p Profile) world(st source.Source, reg *policy.Registry) *engine.World {
	gks := policyKinds(reg)
	v := st.Derive(source.Derivation{Key: string(Name), Kinds: append(gks, reads...), Topology: true, Build: func() any {
		var objs []*unstructured.Unstructured
		for _, gk := range gks {
			objs = append(objs, st.Objects(gk)...)
		}
		return p.topologyWorld(st).WithPolicies(objs)
	}, Next: func(prev any, e source.Event) any { return nextWorld(prev.(*engine.World), e, gks) }})
	return v.(*engine.World)
}

// policyKinds are the configured kinds of the profile, whose policies the world reads.
func policyKinds(reg *policy.Registry) []schema.GroupKind {
	var gks []schema.GroupKind
	for _, k := range profile.KindsOf(Name, reg) {
		gks = append(gks, k.GVK.GroupKind())
	}
	return gks
}

// nextWorld is w after event e when e is of the one configured kind named TrafficPolicy (the kind
// WithPolicies reads): its policy read again (engine.World.WithPolicy); nil otherwise, to build the
// world whole.
func nextWorld(w *engine.World, e source.Event, gks []schema.GroupKind) any {
	named := 0
	for _, gk := range gks {
		if gk.Kind == engine.TrafficPolicy {
			named++
		}
	}
	u, ok := e.Object.(*unstructured.Unstructured)
	if e.Topology || e.GroupKind.Kind != engine.TrafficPolicy || !slices.Contains(gks, e.GroupKind) || named != 1 || !ok || u.GetKind() != engine.TrafficPolicy {
		return nil
	}
	var pol *engine.Policy
	if !e.Deleted {
		if read, errs := engine.Read(u); len(errs) == 0 {
			pol = read // WithPolicies leaves out a policy it cannot read
		}
	}
	return w.WithPolicy(engine.Key{Namespace: u.GetNamespace(), Name: u.GetName()}, pol)
}

// topologyWorld is the engine's world of the Gateways, HTTPRoutes and ListenerSets of the state,
// without policies.
func (Profile) topologyWorld(st source.Source) *engine.World {
	v := st.Derive(source.Derivation{Key: string(Name) + "/topology", Kinds: reads, Topology: true, Build: func() any {
		gws, routes, _ := st.HTTPTopology()
		objs := make([]*unstructured.Unstructured, 0, len(gws)+len(routes))
		for _, g := range gws {
			objs = append(objs, typed(g, "Gateway"))
		}
		for _, r := range routes {
			objs = append(objs, typed(r, "HTTPRoute"))
		}
		for _, gk := range reads {
			objs = append(objs, st.Objects(gk)...)
		}
		return engine.NewTopology(objs)
	}})
	return v.(*engine.World)
}

// typed converts a Gateway API object of the state to the unstructured form the engine reads; an
// object that does not convert is left out.
func typed(o runtime.Object, kind string) *unstructured.Unstructured {
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(o)
	if err != nil {
		return &unstructured.Unstructured{Object: map[string]interface{}{}}
	}
	u := &unstructured.Unstructured{Object: m}
	u.SetKind(kind)
	return u
}
