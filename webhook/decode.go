package webhook

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	kjson "sigs.k8s.io/json"
)

// admitted is what the handlers read of an admission request's object: its identity, labels and
// spec. Annotations (kubectl's last-applied-configuration repeats the whole object) and
// managedFields (which mirror the spec) are skipped rather than decoded into maps on every write.
type admitted struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name              string            `json:"name"`
		Namespace         string            `json:"namespace"`
		CreationTimestamp *string           `json:"creationTimestamp"`
		Generation        int64             `json:"generation"`
		Labels            map[string]string `json:"labels"`
	} `json:"metadata"`
	// Spec is nil when missing or null: every handler treats the two alike ("a policy needs a spec").
	Spec interface{} `json:"spec"`
}

// decodeObject reads an admission request's object the way the API server and client-go read
// objects: case-sensitive field names, and integers as int64. The objects in the informer cache were
// read that way, and a rule body decoded with float64 numbers would never equal its stored version:
// re-applying an unchanged policy would be projected as a change.
func decodeObject(raw []byte, u *unstructured.Unstructured) error {
	var a admitted
	if err := kjson.UnmarshalCaseSensitivePreserveInts(raw, &a); err != nil {
		return err
	}
	meta := map[string]interface{}{"name": a.Metadata.Name}
	if a.Metadata.Namespace != "" {
		meta["namespace"] = a.Metadata.Namespace
	}
	if a.Metadata.CreationTimestamp != nil {
		meta["creationTimestamp"] = *a.Metadata.CreationTimestamp
	}
	if a.Metadata.Generation != 0 {
		meta["generation"] = a.Metadata.Generation
	}
	if len(a.Metadata.Labels) > 0 {
		labels := make(map[string]interface{}, len(a.Metadata.Labels))
		for k, v := range a.Metadata.Labels {
			labels[k] = v
		}
		meta["labels"] = labels
	}
	u.Object = map[string]interface{}{"apiVersion": a.APIVersion, "kind": a.Kind, "metadata": meta}
	if a.Spec != nil {
		u.Object["spec"] = a.Spec
	}
	return nil
}
