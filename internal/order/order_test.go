package order

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

func objects(t *testing.T, docs ...string) []*unstructured.Unstructured {
	t.Helper()
	out := make([]*unstructured.Unstructured, len(docs))
	for i, d := range docs {
		out[i] = &unstructured.Unstructured{}
		if err := yaml.Unmarshal([]byte(d), &out[i].Object); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

const (
	aa      = `{apiVersion: x.io/v1, kind: P, metadata: {name: aa, namespace: shop}, spec: {targetRef: {group: g, kind: HTTPRoute, name: cart}}}`
	zz      = `{apiVersion: x.io/v1, kind: P, metadata: {name: zz, namespace: shop}, spec: {targetRefs: [{group: g, kind: HTTPRoute, name: cart}, {group: g, kind: HTTPRoute, name: shelf}]}}`
	mm      = `{apiVersion: x.io/v1, kind: P, metadata: {name: mm, namespace: shop}, spec: {targetRef: {group: g, kind: HTTPRoute, name: shelf}}}`
	dated   = `{apiVersion: x.io/v1, kind: P, metadata: {name: bb, namespace: shop, creationTimestamp: "2025-01-01T00:00:00Z"}, spec: {targetRef: {group: g, kind: HTTPRoute, name: cart}}}`
	other   = `{apiVersion: x.io/v1, kind: P, metadata: {name: cc, namespace: other}, spec: {targetRef: {group: g, kind: HTTPRoute, name: cart}}}`
	kind2   = `{apiVersion: y.io/v1, kind: P, metadata: {name: dd, namespace: shop}, spec: {targetRef: {group: g, kind: HTTPRoute, name: cart}}}`
	noRef   = `{apiVersion: x.io/v1, kind: P, metadata: {name: ee, namespace: shop}, spec: {}}`
	section = `{apiVersion: x.io/v1, kind: P, metadata: {name: ff, namespace: shop}, spec: {targetRef: {group: g, kind: HTTPRoute, name: cart, sectionName: main}}}`
)

func TestTies(t *testing.T) {
	cases := []struct {
		name string
		docs []string
		want []string // "first second"
	}{
		{name: "two undated policies of one target tie", docs: []string{zz, aa}, want: []string{"aa zz"}},
		{name: "a shared entry of targetRefs is one target", docs: []string{zz, mm}, want: []string{"mm zz"}},
		{name: "three on two targets give each pair once", docs: []string{mm, zz, aa}, want: []string{"aa zz", "mm zz"}},
		{name: "a dated policy is not undetermined", docs: []string{aa, dated}},
		{name: "other namespaces and kinds do not tie", docs: []string{aa, other, kind2}},
		{name: "a policy without target ties with nothing", docs: []string{aa, noRef}},
		{name: "a section is the same target (the rerun shows whether order counts)", docs: []string{aa, section}, want: []string{"aa ff"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			pairs, more := Ties(objects(t, tc.docs...), Zero)
			var got []string
			for _, p := range pairs {
				got = append(got, p.First.GetName()+" "+p.Second.GetName())
			}
			if diff := cmp.Diff(tc.want, got); diff != "" || more {
				t.Errorf("pairs (-want +got), more %v:\n%s", more, diff)
			}
		})
	}
}

func TestSwapped(t *testing.T) {
	objs := objects(t, zz, aa, mm)
	p := Pair{First: objs[1], Second: objs[0]}
	got := Swapped(objs, p)
	if got[2] != objs[2] {
		t.Error("an object outside the pair was copied")
	}
	first, second := got[1].GetCreationTimestamp(), got[0].GetCreationTimestamp()
	if !second.Before(&first) {
		t.Errorf("second %v is not created before first %v", second, first)
	}
	if ts := objs[0].GetCreationTimestamp(); !ts.IsZero() {
		t.Error("the input was changed")
	}
}

func TestDepends(t *testing.T) {
	// run says which of the undated policies aa and zz is older, as an oldest-wins engine breaking
	// ties by name would.
	winner := func(objs []*unstructured.Unstructured) ([]string, error) {
		var a, z *unstructured.Unstructured
		for _, u := range objs {
			switch u.GetName() {
			case "aa":
				a = u
			case "zz":
				z = u
			}
		}
		at, zt := a.GetCreationTimestamp(), z.GetCreationTimestamp()
		if zt.Before(&at) {
			return []string{"zz wins", "same"}, nil
		}
		return []string{"aa wins", "same"}, nil
	}
	same := func([]*unstructured.Unstructured) ([]string, error) { return []string{"same"}, nil }
	cases := []struct {
		name string
		run  func([]*unstructured.Unstructured) ([]string, error)
		want []string
	}{
		{
			name: "an order that changes the answer gives both outcomes",
			run:  winner,
			want: []string{
				"PRC-W100 P shop/aa: the outcome depends on whether it or P shop/zz is created first, which the input does not say (no creationTimestamp); the other lines assume shop/aa is created first (name order); if shop/zz is created first instead: 1 line below",
				"PRC-W100 P shop/zz: if created before shop/aa: zz wins",
			},
		},
		{name: "an order that changes nothing is not reported", run: same},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			objs := objects(t, zz, aa)
			deps, _, err := Depends(objs, Zero, func(p *Pair) ([]string, error) {
				if p == nil {
					return tc.run(objs)
				}
				return tc.run(Swapped(objs, *p))
			})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, d := range deps {
				got = append(got, d.Lines()...)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("lines (-want +got):\n%s", diff)
			}
		})
	}
}

func TestTiesAreBounded(t *testing.T) {
	var docs []string
	for i := 0; i < 10; i++ {
		docs = append(docs, strings.Replace(aa, "name: aa", "name: p"+string(rune('a'+i)), 1))
	}
	pairs, more := Ties(objects(t, docs...), Zero)
	if len(pairs) != MaxPairs || !more {
		t.Errorf("got %d pairs, more %v; want %d and more", len(pairs), more, MaxPairs)
	}
}
