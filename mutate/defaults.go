package mutate

import (
	"encoding/json"
	"fmt"

	jsonpatchapply "github.com/evanphx/json-patch/v5"
	"gomodules.xyz/jsonpatch/v2"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utiljson "k8s.io/apimachinery/pkg/util/json"

	"github.com/precedent-dev/precedent/internal/policy"
)

// Patch returns the operations that default obj's defaults and overrides blocks: `strategy: atomic`
// on a block that has none (the RFC's default). The defaults-overrides profile asks for it; shipped
// CRDs have this default in their schema, so for them the API server has applied it and the patch
// is empty.
func Patch(obj *unstructured.Unstructured) []jsonpatch.JsonPatchOperation {
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

// Apply applies ops to obj in place, as the API server applies a mutating webhook's patch (for the
// offline CLI, which has no API server to default for it).
func Apply(obj *unstructured.Unstructured, ops []jsonpatch.JsonPatchOperation) error {
	if len(ops) == 0 {
		return nil
	}
	doc, err := json.Marshal(obj.Object)
	if err != nil {
		return fmt.Errorf("defaulting %s: %w", obj.GetName(), err)
	}
	raw, err := json.Marshal(ops)
	if err != nil {
		return fmt.Errorf("defaulting %s: %w", obj.GetName(), err)
	}
	p, err := jsonpatchapply.DecodePatch(raw)
	if err != nil {
		return fmt.Errorf("defaulting %s: %w", obj.GetName(), err)
	}
	out, err := p.Apply(doc)
	if err != nil {
		return fmt.Errorf("defaulting %s: %w", obj.GetName(), err)
	}
	m := map[string]interface{}{}
	if err := utiljson.Unmarshal(out, &m); err != nil { // numbers stay int64, as unstructured has them
		return fmt.Errorf("defaulting %s: %w", obj.GetName(), err)
	}
	obj.Object = m
	return nil
}
