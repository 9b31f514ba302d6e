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
