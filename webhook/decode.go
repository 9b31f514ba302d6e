package webhook

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	kjson "sigs.k8s.io/json"
)

// admitted is what the handlers read of an admission request's object: its identity, labels,
// annotations and spec. managedFields (which mirror the spec) are skipped rather than decoded into
// maps on every write.
type admitted struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name              string            `json:"name"`
		Namespace         string            `json:"namespace"`
		CreationTimestamp *string           `json:"creationTimestamp"`
		Generation        int64             `json:"generation"`
		Labels            map[string]string `json:"labels"`
		Annotations       map[string]string `json:"annotations"`
	} `json:"metadata"`
	// Spec is nil when missing or null: every handler treats the two alike ("a policy needs a spec").
	Spec interface{} `json:"spec"`
}

// decodeObject reads an admission request's object the way the API server and client-go read
// objects: case-sensitive field names, and integers as int64. The objects in the informer cache were
// read that way, and a rule body decoded with float64 numbers would never equal its stored version:
// re-applying an unchanged policy would be projected as a change. Of the annotations, only the keys
// of keep are kept (those the profiles read: profiles.Annotations); the others, kubectl's
// last-applied copy of the whole object among them, are dropped.
func decodeObject(raw []byte, u *unstructured.Unstructured, keep map[string]bool) error {
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
	if m := kept(a.Metadata.Labels, nil); m != nil {
		meta["labels"] = m
	}
	if m := kept(a.Metadata.Annotations, keep); m != nil {
		meta["annotations"] = m
	}
	u.Object = map[string]interface{}{"apiVersion": a.APIVersion, "kind": a.Kind, "metadata": meta}
	if a.Spec != nil {
		u.Object["spec"] = a.Spec
	}
	return nil
}

// kept is m as an object's metadata map, with only the keys of keep (every key when keep is nil);
// nil when nothing is left.
func kept(m map[string]string, keep map[string]bool) map[string]interface{} {
	var out map[string]interface{}
	for k, v := range m {
		if keep != nil && !keep[k] {
			continue
		}
		if out == nil {
			out = make(map[string]interface{}, len(m))
		}
		out[k] = v
	}
	return out
}
