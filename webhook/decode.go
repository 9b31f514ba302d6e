package webhook

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	kjson "sigs.k8s.io/json"
)

// decodeObject reads an admission request's object the way the API server and client-go read
// objects: case-sensitive field names, and integers as int64. The objects in the informer cache were
// read that way, and a rule body decoded with float64 numbers would never equal its stored version:
// re-applying an unchanged policy would be projected as a change.
func decodeObject(raw []byte, u *unstructured.Unstructured) error {
	var obj map[string]interface{}
	if err := kjson.UnmarshalCaseSensitivePreserveInts(raw, &obj); err != nil {
		return err
	}
	u.Object = obj
	return nil
}
