package webhook

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/precedent-dev/precedent/access"
	"github.com/precedent-dev/precedent/mesh"
	"github.com/precedent-dev/precedent/settings"
	"github.com/precedent-dev/precedent/state"
	"github.com/precedent-dev/precedent/validate"
	"github.com/precedent-dev/precedent/warning"
)

// accessPolicy reviews a write of an AccessPolicy or XAccessPolicy: the stateless checks under the
// live settings (the Backend kind, the mixing switch), then warnings for targets that do not exist
// and the projection against the other policies of its kind over the Gateway → HTTPRoute → Backend
// topology (with the live combine mode).
func (v *Validator) accessPolicy(gk schema.GroupKind, u *unstructured.Unstructured, s settings.Settings) admission.Response {
	as := s.Access
	p, errs := access.Parse(u, as)
	if len(errs) > 0 {
		return respond(gk, u.GetName(), errs, nil)
	}
	ws := v.accessTargets(&p, as)
	budget := max(s.WarningLimit-len(ws), 1)
	ws = append(ws, v.State.AccessGrants(gk, as).ProjectWrite(p, budget)...)
	return respond(gk, u.GetName(), nil, validate.Limit(ws, s.WarningLimit))
}

// accessDelete projects the deletion of an AccessPolicy or XAccessPolicy: what its removal opens or
// revokes. The stored policy is read as AccessPolicies reads the others (mixing allowed: it was
// admitted under the settings of its time); one that no longer parses is deleted without a word.
func (v *Validator) accessDelete(gk schema.GroupKind, u *unstructured.Unstructured, s settings.Settings) admission.Response {
	p, errs := access.Parse(u, state.StoredAccess(s.Access))
	if len(errs) > 0 {
		return admission.Allowed("")
	}
	ws := v.State.AccessGrants(gk, s.Access).ProjectDelete(p, s.WarningLimit)
	return respond(gk, u.GetName(), nil, validate.Limit(ws, s.WarningLimit))
}

// accessTargets warns about each target that is not in the cluster: a Gateway, or a Backend when
// its kind is watched (without its CRD nothing is known about Backends, and nothing is said).
func (v *Validator) accessTargets(p *access.Policy, as access.Settings) []string {
	var ws []string
	backend := schema.GroupKind{Group: as.BackendGroup, Kind: as.BackendKind}
	for i, t := range p.Targets {
		n := types.NamespacedName{Namespace: p.Namespace, Name: t.Name}
		exists, known := true, true
		if t.Kind == access.GatewayKind {
			exists = v.State.GatewayExists(n)
		} else {
			exists, known = v.State.BackendExists(backend, n)
		}
		if known && !exists {
			path := field.NewPath("spec", "targetRefs").Index(i)
			ws = append(ws, warning.TargetNotFound(path.String(), t.Kind+" "+n.String()))
		}
	}
	return ws
}

// meshPolicy reviews a write of a MeshTimeout or MeshTrafficPermission: the stateless checks, then
// the elements that can never take effect on any Dataplane of its mesh, its own and those of other
// policies that this write newly shadows.
func (v *Validator) meshPolicy(gk schema.GroupKind, u *unstructured.Unstructured, s settings.Settings) admission.Response {
	p, errs := mesh.Parse(u)
	if len(errs) > 0 {
		return respond(gk, u.GetName(), errs, nil)
	}
	name := state.PolicyMesh(u)
	ws := v.State.MeshIndex(gk, name).WriteWarnings(p, false)
	return respond(gk, u.GetName(), nil, validate.Limit(ws, s.WarningLimit))
}
