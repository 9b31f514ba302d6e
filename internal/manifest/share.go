package manifest

import (
	"hash/maphash"
	"math"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Share makes the equal values under the objects' fields other than metadata one value: the
// first of them, in the objects' order. Policies written from one template repeat their rule
// bodies, and each decoded map costs some 300 bytes however few its entries; in the generated
// world at 10x (docs/performance.md), 50,000 policies whose defaults and overrides are those of
// a few templates held about 100 MB of equal maps until the end of a run. Values are compared
// whole and by type (an int64 50 is not a float64 50), so each object reads the same as before.
//
// The objects must not be changed below their top level after Share (except metadata, which is
// never shared): a change made through one object would show in the others. Call it after
// defaulting, pruning and the namespace of -n, the last writes the commands make to the objects
// they read. Objects shared already may be shared again (diff's head holds the base's objects):
// Share puts into their maps only values equal to those there, and it runs on one goroutine, as a
// map that several objects hold could be reached from two at once.
func Share(objs []*unstructured.Unstructured) {
	NewSharer().Share(objs)
}

// Sharer is Share over objects given a part at a time, in order (a large input checked and
// released a part at a time): each value is made one with the equal values of every part given
// before, as Share of all the parts at once would. The parts are subject to Share's conditions.
type Sharer struct {
	s sharer
}

// NewSharer returns a Sharer that has seen no value.
func NewSharer() *Sharer {
	return &Sharer{s: sharer{seed: maphash.MakeSeed(), seen: map[uint64][]interface{}{}}}
}

// Share shares the values of objs with each other and with those of the objects given before.
func (s *Sharer) Share(objs []*unstructured.Unstructured) {
	for _, u := range objs {
		s.s.object(u)
	}
}

// object shares the fields of u but its metadata.
func (s *sharer) object(u *unstructured.Unstructured) {
	for k, v := range u.Object {
		if k == "metadata" {
			continue
		}
		if c, _, ok := s.share(v); ok {
			u.Object[k] = c
		}
	}
}

// sharer holds the first of each value seen, by hash.
type sharer struct {
	seed maphash.Seed
	seen map[uint64][]interface{}
}

// Tags keep values of different types that hash alike apart (an empty map and an empty list).
const (
	tagNil uint64 = iota + 1
	tagFalse
	tagTrue
	tagString
	tagInt
	tagFloat
	tagMap
	tagList
)

// share returns the first value seen equal to v (v itself when it is the first) and its hash,
// after sharing what v holds in place; ok is false for a value of a type that decoding does not
// make, which is left as it is (and so is what holds it).
func (s *sharer) share(v interface{}) (interface{}, uint64, bool) {
	var h uint64
	switch x := v.(type) {
	case nil:
		return nil, tagNil, true
	case bool:
		if x {
			return x, tagTrue, true
		}
		return x, tagFalse, true
	case string:
		// Strings are not looked up: the decoder's interner shares those that repeat, and a
		// table of every name would cost more than it saves.
		return v, mix(tagString, maphash.String(s.seed, x)), true
	case int64:
		h = mix(tagInt, uint64(x))
	case float64:
		h = mix(tagFloat, math.Float64bits(x))
	case map[string]interface{}:
		h = tagMap
		for k, e := range x {
			c, eh, ok := s.share(e)
			if !ok {
				return v, 0, false
			}
			x[k] = c
			h += mix(maphash.String(s.seed, k), eh) // a sum: the same whatever the order of the keys
		}
		h = mix(tagMap, h)
	case []interface{}:
		h = tagList
		for i, e := range x {
			c, eh, ok := s.share(e)
			if !ok {
				return v, 0, false
			}
			x[i] = c
			h = mix(h, eh)
		}
	default:
		return v, 0, false
	}
	for _, c := range s.seen[h] {
		if equal(c, v) {
			return c, h, true
		}
	}
	s.seen[h] = append(s.seen[h], v)
	return v, h, true
}

// mix combines two hashes (the finalizer of splitmix64 over a ⊕ rotated b).
func mix(a, b uint64) uint64 {
	z := a ^ (b<<31 | b>>33) + 0x9e3779b97f4a7c15
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// equal reports whether a and b are the same value of the same types, as share makes them.
func equal(a, b interface{}) bool {
	switch x := a.(type) {
	case map[string]interface{}:
		y, ok := b.(map[string]interface{})
		if !ok || len(x) != len(y) {
			return false
		}
		for k, e := range x {
			f, ok := y[k]
			if !ok || !equal(e, f) {
				return false
			}
		}
		return true
	case []interface{}:
		y, ok := b.([]interface{})
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !equal(x[i], y[i]) {
				return false
			}
		}
		return true
	case float64:
		y, ok := b.(float64)
		return ok && math.Float64bits(x) == math.Float64bits(y) // 0 and -0 apart
	case nil, bool, string, int64:
		return a == b // interface comparison: same type and value
	}
	return false
}
