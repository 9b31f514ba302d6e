package manifest

import (
	"fmt"
	"math"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// same reports whether a and b are one map or one list (not only equal ones).
func same(a, b interface{}) bool {
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	if va.Kind() != vb.Kind() || (va.Kind() != reflect.Map && va.Kind() != reflect.Slice) {
		return false
	}
	return va.Pointer() == vb.Pointer()
}

func TestShare(t *testing.T) {
	decoded := func(t *testing.T, doc string) *unstructured.Unstructured {
		objs, err := Decode("test.yaml", []byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		return objs[0].Unstructured
	}
	const a = `apiVersion: policy.precedent.dev/v1alpha1
kind: RateLimitPolicy
metadata: {name: a, namespace: shop, labels: {team: x}}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: gw}
  defaults:
    limits: {burst: {rates: [{limit: 50, window: 1m}]}}
`
	const b = `apiVersion: policy.precedent.dev/v1alpha1
kind: RateLimitPolicy
metadata: {name: b, namespace: shop, labels: {team: x}}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: other}
  defaults:
    limits: {burst: {rates: [{limit: 50, window: 1m}]}}
`
	tests := []struct {
		name  string
		a, b  string
		edit  func(a, b *unstructured.Unstructured) // before Share
		share func(a, b *unstructured.Unstructured) (x, y interface{})
		want  bool // x and y are one value after Share
	}{
		{"equal rule bodies are one", a, b, nil, func(a, b *unstructured.Unstructured) (interface{}, interface{}) {
			return a.Object["spec"].(map[string]interface{})["defaults"], b.Object["spec"].(map[string]interface{})["defaults"]
		}, true},
		{"equal lists are one", a, b, nil, func(a, b *unstructured.Unstructured) (interface{}, interface{}) {
			return rates(a), rates(b)
		}, true},
		{"different targets stay apart", a, b, nil, func(a, b *unstructured.Unstructured) (interface{}, interface{}) {
			return a.Object["spec"].(map[string]interface{})["targetRef"], b.Object["spec"].(map[string]interface{})["targetRef"]
		}, false},
		{"metadata is never shared", a, b, nil, func(a, b *unstructured.Unstructured) (interface{}, interface{}) {
			return a.Object["metadata"].(map[string]interface{})["labels"], b.Object["metadata"].(map[string]interface{})["labels"]
		}, false},
		{"an integer and a float of one value stay apart", a, b, func(a, b *unstructured.Unstructured) {
			rates(a)[0].(map[string]interface{})["limit"] = int64(50)
		}, func(a, b *unstructured.Unstructured) (interface{}, interface{}) {
			return rates(a), rates(b)
		}, false},
		{"zero and negative zero stay apart", a, b, func(a, b *unstructured.Unstructured) {
			rates(a)[0].(map[string]interface{})["limit"] = 0.0
			rates(b)[0].(map[string]interface{})["limit"] = math.Copysign(0, -1)
		}, func(a, b *unstructured.Unstructured) (interface{}, interface{}) {
			return rates(a), rates(b)
		}, false},
		{"a value of a type decoding does not make is left alone", a, b, func(a, b *unstructured.Unstructured) {
			rates(a)[0].(map[string]interface{})["limit"] = 50
			rates(b)[0].(map[string]interface{})["limit"] = 50
		}, func(a, b *unstructured.Unstructured) (interface{}, interface{}) {
			return rates(a), rates(b)
		}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x, y := decoded(t, tt.a), decoded(t, tt.b)
			wantX, wantY := decoded(t, tt.a), decoded(t, tt.b) // the same, not shared
			if tt.edit != nil {
				tt.edit(x, y)
				tt.edit(wantX, wantY)
			}
			Share([]*unstructured.Unstructured{x, y})
			if diff := cmp.Diff(wantX.Object, x.Object); diff != "" {
				t.Errorf("first object changed (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(wantY.Object, y.Object); diff != "" {
				t.Errorf("second object changed (-want +got):\n%s", diff)
			}
			if got := same(tt.share(x, y)); got != tt.want {
				t.Errorf("shared: %v, want %v", got, tt.want)
			}
		})
	}
}

// rates is the list of rates of the burst rule of the defaults of a policy written as above.
func rates(u *unstructured.Unstructured) []interface{} {
	v, _, _ := unstructured.NestedFieldNoCopy(u.Object, "spec", "defaults", "limits", "burst", "rates")
	return v.([]interface{})
}

// TestShareAgain shares objects shared already beside new ones (diff's head holds the base's
// objects): every object reads as decoded, and the new ones take the values shared before.
func TestShareAgain(t *testing.T) {
	const doc = `apiVersion: policy.precedent.dev/v1alpha1
kind: RateLimitPolicy
metadata: {name: %s, namespace: shop}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: gw}
  defaults:
    limits: {burst: {rates: [{limit: 50, window: 1m}]}}
`
	decode := func(name string) *unstructured.Unstructured {
		objs, err := Decode("test.yaml", []byte(fmt.Sprintf(doc, name)))
		if err != nil {
			t.Fatal(err)
		}
		return objs[0].Unstructured
	}
	base := []*unstructured.Unstructured{decode("a"), decode("b")}
	Share(base)
	head := append(append([]*unstructured.Unstructured(nil), base...), decode("c"))
	Share(head)
	for _, u := range head {
		if diff := cmp.Diff(decode(u.GetName()).Object, u.Object); diff != "" {
			t.Errorf("%s changed (-want +got):\n%s", u.GetName(), diff)
		}
	}
	if !same(rates(head[2]), rates(head[0])) {
		t.Errorf("the new object's rates are not the ones shared before")
	}
}

// TestSharerParts: objects shared a part at a time read as decoded, and a later part takes the
// values of the parts before, as Share of all of them at once gives.
func TestSharerParts(t *testing.T) {
	const doc = `apiVersion: policy.precedent.dev/v1alpha1
kind: RateLimitPolicy
metadata: {name: %s, namespace: shop}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: %s}
  defaults:
    limits: {burst: {rates: [{limit: 50, window: 1m}]}}
`
	decode := func(name string) *unstructured.Unstructured {
		objs, err := Decode("test.yaml", []byte(fmt.Sprintf(doc, name, name)))
		if err != nil {
			t.Fatal(err)
		}
		return objs[0].Unstructured
	}
	s := NewSharer()
	var all []*unstructured.Unstructured
	for _, part := range [][]string{{"a", "b"}, {"c"}, {"d", "e"}} {
		var objs []*unstructured.Unstructured
		for _, name := range part {
			objs = append(objs, decode(name))
		}
		s.Share(objs)
		all = append(all, objs...)
	}
	for _, u := range all {
		if diff := cmp.Diff(decode(u.GetName()).Object, u.Object); diff != "" {
			t.Errorf("%s changed (-want +got):\n%s", u.GetName(), diff)
		}
		if !same(rates(u), rates(all[0])) {
			t.Errorf("%s: its rates are not the first part's", u.GetName())
		}
	}
}
