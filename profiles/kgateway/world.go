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
// ListenerSets and the configured TrafficPolicies, derived once per change of any of them.
func (Profile) world(st source.Source, reg *policy.Registry) *engine.World {
	gks := append([]schema.GroupKind(nil), reads...)
	for _, k := range profile.KindsOf(Name, reg) {
		gks = append(gks, k.GVK.GroupKind())
	}
	v := st.Derive(source.Derivation{Key: string(Name), Kinds: gks, Topology: true, Build: func() any {
		gws, routes, _ := st.HTTPTopology()
		objs := make([]*unstructured.Unstructured, 0, len(gws)+len(routes))
		for _, g := range gws {
			objs = append(objs, typed(g, "Gateway"))
		}
		for _, r := range routes {
			objs = append(objs, typed(r, "HTTPRoute"))
		}
		for _, gk := range gks {
			objs = append(objs, st.Objects(gk)...)
		}
		return engine.New(objs)
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
