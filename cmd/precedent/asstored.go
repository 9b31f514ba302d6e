package main

import (
	"reflect"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/precedent-dev/precedent/internal/policy"
)

// asStored reports whether applying u (from the files) leaves stored (the cluster's object of the
// same namespace/name) as it is, so that `diff -f` has nothing to say about it. The API server's
// stored object carries what u leaves out: metadata it keeps, status, and the defaults its schema
// applies. So u is as stored when every field u sets (its labels and annotations too, besides the
// rest of metadata) holds the same value in stored, and, for a managed policy, when both read the
// same to the engine (policy.SameAs: a rule removed from u is a change even though u is then within
// stored).
func asStored(stored, u *unstructured.Unstructured, reg *policy.Registry) bool {
	for k, v := range u.Object {
		if k == "metadata" || k == "status" {
			continue
		}
		if !within(v, stored.Object[k]) {
			return false
		}
	}
	if !within(stringMap(u.GetLabels()), stringMap(stored.GetLabels())) ||
		!within(stringMap(u.GetAnnotations()), stringMap(stored.GetAnnotations())) {
		return false
	}
	k, ok := reg.Lookup(u.GroupVersionKind().GroupKind())
	if !ok {
		return true
	}
	p, errs := policy.View(k, u)
	q, serrs := policy.View(k, stored)
	return len(errs) == 0 && len(serrs) == 0 && atomicByDefault(p).SameAs(atomicByDefault(q))
}

// atomicByDefault is p with the strategy its kind's schema defaults (atomic) written where p leaves
// it out, as the API server stores it.
func atomicByDefault(p *policy.Policy) *policy.Policy {
	for _, b := range []*policy.Block{p.Defaults, p.Overrides} {
		if b != nil && b.Strategy == "" {
			b.Strategy = policy.StrategyAtomic
		}
	}
	return p
}

// within reports whether every field a sets holds the same value in b: maps key by key (b may have
// more keys), lists of the same length item by item, other values equal.
func within(a, b interface{}) bool {
	switch av := a.(type) {
	case map[string]interface{}:
		bv, ok := b.(map[string]interface{})
		if !ok {
			return len(av) == 0 && b == nil
		}
		for k, v := range av {
			if !within(v, bv[k]) {
				return false
			}
		}
		return true
	case []interface{}:
		bv, ok := b.([]interface{})
		if !ok || len(av) != len(bv) {
			return len(av) == 0 && b == nil
		}
		for i := range av {
			if !within(av[i], bv[i]) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(a, b)
}

// stringMap is m as unstructured content (nil for an empty map).
func stringMap(m map[string]string) map[string]interface{} {
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]interface{}, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
