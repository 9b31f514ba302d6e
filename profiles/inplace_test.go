package profiles

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/precedent-dev/precedent/internal/finding"
	"github.com/precedent-dev/precedent/internal/order"
	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/profile"
	"github.com/precedent-dev/precedent/internal/settings"
	"github.com/precedent-dev/precedent/internal/source"
	"github.com/precedent-dev/precedent/profiles/kgateway"
	"github.com/precedent-dev/precedent/profiles/nginxgatewayfabric"
	"github.com/precedent-dev/precedent/test/gen"
)

// trialOnly is a profile with its InPlace hidden (the embedded interface has no such method): the
// session reviews every write it claims in a trial, as the API server holds the cluster when the
// write arrives.
type trialOnly struct{ profile.Profile }

// counted is kgateway's profile with the builds of the caches its reviews derive counted, by key.
type counted struct {
	kgateway.Profile
	builds map[string]int
}

func (c counted) Review(r profile.Request) profile.Decision {
	return c.Profile.Review(countIn(r, c.builds))
}

func (c counted) Readers(st source.Source, s settings.Settings, reg *policy.Registry, objs []*unstructured.Unstructured) func(schema.GroupKind, policy.Ref, profile.Operation) bool {
	return c.Profile.Readers(countedSource{Source: st, builds: c.builds}, s, reg, objs)
}

// countedNGF is NGINX Gateway Fabric's profile with the builds of its reviews' caches counted.
type countedNGF struct {
	nginxgatewayfabric.Profile
	builds map[string]int
}

func (c countedNGF) Review(r profile.Request) profile.Decision {
	return c.Profile.Review(countIn(r, c.builds))
}

// Prepare derives the world through the counting source, as a replica does before it reports ready.
func (c countedNGF) Prepare(st source.Source, s settings.Settings) error {
	return c.Profile.Prepare(countedSource{Source: st, builds: c.builds}, s)
}

// countIn is r read through a source that counts, in builds, the values derived through it.
func countIn(r profile.Request, builds map[string]int) profile.Request {
	r.Source = countedSource{Source: r.Source, builds: builds}
	return r
}

// countedSource counts the builds of the values derived through it, by key, and their steps (an
// event brought them forward: source.Derivation.Next) under the key and " stepped".
type countedSource struct {
	source.Source
	builds map[string]int
}

func (s countedSource) Derive(d source.Derivation) any {
	build, next := d.Build, d.Next
	d.Build = func() any { s.builds[d.Key]++; return build() }
	if next != nil {
		d.Next = func(prev any, e source.Event) any { s.builds[d.Key+" stepped"]++; return next(prev, e) }
	}
	return s.Source.Derive(d)
}

// withKGateway registers, for the test, wrap(kgateway's profile) in its place.
func withKGateway(t *testing.T, wrap func(profile.Profile) profile.Profile) {
	t.Helper()
	withProfile(t, kgateway.Name, wrap)
}

// withProfile registers, for the test, wrap(the profile of name) in its place.
func withProfile(t *testing.T, name policy.ProfileName, wrap func(profile.Profile) profile.Profile) {
	t.Helper()
	saved := registered
	registered = append([]profile.Profile(nil), registered...)
	for i, p := range registered {
		if p.Name() == name {
			registered[i] = wrap(p)
		}
	}
	t.Cleanup(func() { registered = saved })
}

// generatedKGateway is test/gen's world of sz with its policies as kgateway's TrafficPolicies, and
// the settings that manage them (config/kgateway's).
func generatedKGateway(t *testing.T, sz gen.Size) ([]*unstructured.Unstructured, settings.Settings) {
	t.Helper()
	_, s := readOrderCase(t, filepath.Join("..", "config", "kgateway", "precedentconfig.yaml"))
	w := gen.Generate(sz)
	objs, err := w.Objects()
	if err != nil {
		t.Fatal(err)
	}
	return append(objs, gen.KGateway(w)...), s
}

// changeSet is head as a change set over base, as `precedent diff --base --head` reviews it: the
// objects of head that differ from base's of the same kind and name are updates, base's objects
// that head lacks are deletes.
func changeSet(base, head []*unstructured.Unstructured) Changes {
	key := func(u *unstructured.Unstructured) string {
		return u.GroupVersionKind().GroupKind().String() + " " + profile.NSName(u)
	}
	stored := map[string]*unstructured.Unstructured{}
	for _, u := range base {
		stored[key(u)] = u
	}
	c := Changes{Objects: head, Old: map[*unstructured.Unstructured]*unstructured.Unstructured{}}
	for _, u := range head {
		if b, ok := stored[key(u)]; ok {
			if !reflect.DeepEqual(b.Object, u.Object) {
				c.Old[u] = b
			}
			delete(stored, key(u))
		}
	}
	for _, u := range base {
		if _, ok := stored[key(u)]; ok {
			c.Deleted = append(c.Deleted, u)
		}
	}
	return c
}

// undatedPairs is objs with their TrafficPolicies undated, and beside each of the first n on its
// target another undated one (named -b) and a dated one (-c, the original's date): which of the
// pair is created first decides which one's fields win, over the other's and over -c's.
func undatedPairs(objs []*unstructured.Unstructured, n int) []*unstructured.Unstructured {
	out := make([]*unstructured.Unstructured, 0, len(objs)+2*n)
	for _, u := range objs {
		if u.GetKind() != "TrafficPolicy" {
			out = append(out, u)
			continue
		}
		a := u.DeepCopy()
		a.SetCreationTimestamp(metav1.Time{})
		out = append(out, a)
		if n > 0 {
			n--
			b, c := a.DeepCopy(), u.DeepCopy()
			b.SetName(u.GetName() + "-b")
			c.SetName(u.GetName() + "-c")
			out = append(out, b, c)
		}
	}
	return out
}

// answer is what validate -f says of change set c: every write's findings, then the lines of each
// pair of undated policies whose order of creation changes them (reviewed again on the session,
// the pair swapped in a trial).
func answer(t *testing.T, c Changes, s settings.Settings) []string {
	t.Helper()
	session, err := NewSession(context.Background(), c, s)
	if err != nil {
		t.Fatal(err)
	}
	defer session.Close()
	lines := func(fs []finding.Finding, err error) ([]string, error) {
		out := make([]string, len(fs))
		for i, f := range fs {
			out[i] = f.Text()
		}
		return out, err
	}
	out, err := lines(session.Findings())
	if err != nil {
		t.Fatal(err)
	}
	deps, _, err := order.Depends(c.Objects, order.Zero, func(p *order.Pair) ([]string, error) {
		if p == nil {
			return lines(session.Findings())
		}
		first, second := p.Dated()
		return lines(session.Swapped(map[*unstructured.Unstructured]*unstructured.Unstructured{p.First: first, p.Second: second}))
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range deps {
		out = append(out, d.Lines()...)
	}
	return out
}

// TestInPlaceAnswersAsTrials: the writes kgateway reviews in place (its TrafficPolicies, Gateways,
// route creates and every delete) get the answer they get in a trial each, on inputs that give
// every warning of the profile, a change set of updates and deletes, and a generated world of many
// routes.
func TestInPlaceAnswersAsTrials(t *testing.T) {
	creates, s := readOrderCase(t, filepath.Join("testdata", "inplace", "kgateway.yaml"))
	base, _ := readOrderCase(t, filepath.Join("testdata", "inplace", "diff", "base.yaml"))
	head, _ := readOrderCase(t, filepath.Join("testdata", "inplace", "diff", "head.yaml"))
	world, ws := generatedKGateway(t, gen.Size{Gateways: 10, Routes: 100, Policies: 50})
	undated := undatedPairs(world, 12)
	answersAsTrials(t, kgateway.Name, []inPlaceCase{
		{"creates giving every warning of a create", Changes{Objects: creates}, s, 12},
		{"updates and deletes", changeSet(base, head), s, 11},
		{"generated world of 100 routes", Changes{Objects: world}, ws, 120},
		{"generated world with undated TrafficPolicies, pairs on one target", Changes{Objects: undated}, ws, 233},
	})
}

// inPlaceCase is an input of answersAsTrials.
type inPlaceCase struct {
	name string
	c    Changes
	s    settings.Settings
	// lines is how many lines the answer has at least: the case gives findings to compare.
	lines int
}

// answersAsTrials checks, for each case, that the answer with the profile of name reviewing in
// place equals the answer with it reviewing every write in a trial (and every pair's readers all
// again), and has at least the case's lines.
func answersAsTrials(t *testing.T, name policy.ProfileName, cases []inPlaceCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			inPlace := answer(t, c.c, c.s)
			withProfile(t, name, func(p profile.Profile) profile.Profile { return trialOnly{p} })
			trials := answer(t, c.c, c.s)
			if d := cmp.Diff(trials, inPlace); d != "" {
				t.Errorf("in place (-trials +in place):\n%s", d)
			}
			if len(inPlace) < c.lines {
				t.Errorf("%d lines, want at least %d:\n%v", len(inPlace), c.lines, inPlace)
			}
		})
	}
}

// TestInPlaceDerivesTheWorldOnce: reviewing every TrafficPolicy, route and Gateway of a world
// builds kgateway's world (and its topology's part) at most once, whatever the number of routes (in
// a trial each, once per route and TrafficPolicy: quadratic in the input).
func TestInPlaceDerivesTheWorldOnce(t *testing.T) {
	for _, n := range []int{1, 4} {
		t.Run(fmt.Sprintf("%d routes", 100*n), func(t *testing.T) {
			objs, s := generatedKGateway(t, gen.Size{Gateways: 10 * n, Routes: 100 * n, Policies: 50 * n})
			builds := map[string]int{}
			withKGateway(t, func(p profile.Profile) profile.Profile { return counted{Profile: p.(kgateway.Profile), builds: builds} })
			if _, err := ReviewChanges(context.Background(), Changes{Objects: objs}, s); err != nil {
				t.Fatal(err)
			}
			for key, c := range builds {
				if c > 1 {
					t.Errorf("%s was built %d times in the review of %d objects, want at most once", key, c, len(objs))
				}
			}
			if n > 1 {
				return
			}
			// What is counted: the builds the reviews cause, one per route and TrafficPolicy in trials.
			clear(builds)
			withKGateway(t, func(p profile.Profile) profile.Profile { return trialOnly{p} })
			if _, err := ReviewChanges(context.Background(), Changes{Objects: objs}, s); err != nil {
				t.Fatal(err)
			}
			if got := builds[string(kgateway.Name)]; got != 100+50 {
				t.Errorf("in a trial each, the world was built %d times, want %d (100 routes, 50 TrafficPolicies)", got, 100+50)
			}
		})
	}
}

// reviewCounted is kgateway's profile (its InPlace and Readers too) with its reviews counted by the
// written object's kind.
type reviewCounted struct {
	kgateway.Profile
	reviews map[string]int
}

func (c reviewCounted) Review(r profile.Request) profile.Decision {
	c.reviews[r.Object.GetKind()]++
	return c.Profile.Review(r)
}

// TestSwappedPairsReviewNoRouteCreateAgain: the creation-order check swaps each undated pair of
// TrafficPolicies and reviews again only the writes whose review may read them (profile.Readers):
// some TrafficPolicies, never a route's create or a Gateway's, which read no policy (each swap
// reviewed every route again before: 1,300 route reviews here for 100 routes and 12 pairs).
// TestInPlaceAnswersAsTrials compares the answers with every write reviewed again.
func TestSwappedPairsReviewNoRouteCreateAgain(t *testing.T) {
	world, s := generatedKGateway(t, gen.Size{Gateways: 10, Routes: 100, Policies: 50})
	undated := undatedPairs(world, 12)
	kinds := map[string]int{}
	for _, u := range undated {
		kinds[u.GetKind()]++
	}
	reviews := map[string]int{}
	withKGateway(t, func(p profile.Profile) profile.Profile {
		return reviewCounted{Profile: p.(kgateway.Profile), reviews: reviews}
	})
	if lines := answer(t, Changes{Objects: undated}, s); len(lines) == 0 {
		t.Fatal("no findings: the case has no pair to swap")
	}
	for _, kind := range []string{"HTTPRoute", "Gateway"} {
		if reviews[kind] != kinds[kind] {
			t.Errorf("%d reviews of %ss, want one for each of %d", reviews[kind], kind, kinds[kind])
		}
	}
	if reviews["TrafficPolicy"] <= kinds["TrafficPolicy"] {
		t.Errorf("%d reviews of TrafficPolicies for %d: no pair was reviewed again", reviews["TrafficPolicy"], kinds["TrafficPolicy"])
	}
}

// TestSwappedPairsWorkIsBounded: the creation-order check's work for each swapped pair does not grow
// with the input. Over worlds of 400 and 1,600 routes with 12 undated pairs each (on Gateways of ten
// routes, five of them with a policy, in both), the writes reviewed again for a pair, and the
// findings they give (the only lines order.DependsIn renders and compares for a pair), are no more
// in the larger world; and kgateway's world, and who reaches each route, are derived at most once
// for the whole check: a pair's trial steps the world (engine.World.WithPolicy). Before, each pair
// read every policy again, and every finding's line of the input was rendered and compared once
// per pair.
func TestSwappedPairsWorkIsBounded(t *testing.T) {
	measure := func(t *testing.T, n int) pairWork {
		world, s := generatedKGateway(t, gen.Size{Gateways: 10 * n, Routes: 100 * n, Policies: 50 * n})
		builds := map[string]int{}
		withKGateway(t, func(p profile.Profile) profile.Profile { return counted{Profile: p.(kgateway.Profile), builds: builds} })
		w := swappedWork(t, undatedPairs(world, 12), s)
		for _, key := range []string{string(kgateway.Name), string(kgateway.Name) + "/reachers"} {
			if builds[key] > 1 {
				t.Errorf("%s was built %d times for %d pairs, want at most once", key, builds[key], w.pairs)
			}
		}
		return w
	}
	var small, large pairWork
	t.Run("400 routes", func(t *testing.T) { small = measure(t, 4) })
	t.Run("1,600 routes", func(t *testing.T) { large = measure(t, 16) })
	boundedWork(t, 12, small, large)
}

// pairWork is the work of the creation-order check's swapped pairs: the pairs, the writes
// reviewed again for them, and the lines of those reviews (those compared), in all and for the
// costliest pair.
type pairWork struct{ pairs, reviews, lines, mostReviews, mostLines int }

// swappedWork runs the creation-order check over objs as validate -f does, and counts its work for
// the pairs.
func swappedWork(t *testing.T, objs []*unstructured.Unstructured, s settings.Settings) pairWork {
	t.Helper()
	session, err := NewSession(context.Background(), Changes{Objects: objs}, s)
	if err != nil {
		t.Fatal(err)
	}
	defer session.Close()
	var w pairWork
	deps, _, err := order.DependsIn(objs, order.Zero, func() ([][]string, error) {
		fs, err := session.ByWrite()
		out := make([][]string, len(fs))
		for i, f := range fs {
			out[i] = texts(f)
		}
		return out, err
	}, func(p order.Pair) (map[int][]string, error) {
		first, second := p.Dated()
		again, err := session.SwappedWrites(map[*unstructured.Unstructured]*unstructured.Unstructured{p.First: first, p.Second: second})
		out := map[int][]string{}
		lines := 0
		for i, fs := range again {
			out[i] = texts(fs)
			lines += len(fs)
		}
		w.pairs++
		w.reviews += len(again)
		w.lines += lines
		w.mostReviews, w.mostLines = max(w.mostReviews, len(again)), max(w.mostLines, lines)
		return out, err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(deps) == 0 {
		t.Fatal("no pair changes the answer: the case checks nothing")
	}
	return w
}

// boundedWork checks that no pair of a larger input costs more than the costliest of a smaller one,
// as many pairs in each.
func boundedWork(t *testing.T, pairs int, small, large pairWork) {
	t.Helper()
	if small.pairs != pairs || large.pairs != pairs {
		t.Fatalf("pairs checked: %d and %d, want %d in each world", small.pairs, large.pairs, pairs)
	}
	if large.mostReviews > small.mostReviews || large.mostLines > small.mostLines {
		t.Errorf("the pairs' work grew with the input: %+v in the smaller world, %+v in the larger", small, large)
	}
	if small.reviews == 0 || small.lines == 0 {
		t.Errorf("%+v: the pairs reviewed nothing again", small)
	}
}

// texts are the findings' lines.
func texts(fs []finding.Finding) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.Text()
	}
	return out
}
