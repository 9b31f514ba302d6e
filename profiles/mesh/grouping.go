package mesh

import (
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/precedent-dev/precedent/state"
)

// A grouping keeps the parsed objects of one kind by mesh as a derived cache brought forward per
// event. Each mesh's objects sit in shards by a hash of their key, each shard sorted by key, so that
// an event copies one shard of its mesh, not the mesh: with thousands of Dataplanes, a whole copy
// per event would cost more than the index's own update.

// shardCount is the number of shards of one mesh.
const shardCount = 64

// shards are one mesh's parsed objects, each shard sorted by key.
type shards[T any] [shardCount][]entry[T]

// entry is one parsed object with its key.
type entry[T any] struct {
	key string
	v   T
}

func compareEntry[T any](e entry[T], key string) int { return strings.Compare(e.key, key) }

// byMesh are parsed objects by mesh name. It is shared: read only.
type byMesh[T any] map[string]*shards[T]

// grouping says how objects of one kind are parsed, keyed (key and objKey agree) and grouped by mesh.
type grouping[T any] struct {
	meshOf func(*unstructured.Unstructured) string
	key    func(*T) string
	objKey func(*unstructured.Unstructured) string
	parse  func(*unstructured.Unstructured) (T, bool)
}

// shardOf is the shard of key (FNV-1a).
func shardOf(key string) int {
	h := uint32(2166136261)
	for i := 0; i < len(key); i++ {
		h = (h ^ uint32(key[i])) * 16777619
	}
	return int(h % shardCount)
}

// derive returns the objects of gk grouped by mesh, a derived cache under key.
func (g grouping[T]) derive(st *state.State, key string, gk schema.GroupKind) byMesh[T] {
	return st.Derive(state.Derivation{Key: key, Kinds: []schema.GroupKind{gk},
		Build: func() any { return g.build(st.Objects(gk)) },
		Next: func(prev any, e state.Event) any {
			if n := g.next(prev.(byMesh[T]), e); n != nil {
				return n
			}
			return nil // an untyped nil: build whole
		},
	}).(byMesh[T])
}

// list returns the objects of mesh meshName in b, sorted by key.
func (g grouping[T]) list(b byMesh[T], meshName string) []T {
	sh := b[meshName]
	if sh == nil {
		return nil
	}
	n := 0
	for _, l := range sh {
		n += len(l)
	}
	all := make([]entry[T], 0, n)
	for _, l := range sh {
		all = append(all, l...)
	}
	slices.SortFunc(all, func(a, b entry[T]) int { return strings.Compare(a.key, b.key) })
	out := make([]T, len(all))
	for i := range all {
		out[i] = all[i].v
	}
	return out
}

// lists returns every mesh's objects, sorted by key.
func (g grouping[T]) lists(b byMesh[T]) map[string][]T {
	out := make(map[string][]T, len(b))
	for m := range b {
		out[m] = g.list(b, m)
	}
	return out
}

func (g grouping[T]) build(objs []*unstructured.Unstructured) byMesh[T] {
	out := byMesh[T]{}
	for _, u := range objs {
		if v, ok := g.parse(u); ok {
			m := g.meshOf(u)
			sh := out[m]
			if sh == nil {
				sh = &shards[T]{}
				out[m] = sh
			}
			k := g.key(&v)
			i := shardOf(k)
			sh[i] = append(sh[i], entry[T]{key: k, v: v})
		}
	}
	for _, sh := range out {
		for _, l := range sh {
			slices.SortFunc(l, func(a, b entry[T]) int { return strings.Compare(a.key, b.key) })
		}
	}
	return out
}

// next is prev with the object of e removed from the mesh it was in and, unless deleted (or it no
// longer parses), put in the mesh it is in now. Only the shard of its key is copied, once in each
// mesh it touches.
func (g grouping[T]) next(prev byMesh[T], e state.Event) byMesh[T] {
	u, ok := e.Object.(*unstructured.Unstructured)
	if !ok {
		return nil
	}
	to := g.meshOf(u)
	meshes := []string{to}
	if old, ok := e.Old.(*unstructured.Unstructured); ok && old != nil && g.meshOf(old) != to {
		meshes = append(meshes, g.meshOf(old))
	}
	var add *entry[T]
	k := g.objKey(u)
	if !e.Deleted {
		if v, parsed := g.parse(u); parsed {
			add = &entry[T]{key: k, v: v}
		}
	}
	i := shardOf(k)
	out := make(byMesh[T], len(prev)+1)
	for m, sh := range prev {
		out[m] = sh
	}
	for _, m := range meshes {
		var n shards[T]
		if sh := out[m]; sh != nil {
			n = *sh
		}
		j, found := slices.BinarySearchFunc(n[i], k, compareEntry[T])
		l := slices.Clone(n[i])
		switch {
		case found && add != nil && m == to:
			l[j] = *add
		case found:
			l = slices.Delete(l, j, j+1)
		case add != nil && m == to:
			l = slices.Insert(l, j, *add)
		default:
			continue // not there, and not to be added: unchanged
		}
		n[i] = l
		if n.empty() {
			delete(out, m) // a mesh left empty is dropped, as a build has none
		} else {
			out[m] = &n
		}
	}
	return out
}

func (sh *shards[T]) empty() bool {
	for _, l := range sh {
		if len(l) > 0 {
			return false
		}
	}
	return true
}
