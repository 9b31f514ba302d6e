package state

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/precedent-dev/precedent/access"
)

// accessNext brings the access grants of kind gk forward with an event on one of its policies: when
// the grants built are up to date, it updates the grants behind the Gateways the policy touches only
// (access.Grants.Update, building held, mu not: requests go on with the current version) and returns
// what publishes them with the event (mu held, the event stored and bumped). It returns nil when
// nothing up to date is built: the next request or the background builder builds them whole.
func (s *State) accessNext(gk schema.GroupKind) func(client.Object, bool) func() {
	return func(o client.Object, deleted bool) func() {
		s.mu.Lock()
		b := s.accessGrants[gk]
		pgen, tgen := s.policyGen[gk], s.topoGen
		s.mu.Unlock()
		if b == nil || b.policyGen != pgen || b.topoGen != tgen {
			return nil
		}
		var p *access.Policy
		if u, ok := o.(*unstructured.Unstructured); ok && !deleted {
			if q, errs := access.Parse(u, StoredAccess(b.settings)); len(errs) == 0 {
				p = &q // a policy that no longer parses is left out, as AccessPolicies does
			}
		}
		g := b.g.Update(key(o).String(), p)
		return func() {
			if s.accessGrants[gk] == b && s.policyGen[gk] == pgen+1 && s.topoGen == tgen {
				s.accessGrants[gk] = &builtGrants{g: g, policyGen: pgen + 1, topoGen: tgen, settings: b.settings}
			}
		}
	}
}

// isAccessKind reports whether gk is one of the access policy kinds.
func isAccessKind(gk schema.GroupKind) bool {
	return gk == access.AccessPolicyKind || gk == access.XAccessPolicyKind
}
