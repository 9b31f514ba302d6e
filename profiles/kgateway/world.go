package kgateway

import (
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
// topology's part (topologyWorld) is derived apart: a change of the policies alone (a policy's
// write, or validate -f's trial of two policies created the other way round) reads the policies
// again, not the topology.
func (p Profile) world(st source.Source, reg *policy.Registry) *engine.World {
	var gks []schema.GroupKind
	for _, k := range profile.KindsOf(Name, reg) {
		gks = append(gks, k.GVK.GroupKind())
	}
	v := st.Derive(source.Derivation{Key: string(Name), Kinds: append(gks, reads...), Topology: true, Build: func() any {
		var objs []*unstructured.Unstructured
		for _, gk := range gks {
			objs = append(objs, st.Objects(gk)...)
		}
		return p.topologyWorld(st).WithPolicies(objs)
	}})
	return v.(*engine.World)
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
