package webhook

import (
	"gomodules.xyz/jsonpatch/v2"
	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/precedent-dev/precedent/access"
	"github.com/precedent-dev/precedent/mutate"
	"github.com/precedent-dev/precedent/policy"
	"github.com/precedent-dev/precedent/settings"
	"github.com/precedent-dev/precedent/state"
)

// A family is the admission side of one profile: which objects it reviews, how it answers a write
// and a delete, and how it defaults one. The handlers dispatch through the registered families and
// have no switch on kinds; the profile's own logic lives in its package (policy + effective +
// validate for the defaults-overrides, gep713 and kuadrant profiles, access, mesh), and adding a
// profile is that package, one family here, and one line in families.
type family interface {
	// claims reports whether the family reviews objects of gk under the managed kinds reg.
	claims(gk schema.GroupKind, reg *policy.Registry) bool
	// review answers a create or update, or a delete (req.Operation), of u.
	review(v *Validator, req admission.Request, gk schema.GroupKind, u *unstructured.Unstructured, s settings.Settings, reg *policy.Registry) admission.Response
	// patch returns the defaulting of a write of u, none when it needs nothing.
	patch(gk schema.GroupKind, u *unstructured.Unstructured, reg *policy.Registry) []jsonpatch.JsonPatchOperation
	// own are the policy kinds the family manages by itself, whatever the settings say, which the
	// state watches when their CRDs are installed (the registry's kinds are watched apart).
	own() []schema.GroupKind
}

// families are the registered families, asked in order: the first that claims a kind reviews it.
var families = []family{policyFamily{}, accessFamily{}, meshFamily{}}

// familyOf returns the family that reviews objects of gk, or nil.
func familyOf(gk schema.GroupKind, reg *policy.Registry) family {
	for _, f := range families {
		if f.claims(gk, reg) {
			return f
		}
	}
	return nil
}

// policyFamily reviews the kinds of the registry (profiles defaults-overrides, gep713, kuadrant):
// writes and deletes projected on the cached snapshots of their kind.
type policyFamily struct{}

func (policyFamily) claims(gk schema.GroupKind, reg *policy.Registry) bool {
	_, ok := reg.Lookup(gk)
	return ok
}

func (policyFamily) review(v *Validator, req admission.Request, gk schema.GroupKind, u *unstructured.Unstructured, s settings.Settings, reg *policy.Registry) admission.Response {
	k, _ := reg.Lookup(gk)
	return v.policy(req, k, u, s)
}

func (policyFamily) own() []schema.GroupKind { return nil }

func (policyFamily) patch(gk schema.GroupKind, u *unstructured.Unstructured, reg *policy.Registry) []jsonpatch.JsonPatchOperation {
	k, _ := reg.Lookup(gk)
	return mutate.Patch(k, u)
}

// accessFamily reviews AccessPolicies and kube-agentic-networking's XAccessPolicies: writes and
// deletes projected on the access topology.
type accessFamily struct{}

func (accessFamily) claims(gk schema.GroupKind, _ *policy.Registry) bool { return access.IsPolicy(gk) }

func (accessFamily) review(v *Validator, req admission.Request, gk schema.GroupKind, u *unstructured.Unstructured, s settings.Settings, _ *policy.Registry) admission.Response {
	if req.Operation == admissionv1.Delete {
		return v.accessDelete(gk, u, s)
	}
	return v.accessPolicy(gk, u, s)
}

func (accessFamily) own() []schema.GroupKind {
	return []schema.GroupKind{access.AccessPolicyKind, access.XAccessPolicyKind}
}

func (accessFamily) patch(_ schema.GroupKind, u *unstructured.Unstructured, _ *policy.Registry) []jsonpatch.JsonPatchOperation {
	return mutate.AccessPatch(u)
}

// meshFamily reviews MeshTimeouts and MeshTrafficPermissions: writes checked and their shadowed
// elements found on the Dataplanes of their mesh; deletes are admitted without a word.
type meshFamily struct{}

func (meshFamily) claims(gk schema.GroupKind, _ *policy.Registry) bool {
	return gk == state.MeshTimeoutKind || gk == state.MeshPermissionKind
}

func (meshFamily) review(v *Validator, req admission.Request, gk schema.GroupKind, u *unstructured.Unstructured, s settings.Settings, _ *policy.Registry) admission.Response {
	if req.Operation == admissionv1.Delete {
		return admission.Allowed("")
	}
	return v.meshPolicy(gk, u, s)
}

func (meshFamily) own() []schema.GroupKind {
	return []schema.GroupKind{state.MeshTimeoutKind, state.MeshPermissionKind}
}

func (meshFamily) patch(schema.GroupKind, *unstructured.Unstructured, *policy.Registry) []jsonpatch.JsonPatchOperation {
	return nil
}
