package access

import (
	"fmt"

	"gomodules.xyz/jsonpatch/v2"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/precedent-dev/precedent/internal/vap"
)

// Patch defaults, in an AccessPolicy (or XAccessPolicy), the namespace of every ServiceAccount
// source that has none to the policy's own namespace, so the stored object says what it grants.
// Malformed rules are left alone for validation to report.
func Patch(obj *unstructured.Unstructured) []jsonpatch.JsonPatchOperation {
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

// saLacksNamespace is true for a rule r whose ServiceAccount source has no namespace (or an empty one).
const saLacksNamespace = "type(r) == map && has(r.source) && type(r.source) == map && has(r.source.serviceAccount) && " +
	"type(r.source.serviceAccount) == map && (!has(r.source.serviceAccount.namespace) || r.source.serviceAccount.namespace == '')"

// Defaulting is Patch as a MutatingAdmissionPolicy (`precedent export map`): the namespace of a ServiceAccount source that has none is the
// policy's own, for AccessPolicy and XAccessPolicy.
var Defaulting = vap.Defaulting{
	ID:        "default-serviceaccount-namespace",
	Message:   "spec.rules[*].source.serviceAccount.namespace defaults to the policy's namespace (AccessPolicy, XAccessPolicy)",
	Condition: "has(object.spec) && has(object.spec.rules) && type(object.spec.rules) == list && object.spec.rules.exists(r, " + saLacksNamespace + ")",
	Patch: "object.spec.rules.transformList(i, r, " + saLacksNamespace + ", " +
		vap.AddPatch("'/spec/rules/' + string(i) + '/source/serviceAccount/namespace'", "object.metadata.namespace") + ")",
}
