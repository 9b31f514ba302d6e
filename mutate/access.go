package mutate

import (
	"fmt"

	"gomodules.xyz/jsonpatch/v2"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// AccessPatch defaults, in an AccessPolicy (or XAccessPolicy), the namespace of every ServiceAccount
// source that has none to the policy's own namespace, so the stored object says what it grants.
// Malformed rules are left alone for validation to report.
func AccessPatch(obj *unstructured.Unstructured) []jsonpatch.JsonPatchOperation {
	rules, ok, _ := unstructured.NestedSlice(obj.Object, "spec", "rules")
	if !ok || obj.GetNamespace() == "" {
		return nil
	}
	var ops []jsonpatch.JsonPatchOperation
	for i, r := range rules {
		rule, ok := r.(map[string]interface{})
		if !ok {
			continue
		}
		source, ok := rule["source"].(map[string]interface{})
		if !ok {
			continue
		}
		sa, ok := source["serviceAccount"].(map[string]interface{})
		if !ok {
			continue
		}
		if ns, has := sa["namespace"]; has && ns != "" {
			continue
		}
		ops = append(ops, jsonpatch.NewOperation("add", fmt.Sprintf("/spec/rules/%d/source/serviceAccount/namespace", i), obj.GetNamespace()))
	}
	return ops
}
