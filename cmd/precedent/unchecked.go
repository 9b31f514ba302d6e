package main

import (
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/precedent-dev/precedent/internal/crdcheck"
	"github.com/precedent-dev/precedent/internal/finding"
	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/profiles"
)

// policyLabel marks Gateway API policy CRDs (GEP-713); its value (Direct, Inherited) does not matter here.
const policyLabel = "gateway.networking.k8s.io/policy"

// uncheckedHelp says which objects the offline commands list as not checked (part of their help).
const uncheckedHelp = `Policies of kinds that are not managed are listed as not checked ("Warning: 3 kuadrant.io/v1
RateLimitPolicy objects are not checked: add the kind under spec.kinds"), never passed silently. An
object counts as a policy when its CRD (in the input or --crd) carries the label
gateway.networking.k8s.io/policy, when its spec has targetRef or targetRefs (Gateway API's policy
attachment), or when its kind ends in Policy outside Kubernetes' own API groups ("" and *.k8s.io).`

// unchecked returns one warning per group/version/kind of policy-like objects that no managed kind
// and no other profile checks, with their count.
func unchecked(reg *policy.Registry, objs []*unstructured.Unstructured, crds *crdcheck.Checker) []finding.Finding {
	count := map[schema.GroupVersionKind]int{}
	countUnchecked(count, reg, objs, crds)
	return uncheckedOf(count)
}

// countUnchecked adds to count the policy-like objects of objs that nothing checks, by kind.
func countUnchecked(count map[schema.GroupVersionKind]int, reg *policy.Registry, objs []*unstructured.Unstructured, crds *crdcheck.Checker) {
	for _, u := range objs {
		gvk := u.GroupVersionKind()
		gk := gvk.GroupKind()
		if _, ok := reg.Lookup(gk); ok || profiles.Checked(gk, reg) || !policyLike(u, crds) {
			continue
		}
		count[gvk]++
	}
}

// uncheckedOf is the warnings of unchecked of the counts countUnchecked made.
func uncheckedOf(count map[schema.GroupVersionKind]int) []finding.Finding {
	gvks := make([]schema.GroupVersionKind, 0, len(count))
	for gvk := range count {
		gvks = append(gvks, gvk)
	}
	sort.Slice(gvks, func(i, j int) bool { return gvks[i].String() < gvks[j].String() })
	out := make([]finding.Finding, 0, len(gvks))
	for _, gvk := range gvks {
		n := count[gvk]
		what := "objects are"
		if n == 1 {
			what = "object is"
		}
		kind := finding.Object{APIVersion: gvk.GroupVersion().String(), Kind: gvk.Kind}
		out = append(out, finding.Warning(kind, codeUnchecked.Linef("%d %s %s %s not checked: add the kind under spec.kinds", n, gvk.GroupVersion(), gvk.Kind, what)))
	}
	return out
}

// policyLike reports whether u looks like a Gateway API policy (see uncheckedHelp).
func policyLike(u *unstructured.Unstructured, crds *crdcheck.Checker) bool {
	gvk := u.GroupVersionKind()
	if _, ok := crds.Labels(gvk.GroupKind())[policyLabel]; ok {
		return true
	}
	if spec, ok := u.Object["spec"].(map[string]interface{}); ok {
		if _, ok := spec["targetRef"]; ok {
			return true
		}
		if _, ok := spec["targetRefs"]; ok {
			return true
		}
	}
	kubernetes := gvk.Group == "" || gvk.Group == "k8s.io" || strings.HasSuffix(gvk.Group, ".k8s.io")
	return strings.HasSuffix(gvk.Kind, "Policy") && !kubernetes
}
