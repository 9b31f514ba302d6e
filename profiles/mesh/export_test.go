package mesh

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/precedent-dev/precedent/internal/state"
	engine "github.com/precedent-dev/precedent/profiles/mesh/engine"
)

// The caches' parts the tests compare, for package mesh_test.

func Dataplanes(st *state.State) map[string][]engine.Dataplane {
	return dataplaneGrouping.lists(dataplanes(st))
}

func Policies(st *state.State, gk schema.GroupKind) map[string][]engine.Policy {
	return policyGrouping.lists(policies(st, gk))
}

func GroupDataplanes(objs []*unstructured.Unstructured) map[string][]engine.Dataplane {
	return dataplaneGrouping.lists(dataplaneGrouping.build(objs))
}

func GroupPolicies(objs []*unstructured.Unstructured) map[string][]engine.Policy {
	return policyGrouping.lists(policyGrouping.build(objs))
}

// IndexBuilds returns the number of whole builds of mesh indexes since the last call.
func IndexBuilds() int64 { return indexBuilds.Swap(0) }

// FreshIndex is the index of the policies of gk and the Dataplanes of mesh meshName built from the
// objects st stores, without its derived caches: what Index must answer like.
func FreshIndex(st *state.State, gk schema.GroupKind, meshName string, v engine.Version) *engine.Index {
	svcs := serviceGrouping.list(serviceGrouping.build(st.Objects(MeshServiceKind)), meshName)
	pols := engine.ResolveServices(policyGrouping.list(policyGrouping.build(st.Objects(gk)), meshName), svcs)
	dps := shaped(dataplaneGrouping.list(dataplaneGrouping.build(st.Objects(DataplaneKind)), meshName), v)
	return engine.NewIndexAt(v, gk.Kind+"."+gk.Group, pols, dps)
}
