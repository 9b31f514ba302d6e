package kgateway

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/profile"
	"github.com/precedent-dev/precedent/internal/settings"
	"github.com/precedent-dev/precedent/internal/source"
	"github.com/precedent-dev/precedent/profiles/kgateway/engine"
)

var _ profile.Readers = Profile{}

// Readers: a TrafficPolicy's review reads the policies on the paths of the routes it reaches
// (engine.View.Reached: a policy on a level of a route's path reaches that route), so the reviews
// that may read one of objs are those of the TrafficPolicies that reach a route one of objs
// reaches, and of objs themselves. A route's update may fold the paths beneath it (an annotation
// change); a route's create reads no policy where the stored route is itself, as in the offline
// review that asks (modeChange); a Gateway's write and every delete read none.
func (p Profile) Readers(st source.Source, s settings.Settings, reg *policy.Registry, objs []*unstructured.Unstructured) func(schema.GroupKind, policy.Ref, profile.Operation) bool {
	if profile.Listed(st, Name, reg, reads...) != nil {
		return nil
	}
	v := engine.View{World: p.world(st, reg)}
	reachers := p.reachers(st, reg)
	refs := map[policy.Ref]bool{}
	for _, u := range objs {
		pol, errs := engine.Read(u)
		if len(errs) > 0 {
			return nil
		}
		refs[policy.Ref{Namespace: pol.Ref.Namespace, Name: pol.Ref.Name}] = true
		for _, rk := range v.Reached(pol) {
			for _, k := range reachers[rk] {
				refs[policy.Ref{Namespace: k.Namespace, Name: k.Name}] = true
			}
		}
	}
	return func(gk schema.GroupKind, r policy.Ref, op profile.Operation) bool {
		switch {
		case gk == gatewayKind, op == profile.Delete, gk == httpRouteKind && op == profile.Create:
			return false
		case gk.Kind == engine.TrafficPolicy:
			return refs[r]
		}
		return true // a route, or a configured kind the world does not hold
	}
}

// reachers are, for each route of the world, the TrafficPolicies that reach it (engine.View.Reached),
// derived once per world: the readers of each swapped pair are looked up at the cost of the routes
// it reaches, not of reaching from every policy again.
func (p Profile) reachers(st source.Source, reg *policy.Registry) map[engine.Key][]engine.Key {
	v := st.Derive(source.Derivation{Key: string(Name) + "/reachers", Kinds: append(policyKinds(reg), reads...), Topology: true, Build: func() any {
		w := engine.View{World: p.world(st, reg)}
		out := map[engine.Key][]engine.Key{}
		for k, q := range w.Policies() {
			for _, rk := range w.Reached(q) {
				out[rk] = append(out[rk], k)
			}
		}
		return out
	}})
	return v.(map[engine.Key][]engine.Key)
}
