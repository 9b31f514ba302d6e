package mesh

import (
	"maps"

	"github.com/benbjohnson/immutable"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/precedent-dev/precedent/internal/source"
)

// A grouping keeps the parsed objects of one kind by mesh as a derived cache brought forward per
// event. Each mesh's objects sit in a persistent sorted map by key (immutable.SortedMap), so that
// an event copies the path to its key, not the mesh: with thousands of Dataplanes, a whole copy per
// event would cost more than the index's own update.

// objects are one mesh's parsed objects by key. Shared: read only.
type objects[T any] = immutable.SortedMap[string, T]

// byMesh are parsed objects by mesh name. It is shared: read only.
type byMesh[T any] map[string]*objects[T]

// grouping says how objects of one kind are parsed, keyed (key and objKey agree) and grouped by mesh.
type grouping[T any] struct {
	meshOf func(*unstructured.Unstructured) string
	key    func(*T) string
	objKey func(*unstructured.Unstructured) string
	parse  func(*unstructured.Unstructured) (T, bool)
}

// derive returns the objects of gk grouped by mesh, a derived cache under key.
func (g grouping[T]) derive(st source.Source, key string, gk schema.GroupKind) byMesh[T] {
	return st.Derive(source.Derivation{Key: key, Kinds: []schema.GroupKind{gk},
		Build: func() any { return g.build(st.Objects(gk)) },
		Next: func(prev any, e source.Event) any {
			if n := g.next(prev.(byMesh[T]), e); n != nil {
				return n
			}
			return nil // an untyped nil: build whole
		},
	}).(byMesh[T])
}

// list returns the objects of mesh meshName in b, sorted by key.
func (g grouping[T]) list(b byMesh[T], meshName string) []T {
	m := b[meshName]
	if m == nil {
		return nil
	}
	out := make([]T, 0, m.Len())
	for it := m.Iterator(); !it.Done(); {
		_, v, _ := it.Next()
		out = append(out, v)
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
	sets := map[string]*immutable.SortedMapBuilder[string, T]{}
	for _, u := range objs {
		if v, ok := g.parse(u); ok {
			m := g.meshOf(u)
			b := sets[m]
			if b == nil {
				b = immutable.NewSortedMapBuilder[string, T](nil)
				sets[m] = b
			}
			b.Set(g.key(&v), v)
		}
	}
	out := make(byMesh[T], len(sets))
	for m, b := range sets {
		out[m] = b.Map()
	}
	return out
}

// next is prev with the object of e removed from the mesh it was in and, unless deleted (or it no
// longer parses), put in the mesh it is in now. Only the path to its key is copied, in each mesh it
// touches.
func (g grouping[T]) next(prev byMesh[T], e source.Event) byMesh[T] {
	u, ok := e.Object.(*unstructured.Unstructured)
	if !ok {
		return nil
	}
	to := g.meshOf(u)
	meshes := []string{to}
	if old, ok := e.Old.(*unstructured.Unstructured); ok && old != nil && g.meshOf(old) != to {
		meshes = append(meshes, g.meshOf(old))
	}
	var add *T
	k := g.objKey(u)
	if !e.Deleted {
		if v, parsed := g.parse(u); parsed {
			add = &v
		}
	}
	out := maps.Clone(prev)
	if out == nil {
		out = byMesh[T]{}
	}
	for _, m := range meshes {
		cur := out[m]
		if cur == nil {
			cur = immutable.NewSortedMap[string, T](nil)
		}
		_, found := cur.Get(k)
		switch {
		case add != nil && m == to:
			cur = cur.Set(k, *add)
		case found:
			cur = cur.Delete(k)
		default:
			continue // not there, and not to be added: unchanged
		}
		if cur.Len() == 0 {
			delete(out, m) // a mesh left empty is dropped, as a build has none
		} else {
			out[m] = cur
		}
	}
	return out
}
