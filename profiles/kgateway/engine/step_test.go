package engine

import (
	"fmt"
	"math/rand"
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TestWithPolicyIsWithPolicies: a world stepped by one policy's write or delete at a time
// (WithPolicy) is the world WithPolicies indexes from the policies after the step, and the world
// stepped from is left as it was, over random writes of policies on Gateways, listeners,
// ListenerSets, routes and their rules, by targetRefs (one target named twice too) and selectors,
// and of policies that do not read (left out).
func TestWithPolicyIsWithPolicies(t *testing.T) {
	gw := object("Gateway", "infra", "gw", nil, map[string]string{"team": "edge"}, obj{"listeners": list{obj{"name": "http", "port": int64(80)}}})
	ls := object("ListenerSet", "infra", "ls", nil, nil, obj{"parentRef": obj{"name": "gw"}, "listeners": list{obj{"name": "extra", "port": int64(81)}}})
	topo := []*unstructured.Unstructured{gw, ls,
		route("infra", "a", "gw", "", map[string]string{"app": "shop"}, obj{"name": "main"}),
		route("infra", "b", "gw", "", map[string]string{"app": "shop"}, obj{"name": "main"}),
		route("infra", "c", "gw", "", nil, obj{"name": "main"})}
	targets := []list{
		{ref("Gateway", "gw", "")}, {ref("Gateway", "gw", "http")}, {ref("ListenerSet", "ls", "")},
		{ref("HTTPRoute", "a", "")}, {ref("HTTPRoute", "b", "main")}, {ref("HTTPRoute", "a", ""), ref("HTTPRoute", "a", "")},
		{ref("HTTPRoute", "a", ""), ref("HTTPRoute", "c", "")}, {ref("Gateway", "nowhere", "")}, {ref("Service", "svc", "")},
	}
	rng := rand.New(rand.NewSource(1))
	policy := func(name string) *unstructured.Unstructured {
		if rng.Intn(5) == 0 {
			return tp("infra", name, rng.Intn(3), nil, obj{"cors": obj{}, "targetSelectors": list{obj{"kind": "HTTPRoute", "matchLabels": obj{"app": "shop"}}}})
		}
		return tp("infra", name, rng.Intn(3), targets[rng.Intn(len(targets))], obj{"timeouts": obj{"request": "5s"}})
	}
	base := NewTopology(topo)
	stored := map[string]*unstructured.Unstructured{}
	worldOf := func() *World {
		var objs []*unstructured.Unstructured
		for _, u := range stored {
			objs = append(objs, u)
		}
		return base.WithPolicies(objs)
	}
	w := worldOf()
	for step := range 400 {
		before := worldOf() // w, as WithPolicies indexed it
		name := fmt.Sprintf("p%d", rng.Intn(6))
		var p *Policy
		if rng.Intn(4) == 0 {
			delete(stored, name)
		} else {
			u := policy(name)
			stored[name] = u
			if read, errs := Read(u); len(errs) == 0 {
				p = read
			}
		}
		next := w.WithPolicy(Key{"infra", name}, p)
		if got, want := contents(next), contents(worldOf()); !reflect.DeepEqual(got, want) {
			t.Fatalf("step %d (%s): the stepped world differs from WithPolicies's:\n got %+v\nwant %+v", step, name, got, want)
		}
		if !reflect.DeepEqual(contents(w), contents(before)) {
			t.Fatalf("step %d (%s): the world stepped from changed", step, name)
		}
		w = next
	}
}

// worldContents are a world's policies and attachments as plain maps, to compare.
type worldContents struct {
	Policies map[Key]*Policy
	Attached map[Target]map[Key][]*Policy
}

func contents(w *World) worldContents {
	c := worldContents{Policies: map[Key]*Policy{}, Attached: map[Target]map[Key][]*Policy{}}
	for k, p := range w.Policies() {
		c.Policies[k] = p
	}
	for t, m := range w.attached {
		c.Attached[t] = map[Key][]*Policy{}
		for k, ps := range m.All() {
			c.Attached[t][k] = ps
		}
	}
	return c
}
