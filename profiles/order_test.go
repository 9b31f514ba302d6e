package profiles

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/precedent-dev/precedent/internal/finding"
	"github.com/precedent-dev/precedent/internal/manifest"
	"github.com/precedent-dev/precedent/internal/order"
	"github.com/precedent-dev/precedent/internal/settings"
)

// readOrderCase reads files of testdata/order (and others) as validate -f does: a PrecedentConfig
// among them is the settings.
func readOrderCase(t *testing.T, files ...string) ([]*unstructured.Unstructured, settings.Settings) {
	t.Helper()
	objs, err := manifest.Read(files...)
	if err != nil {
		t.Fatal(err)
	}
	s := settings.Defaults()
	var out []*unstructured.Unstructured
	for _, o := range objs {
		if o.GroupVersionKind().GroupKind() == settings.GVK.GroupKind() {
			cs, errs := settings.Decode(o.Unstructured)
			if len(errs) > 0 {
				t.Fatal(errs)
			}
			s = cs
			continue
		}
		out = append(out, o.Unstructured)
	}
	return out, s
}

// TestOrderOfCreation checks, per profile, what the review says of two policies of one target
// without creationTimestamp under each order of creation: the review assumes name order (aa-team
// first), and the other order's outcome is what a controller ordering by age gives when zz-team is
// created first. Kuma orders by name: no dependence.
func TestOrderOfCreation(t *testing.T) {
	cases := []struct {
		name  string
		files []string
		// assumed and other are the review's lines only the assumed order (aa-team created first)
		// gives, and only the other order gives.
		assumed, other []string
	}{
		{
			name:  "defaults-overrides: the oldest RateLimitPolicy wins",
			files: []string{"defaults-overrides.yaml"},
			assumed: []string{
				"PRC-W010 RateLimitPolicy shop/aa-team: replaces shop/zz-team's `per-user` on route shop/cart (defaults-overrides: the oldest policy on one target wins)",
				"PRC-N001 RateLimitPolicy shop/zz-team: spec.limits of this policy are replaced by RateLimitPolicy shop/aa-team on route shop/cart",
			},
			other: []string{
				"PRC-N001 RateLimitPolicy shop/aa-team: spec.limits of this policy are replaced by RateLimitPolicy shop/zz-team on route shop/cart",
				"PRC-W010 RateLimitPolicy shop/zz-team: replaces shop/aa-team's `per-user` on route shop/cart (defaults-overrides: the oldest policy on one target wins)",
			},
		},
		{
			name:  "gep713: the oldest TrafficPolicy wins",
			files: []string{"gep713.yaml"},
			assumed: []string{
				"PRC-W010 TrafficPolicy shop/aa-team: replaces shop/zz-team's `timeouts.request` on route shop/cart (GEP-713: the oldest policy on one target wins)",
				"PRC-N001 TrafficPolicy shop/zz-team: default rule timeouts.request is replaced by TrafficPolicy shop/aa-team on route shop/cart",
			},
			other: []string{
				"PRC-N001 TrafficPolicy shop/aa-team: default rule timeouts.request is replaced by TrafficPolicy shop/zz-team on route shop/cart",
				"PRC-W010 TrafficPolicy shop/zz-team: replaces shop/aa-team's `timeouts.request` on route shop/cart (GEP-713: the oldest policy on one target wins)",
			},
		},
		{
			name:  "kuadrant: the newer RateLimitPolicy wins",
			files: []string{"kuadrant.yaml"},
			assumed: []string{
				"PRC-N001 RateLimitPolicy shop/aa-team: spec.limits of this policy are replaced by RateLimitPolicy shop/zz-team on route shop/cart",
				"PRC-W010 RateLimitPolicy shop/zz-team: replaces shop/aa-team's `per-user` on route shop/cart (Kuadrant: the newer policy on one target wins)",
			},
			other: []string{
				"PRC-W010 RateLimitPolicy shop/aa-team: replaces shop/zz-team's `per-user` on route shop/cart (Kuadrant: the newer policy on one target wins)",
				"PRC-N001 RateLimitPolicy shop/zz-team: spec.limits of this policy are replaced by RateLimitPolicy shop/aa-team on route shop/cart",
			},
		},
		{
			name:    "envoy-gateway: the oldest SecurityPolicy holds the route, the newer is Conflicted",
			files:   []string{"envoy-gateway.yaml"},
			assumed: []string{"PRC-W019 SecurityPolicy shop/zz-team: will be Conflicted on HTTPRoute shop/cart: shop/aa-team is older and holds it"},
			other:   []string{"PRC-W019 SecurityPolicy shop/aa-team: will be Conflicted on HTTPRoute shop/cart: shop/zz-team is older and holds it"},
		},
		{
			name:  "mesh: Kuma orders by name, the order of creation changes nothing",
			files: []string{"mesh.yaml", filepath.Join("..", "..", "..", "config", "samples", "mesh", "dataplanes.yaml")},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			files := make([]string, len(tc.files))
			for i, f := range tc.files {
				files[i] = filepath.Join("testdata", "order", f)
			}
			objs, s := readOrderCase(t, files...)
			lines := func(fs []finding.Finding, err error) ([]string, error) {
				out := make([]string, len(fs))
				for i, f := range fs {
					out[i] = f.Text()
				}
				return out, err
			}
			// Every order reviewed from scratch, and on one session swapping the pair in a trial
			// (what validate does): the same answer.
			rebuilt := func(p *order.Pair) ([]string, error) {
				if p == nil {
					return lines(Review(context.Background(), objs, s))
				}
				return lines(Review(context.Background(), order.Swapped(objs, *p), s))
			}
			session, err := NewSession(context.Background(), Changes{Objects: objs}, s)
			if err != nil {
				t.Fatal(err)
			}
			defer session.Close()
			swapped := func(p *order.Pair) ([]string, error) {
				if p == nil {
					return lines(session.Findings())
				}
				first, second := p.Dated()
				return lines(session.Swapped(map[*unstructured.Unstructured]*unstructured.Unstructured{p.First: first, p.Second: second}))
			}
			for _, run := range []struct {
				name string
				run  func(*order.Pair) ([]string, error)
			}{{"rebuilt", rebuilt}, {"session", swapped}} {
				deps, more, err := order.Depends(objs, order.Zero, run.run)
				if err != nil {
					t.Fatal(err)
				}
				if more {
					t.Errorf("%s: more pairs than checked", run.name)
				}
				type outcome struct {
					First, Second  string
					Assumed, Other []string
				}
				var got []outcome
				for _, d := range deps {
					got = append(got, outcome{d.First.GetName(), d.Second.GetName(), d.Assumed, d.Other})
				}
				var want []outcome
				if tc.assumed != nil || tc.other != nil {
					want = []outcome{{"aa-team", "zz-team", tc.assumed, tc.other}}
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("%s: order dependences (-want +got):\n%s", run.name, diff)
				}
			}
		})
	}
}
