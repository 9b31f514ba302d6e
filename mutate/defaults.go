package mutate

import (
	"gomodules.xyz/jsonpatch/v2"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/precedent-dev/precedent/policy"
)

// Patch returns the operations that default obj as a policy of kind k: `strategy: atomic` on a
// defaults or overrides block that has none (the RFC's default). Shipped CRDs have this default in
// their schema, so for them the API server has applied it and the patch is empty.
func Patch(k policy.Kind, obj *unstructured.Unstructured) []jsonpatch.JsonPatchOperation {
	if k.Profile != policy.ProfileDefaultsOverrides {
		return nil
	}
	spec, ok := obj.Object["spec"].(map[string]interface{})
	if !ok {
		return nil
	}
	var ops []jsonpatch.JsonPatchOperation
	for _, name := range []string{"defaults", "overrides"} {
		b, ok := spec[name].(map[string]interface{})
		if !ok {
			continue
		}
		if _, has := b["strategy"]; !has {
			ops = append(ops, jsonpatch.NewOperation("add", "/spec/"+name+"/strategy", policy.StrategyAtomic))
		}
	}
	return ops
}

// Apply applies Patch in place (for the offline CLI, which has no API server to default for it).
func Apply(k policy.Kind, obj *unstructured.Unstructured) {
	spec, ok := obj.Object["spec"].(map[string]interface{})
	if !ok {
		return
	}
	for _, op := range Patch(k, obj) {
		name := op.Path[len("/spec/") : len(op.Path)-len("/strategy")]
		spec[name].(map[string]interface{})["strategy"] = op.Value
	}
}
