package main

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/precedent-dev/precedent/access"
	"github.com/precedent-dev/precedent/mesh"
	"github.com/precedent-dev/precedent/policy"
	"github.com/precedent-dev/precedent/warning"
)

func init() {
	profileChecks = append(profileChecks,
		profileCheck{claims: access.IsPolicy, check: validateAccess},
		profileCheck{claims: func(gk schema.GroupKind) bool { return isMeshPolicy(gk) || gk == dataplaneKind }, check: validateMesh})
}

// dataplaneKind is Kuma's Dataplane, the mesh profile's topology.
var dataplaneKind = schema.GroupKind{Group: "kuma.io", Kind: "Dataplane"}

// validateAccess checks every AccessPolicy (and XAccessPolicy) of the input, and projects each
// write against the other access policies and the Gateway → route → Backend topology of the input.
func validateAccess(o *input) (errs, warns []string) {
	s := o.settings.Access
	var objs []*unstructured.Unstructured
	var valid []access.Policy
	for _, u := range o.objects {
		if !access.IsPolicy(u.GroupVersionKind().GroupKind()) {
			continue
		}
		p, perrs := access.Parse(u, s)
		errs = append(errs, lines(u.GetKind(), u, perrs)...)
		if len(perrs) == 0 {
			objs = append(objs, u)
			valid = append(valid, p)
		}
	}
	if len(valid) == 0 {
		return errs, nil
	}
	topo, err := access.NewTopology(o.objects, s)
	if err != nil {
		return append(errs, fmt.Sprintf("access topology: %v", err)), nil
	}
	for i, p := range valid {
		for _, w := range access.ProjectWrite(p, valid, &topo, s, o.settings.WarningLimit) {
			warns = append(warns, fmt.Sprintf("%s %s: %s", objs[i].GetKind(), nsName(objs[i]), w))
		}
	}
	return errs, warns
}

var meshGroup = mesh.PrecedentGroup

// meshProfile reports whether gk is a kind the input's settings manage with the mesh profile (Kuma's
// own kuma.io kinds, one line each in spec.kinds).
func (o *input) meshProfile(gk schema.GroupKind) bool {
	k, ok := o.registry.Lookup(gk)
	return ok && k.Profile == policy.ProfileMesh
}

func isMeshPolicy(gk schema.GroupKind) bool {
	return gk.Group == meshGroup && (gk.Kind == mesh.KindMeshTimeout || gk.Kind == mesh.KindMeshTrafficPermission)
}

// validateMesh checks every mesh policy of the input and reports elements that can never take
// effect for any Dataplane of the input.
func validateMesh(o *input) (errs, warns []string) {
	var policies []mesh.Policy
	var objs []*unstructured.Unstructured
	var dataplanes []mesh.Dataplane
	for _, u := range o.objects {
		gvk := u.GroupVersionKind()
		switch {
		case isMeshPolicy(gvk.GroupKind()) || o.meshProfile(gvk.GroupKind()):
			p, perrs := mesh.Parse(u)
			errs = append(errs, lines(u.GetKind(), u, perrs)...)
			if len(perrs) == 0 {
				policies = append(policies, p)
				objs = append(objs, u)
			}
		case gvk.GroupKind() == dataplaneKind:
			dp, err := mesh.ParseDataplane(u)
			if err != nil {
				errs = append(errs, fmt.Sprintf("Dataplane %s: %v", nsName(u), err))
				continue
			}
			dataplanes = append(dataplanes, dp)
		}
	}
	// Kinds of one name in two groups (Precedent's and Kuma's) do not shadow each other.
	byKind := map[schema.GroupKind][]mesh.Policy{}
	for i, p := range policies {
		gk := objs[i].GroupVersionKind().GroupKind()
		byKind[gk] = append(byKind[gk], p)
	}
	for i, p := range policies {
		ws := mesh.WriteWarnings(p, byKind[objs[i].GroupVersionKind().GroupKind()], dataplanes, false)
		for _, w := range (warning.Limit{N: o.settings.WarningLimit}).Apply(ws) {
			warns = append(warns, fmt.Sprintf("%s %s: %s", objs[i].GetKind(), nsName(objs[i]), w))
		}
	}
	return errs, warns
}
