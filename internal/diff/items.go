package diff

import (
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/precedent-dev/precedent/internal/effective"
	"github.com/precedent-dev/precedent/internal/policy"
)

// Items compares the effective items of kind (the CLI contract's shape) of a model that folds
// outside the engine, such as Envoy Gateway's: per path, per rule id of the items' sources, the
// value at that dotted path of the spec and the policy it came from.
func Items(kind schema.GroupKind, base, head []effective.Item) []Change {
	type pair struct{ before, after *effective.Item }
	byKey := map[effective.ItemKey]*pair{}
	var keys []effective.ItemKey
	at := func(it *effective.Item) *pair {
		k := effective.ItemKey{Gateway: it.Gateway, Listener: it.Listener, Route: it.Route, Rule: it.Rule}
		p, ok := byKey[k]
		if !ok {
			p = &pair{}
			byKey[k] = p
			keys = append(keys, k)
		}
		return p
	}
	for i := range base {
		at(&base[i]).before = &base[i]
	}
	for i := range head {
		at(&head[i]).after = &head[i]
	}
	var out []Change
	for _, k := range keys {
		p := byKey[k]
		out = appendRules(out, kind, k, entries(p.before), entries(p.after))
	}
	Sort(out)
	return out
}

// entries are an item's rules as the engine's entries: each source id with its value in the spec.
func entries(it *effective.Item) map[string]effective.Entry {
	if it == nil {
		return nil
	}
	out := make(map[string]effective.Entry, len(it.Sources))
	for id, from := range it.Sources {
		ns, name, _ := strings.Cut(from, "/")
		out[id] = effective.Entry{Body: lookup(it.Spec, id), Source: policy.Ref{Namespace: ns, Name: name}}
	}
	return out
}

// lookup is the value at the dotted path id of spec (nil when absent).
func lookup(spec map[string]interface{}, id string) interface{} {
	var cur interface{} = spec
	for _, part := range strings.Split(id, ".") {
		m, ok := cur.(map[string]interface{})
		if !ok {
			return nil
		}
		cur = m[part]
	}
	return cur
}
