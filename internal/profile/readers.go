package profile

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/settings"
	"github.com/precedent-dev/precedent/internal/source"
)

// Readers is a profile that says whose reviews read which policies: the creation-order check of
// `validate -f` reviews again, with two policies' creation order swapped, only the policies whose
// review may read one of them. A profile without it: every policy of its kinds and of the kinds it
// reads.
type Readers interface {
	// Readers returns, for policies objs of one kind the profile claims (as st holds them), which
	// writes' reviews may read one of them (any of their fields but their targets), by the written
	// object's kind and name and the write's operation: nil when it cannot tell (every review may).
	Readers(st source.Source, s settings.Settings, reg *policy.Registry, objs []*unstructured.Unstructured) func(schema.GroupKind, policy.Ref, Operation) bool
}
