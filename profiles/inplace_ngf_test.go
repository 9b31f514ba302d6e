package profiles

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/precedent-dev/precedent/internal/order"
	"github.com/precedent-dev/precedent/internal/profile"
	"github.com/precedent-dev/precedent/internal/settings"
	"github.com/precedent-dev/precedent/profiles/nginxgatewayfabric"
	"github.com/precedent-dev/precedent/test/gen"
)

// generatedNGF is test/gen's world of sz with NGINX Gateway Fabric's policies and Services in place
// of its own policies, and the settings that manage them (config/nginx-gateway-fabric's).
func generatedNGF(t *testing.T, sz gen.Size) ([]*unstructured.Unstructured, settings.Settings) {
	t.Helper()
	_, s := readOrderCase(t, filepath.Join("..", "config", "nginx-gateway-fabric", "precedentconfig.yaml"))
	w := gen.Generate(sz)
	services, policies := gen.NGINXGatewayFabric(w)
	w.Policies = nil
	objs, err := w.Objects()
	if err != nil {
		t.Fatal(err)
	}
	return append(append(objs, services...), policies...), s
}

// ngfHead is the NGINX Gateway Fabric in-place case's objects as a later state: the Gateway's
// policy and the oldest tea policy updated (the latter moved to the coffee route: tea-client-a
// holds the tea route again), tea-client-b and the coffee route's policy deleted, and a policy
// created that conflicts with the one on the coffee route.
func ngfHead(t *testing.T, base []*unstructured.Unstructured) []*unstructured.Unstructured {
	t.Helper()
	var head []*unstructured.Unstructured
	for _, u := range base {
		u = u.DeepCopy()
		var err error
		switch u.GetName() {
		case "tea-client-b", "coffee-client-settings":
			continue
		case "gateway-client-settings":
			err = unstructured.SetNestedField(u.Object, int64(200), "spec", "keepAlive", "requests")
		case "tea-client-early":
			err = unstructured.SetNestedField(u.Object, "coffee", "spec", "targetRef", "name")
		}
		if err != nil {
			t.Fatal(err)
		}
		head = append(head, u)
	}
	late := base[len(base)-1].DeepCopy()
	for _, u := range base {
		if u.GetName() == "tea-client-a" {
			late = u.DeepCopy()
		}
	}
	late.SetName("coffee-client-late")
	if err := unstructured.SetNestedField(late.Object, "coffee", "spec", "targetRef", "name"); err != nil {
		t.Fatal(err)
	}
	return append(head, late)
}

// TestInPlaceNGFAnswersAsTrials: NGINX Gateway Fabric's policy writes, reviewed in place, get the
// answer they get in a trial each, on inputs that give every finding of a policy write, a change
// set of creates, updates and deletes, and a generated world of many routes.
func TestInPlaceNGFAnswersAsTrials(t *testing.T) {
	base, s := readOrderCase(t, filepath.Join("testdata", "inplace", "nginx-gateway-fabric.yaml"))
	world, ws := generatedNGF(t, gen.Size{Gateways: 10, Routes: 100, Policies: 50})
	answersAsTrials(t, nginxgatewayfabric.Name, []inPlaceCase{
		{"creates giving every finding of a policy write", Changes{Objects: base}, s, 12},
		{"creates, updates and deletes", changeSet(base, ngfHead(t, base)), s, 8},
		{"generated world of 100 routes", Changes{Objects: world}, ws, 5},
		// The pairs' readers (profile.Readers), against every policy reviewed again for each pair.
		{"creates giving every finding, undated", Changes{Objects: undatedNGF(base)}, s, 14},
		{"generated world with its policies in undated pairs", Changes{Objects: ngfPairs(world)}, ws, 40},
	})
}

// undatedNGF is objs with their NGINX Gateway Fabric policies undated: those that share a target
// are pairs of unknown order.
func undatedNGF(objs []*unstructured.Unstructured) []*unstructured.Unstructured {
	out := make([]*unstructured.Unstructured, 0, len(objs))
	for _, u := range objs {
		if u.GroupVersionKind().Group == gen.NGINXGroup {
			u = u.DeepCopy()
			u.SetCreationTimestamp(metav1.Time{})
		}
		out = append(out, u)
	}
	return out
}

// ngfPairs is objs with their NGINX Gateway Fabric policies in undated pairs (gen.NGINXUndatedPairs).
func ngfPairs(objs []*unstructured.Unstructured) []*unstructured.Unstructured {
	var out, pols []*unstructured.Unstructured
	for _, u := range objs {
		if u.GroupVersionKind().Group == gen.NGINXGroup {
			pols = append(pols, u)
			continue
		}
		out = append(out, u)
	}
	return append(out, gen.NGINXUndatedPairs(pols)...)
}

// TestSwappedNGFPairsWorkIsBounded: NGINX Gateway Fabric's profile says whose reviews read a pair
// (profile.Readers: the policies related to it, and those of the Gateways above its routes), so the
// creation-order check's work for each pair does not grow with the input: over worlds of 400 and
// 1,600 routes with every policy in an undated pair (32 pairs checked), the writes reviewed again
// for a pair and their lines are no more in the larger world (every policy was reviewed again for each pair
// before: 32 times 400 reviews in the smaller world), and the world is built once for the whole
// check (each pair's trial built it anew before: engine.World.WithPolicy steps it).
// TestInPlaceNGFAnswersAsTrials compares the answers with every policy reviewed again.
func TestSwappedNGFPairsWorkIsBounded(t *testing.T) {
	measure := func(t *testing.T, n int) pairWork {
		world, s := generatedNGF(t, gen.Size{Gateways: 10 * n, Routes: 100 * n, Policies: 50 * n})
		builds := map[string]int{}
		withProfile(t, nginxgatewayfabric.Name, func(p profile.Profile) profile.Profile {
			return countedNGF{Profile: p.(nginxgatewayfabric.Profile), builds: builds}
		})
		w := swappedWork(t, ngfPairs(world), s)
		if got := builds[string(nginxgatewayfabric.Name)]; got != 1 {
			t.Errorf("the world was built %d times for %d pairs, want once (Prepare): the pairs' trials step it", got, w.pairs)
		}
		return w
	}
	var small, large pairWork
	t.Run("400 routes", func(t *testing.T) { small = measure(t, 4) })
	t.Run("1,600 routes", func(t *testing.T) { large = measure(t, 16) })
	boundedWork(t, order.MaxPairs, small, large)
	if small.reviews >= order.MaxPairs*100 {
		t.Errorf("%d reviews again for %d pairs of 400 policies: every policy was reviewed again", small.reviews, small.pairs)
	}
}

// TestInPlaceNGFDerivesTheWorldOnce: reviewing every NGINX Gateway Fabric policy of a world builds
// the profile's world at most once, whatever the number of policies (in a trial each, it was built
// once per policy, quadratic in the input, until the trials stepped it: engine.World.WithPolicy).
func TestInPlaceNGFDerivesTheWorldOnce(t *testing.T) {
	for _, n := range []int{1, 4} {
		t.Run(fmt.Sprintf("%d routes", 100*n), func(t *testing.T) {
			objs, s := generatedNGF(t, gen.Size{Gateways: 10 * n, Routes: 100 * n, Policies: 50 * n})
			builds := map[string]int{}
			withProfile(t, nginxgatewayfabric.Name, func(p profile.Profile) profile.Profile {
				return countedNGF{Profile: p.(nginxgatewayfabric.Profile), builds: builds}
			})
			if _, err := ReviewChanges(context.Background(), Changes{Objects: objs}, s); err != nil {
				t.Fatal(err)
			}
			if got := builds[string(nginxgatewayfabric.Name)]; got != 1 {
				t.Errorf("the world was built %d times in the review of %d objects, want once (Prepare)", got, len(objs))
			}
			if n > 1 {
				return
			}
			// What is counted: in a trial each, the world is stepped with each policy taken out, once
			// per policy (it was built once per policy before it was stepped: quadratic in the input).
			clear(builds)
			withProfile(t, nginxgatewayfabric.Name, func(p profile.Profile) profile.Profile { return trialOnly{p} })
			if _, err := ReviewChanges(context.Background(), Changes{Objects: objs}, s); err != nil {
				t.Fatal(err)
			}
			key := string(nginxgatewayfabric.Name)
			if got, steps := builds[key], builds[key+" stepped"]; got != 1 || steps != 50 {
				t.Errorf("in a trial each, the world was built %d times and stepped %d times, want once (Prepare) and 50 (one per policy)", got, steps)
			}
		})
	}
}
