package engine

import (
	"fmt"
	"math/rand"
	"reflect"
	"sort"
	"testing"
	"time"
)

// TestWithPolicyIsABuild: a world stepped by one policy's write or delete at a time (WithPolicy)
// holds the policies, in the same order, and the same indexes by target and by reference, as the
// world built from the policies after the step, and the world stepped from is left as it was, over
// random writes of policies of two kinds (sharing names and creation times) on the Gateway, the
// routes and the Services, one at a time and two at once.
func TestWithPolicyIsABuild(t *testing.T) {
	base := world(t, topo)
	targets := []string{
		"targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: gw}",
		"targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: cart}",
		"targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: tea}",
	}
	rng := rand.New(rand.NewSource(1))
	policyOf := func(kind, name string) *Policy {
		doc := sprintf("apiVersion: gateway.nginx.org/v1alpha1\nkind: ClientSettingsPolicy\nmetadata: {name: %s, namespace: shop}\nspec:\n  %s\n  body: {maxSize: 1m}", name, targets[rng.Intn(len(targets))])
		if kind == "UpstreamSettingsPolicy" {
			svc := []string{"cart", "tea"}[rng.Intn(2)]
			doc = sprintf("apiVersion: gateway.nginx.org/v1alpha1\nkind: UpstreamSettingsPolicy\nmetadata: {name: %s, namespace: shop}\nspec:\n  targetRefs: [{group: core, kind: Service, name: %s}]\n  zoneSize: 1m", name, svc)
		}
		p := policy(t, doc)
		p.Created = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(rng.Intn(3)) * time.Minute)
		return p
	}
	stored := map[key]*Policy{}
	built := func() *World {
		w := base.routesOnly()
		for _, p := range stored {
			w.Policies = append(w.Policies, p)
		}
		sort.Slice(w.Policies, func(i, j int) bool { return Before(w.Policies[i], w.Policies[j]) })
		w.targets()
		return w
	}
	plain := func(w *World) (map[targetKey][]*Policy, map[key]*Policy) {
		targets, refs := map[targetKey][]*Policy{}, map[key]*Policy{}
		for tk, ps := range w.targets().All() {
			targets[tk] = ps
		}
		for k, p := range w.idx.byRef.All() {
			refs[k] = p
		}
		return targets, refs
	}
	same := func(a, b *World) bool {
		at, ar := plain(a)
		bt, br := plain(b)
		return reflect.DeepEqual(a.Policies, b.Policies) && reflect.DeepEqual(at, bt) && reflect.DeepEqual(ar, br)
	}
	w := built()
	for step := range 400 {
		before := built()
		kind := []string{"ClientSettingsPolicy", "UpstreamSettingsPolicy"}[rng.Intn(2)]
		ref := Ref{"shop", fmt.Sprintf("p%d", rng.Intn(5))}
		var p *Policy
		if rng.Intn(4) == 0 {
			delete(stored, key{kind, ref})
		} else {
			p = policyOf(kind, ref.Name)
			stored[key{kind, ref}] = p
		}
		next := w.WithPolicy(kind, ref, p)
		if want := built(); !same(next, want) {
			t.Fatalf("step %d (%s %s): the stepped world differs from the built one:\n got %v\nwant %v", step, kind, ref, next.Policies, want.Policies)
		}
		if !same(w, before) {
			t.Fatalf("step %d (%s %s): the world stepped from changed", step, kind, ref)
		}
		w = next
	}
}
