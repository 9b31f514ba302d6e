package settings

import (
	"encoding/json"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// GVK is the PrecedentConfig kind; Name is the name of the one object that is read.
var GVK = schema.GroupVersionKind{Group: "policy.precedent.dev", Version: "v1alpha1", Kind: "PrecedentConfig"}

// Name of the singleton PrecedentConfig.
const Name = "cluster"

// Decode reads and validates the spec of a PrecedentConfig, starting from Defaults() so that absent
// fields keep their default. Errors carry the field paths of the object.
func Decode(u *unstructured.Unstructured) (Settings, field.ErrorList) {
	s := Defaults()
	spec := field.NewPath("spec")
	if u.GetName() != Name {
		return s, field.ErrorList{field.Invalid(field.NewPath("metadata", "name"), u.GetName(), "the PrecedentConfig is a singleton and must be named cluster")}
	}
	raw, ok := u.Object["spec"]
	if ok && raw != nil {
		b, err := json.Marshal(raw)
		if err != nil {
			return s, field.ErrorList{field.Invalid(spec, "", err.Error())}
		}
		// Go's decoder matches keys case-insensitively, so kinds[].gvk.group fills GVK.Group.
		if err := json.Unmarshal(b, &s); err != nil {
			return s, field.ErrorList{field.Invalid(spec, "", fmt.Sprintf("cannot read the settings: %v", err))}
		}
		if err := s.decodeSections(b); err != nil {
			return s, field.ErrorList{field.Invalid(spec, "", fmt.Sprintf("cannot read the settings: %v", err))}
		}
	}
	s.Default()
	return s, s.Validate(spec)
}
